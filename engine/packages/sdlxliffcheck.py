"""What Trados Studio needs of a returned SDLXLIFF file, checked before it goes into a return package.

No SDLXLIFF schema is published under a licence that lets it ship here, and its SDL extension
schema (``sdl-FilterFramework2-1.0.xsd``, as embedded in Trados' SDLXLIFF file type) types the
``sdl:seg`` attributes only as strings: what breaks a file in Trados is what its reader does with
them.  Trados' SDLXLIFF reader (as public decompilations of ``Sdl.FileTypeSupport.Bilingual.SdlXliff``
show it) parses ``conf`` with a case-sensitive ``Enum.Parse`` over ``ConfirmationLevel`` (an
unknown value is an error of the file), ``percent`` as a byte, ``struct-match`` as a boolean and
``text-match`` over ``TextContextMatchLevel``; it finds a segment's ``sdl:seg`` by the ``mid`` of its
``<mrk mtype="seg">`` and the target's segments by the source's ``mid``\\ s.  The project then
matches its files to the received ones by their ``<file>`` and trans-unit ids.

:func:`check_returned` compares the returned bytes with the received ones and refuses, in one line
naming the file and the unit, a return that changes what Trados relies on: the XLIFF/SDL
namespaces, the ``<file>`` elements and their headers (skeleton, tag definitions), the trans-units
and their ids and order, a ``<source>``; a target segment whose ``mid`` is not a source segment's;
a segment that lost its ``sdl:seg``; an ``sdl:seg`` attribute value Trados cannot parse.  A value
the agency's file already held is not ours to refuse, so only values the return changed are
checked.  Parsing is xmlsafe's (no entity, no DTD, no network); the caller's bytes are bounded by
the package guard.
"""
from __future__ import annotations

from lxml import etree

from engine.errors import FormatError
from engine.formats import xmlsafe

XLIFF_NS = "urn:oasis:names:tc:xliff:document:1.2"
SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
#: ``Sdl.Core.Globalization.ConfirmationLevel``: the only ``conf`` values Trados reads.
CONF_VALUES = frozenset({"Unspecified", "Draft", "Translated", "RejectedTranslation", "ApprovedTranslation",
                         "RejectedSignOff", "ApprovedSignOff"})
#: The translation origins Trados writes (``origin``; other tools' values are kept as received).
ORIGIN_VALUES = frozenset({"interactive", "document-match", "mt", "tm", "not-translated", "auto-propagated",
                           "source", "auto-aligned", "unknown", "Retrofit", "amt", "nmt", "automatic-translation"})
TEXT_MATCH_VALUES = frozenset({"None", "Source", "SourceAndTarget"})
_X = f"{{{XLIFF_NS}}}"
_S = f"{{{SDL_NS}}}"


def _parse(name: str, data: bytes):
    try:
        xmlsafe.check_prolog(name, data[:65536])
        root = etree.fromstring(data, xmlsafe.safe_parser())
    except etree.XMLSyntaxError as e:
        raise FormatError(name, f"not well-formed XML: {e.msg}", f"line {e.lineno}") from None
    xmlsafe.refuse_entities(name, root)
    return root


def _c14n(el) -> bytes:
    return etree.tostring(el, method="c14n", with_tail=False)


def _units(file_el) -> list:
    return list(file_el.iter(f"{_X}trans-unit"))


def _seg_defs(unit) -> dict[str, etree._Element]:
    defs = unit.find(f"{_S}seg-defs")
    return {} if defs is None else {s.get("id"): s for s in defs.findall(f"{_S}seg")}


def _mids(el) -> list[str]:
    return [] if el is None else [m.get("mid") for m in el.iter(f"{_X}mrk") if m.get("mtype") == "seg"]


def _bad_seg_value(attr: str, value: str) -> str | None:
    """Why Trados' reader cannot read ``attr="value"`` of an ``sdl:seg`` (None: it can)."""
    if attr == "conf" and value and value not in CONF_VALUES:
        return f'conf="{value}" is not a Trados confirmation level ({", ".join(sorted(CONF_VALUES))})'
    if attr == "origin" and value not in ORIGIN_VALUES:
        return f'origin="{value}" is not a Trados translation origin'
    if attr == "percent" and not (value.isdigit() and int(value) <= 255):
        return f'percent="{value}" is not a whole number 0-255'
    if attr in ("locked", "struct-match") and value.lower() not in ("true", "false"):
        return f'{attr}="{value}" is not true or false'
    if attr == "text-match" and value not in TEXT_MATCH_VALUES:
        return f'text-match="{value}" is not one of {", ".join(sorted(TEXT_MATCH_VALUES))}'
    return None


def check_returned(name: str, received: bytes, returned: bytes) -> None:
    """Raise :class:`FormatError` (``name``, the unit) when ``returned`` breaks what Trados needs of
    the SDLXLIFF it sent as ``received``; return quietly otherwise."""
    got, sent = _parse(name, returned), _parse(name, received)
    if got.tag != sent.tag or dict(got.nsmap) != dict(sent.nsmap):
        raise FormatError(name, "refused: the returned file's root or namespaces differ from the received file's "
                                "(Trados reads its SDL extensions by them)")
    sent_files, got_files = sent.findall(f"{_X}file"), got.findall(f"{_X}file")
    if len(sent_files) != len(got_files):
        raise FormatError(name, f"refused: {len(got_files)} <file> elements returned, {len(sent_files)} received")
    for n, (f_sent, f_got) in enumerate(zip(sent_files, got_files), 1):
        where = f"<file> {n}"
        for attr in ("original", "source-language", "target-language", "datatype"):
            if f_sent.get(attr) != f_got.get(attr) and not (attr == "target-language" and f_sent.get(attr) is None):
                raise FormatError(name, f"refused: its {attr} changed from {f_sent.get(attr)!r} to "
                                        f"{f_got.get(attr)!r}", where)
        h_sent, h_got = f_sent.find(f"{_X}header"), f_got.find(f"{_X}header")
        if (h_sent is None) != (h_got is None) or (h_sent is not None and _c14n(h_sent) != _c14n(h_got)):
            raise FormatError(name, "refused: its <header> (skeleton, tag definitions) changed", where)
        _check_units(name, _units(f_sent), _units(f_got))


def _check_units(name: str, sent: list, got: list) -> None:
    ids_sent, ids_got = [u.get("id") for u in sent], [u.get("id") for u in got]
    if ids_sent != ids_got:
        first = next((i for i, (a, b) in enumerate(zip(ids_sent, ids_got)) if a != b), min(len(sent), len(got)))
        unit = ids_sent[first] if first < len(ids_sent) else ids_got[first]
        raise FormatError(name, "refused: the trans-units differ from the received ones (added, removed or "
                                "reordered); Trados matches them by id", f"unit {unit!r}")
    for u_sent, u_got in zip(sent, got):
        where = f"unit {u_got.get('id')!r}"
        src_sent, src_got = u_sent.find(f"{_X}source"), u_got.find(f"{_X}source")
        if (src_sent is None) != (src_got is None) or (src_sent is not None and _c14n(src_sent) != _c14n(src_got)):
            raise FormatError(name, "refused: its <source> changed", where)
        seg_mids = _mids(u_got.find(f"{_X}seg-source"))
        if len(set(seg_mids)) != len(seg_mids):
            raise FormatError(name, "refused: two source segments share a mid", where)
        tgt_mids = _mids(u_got.find(f"{_X}target"))
        stray = [m for m in tgt_mids if m not in seg_mids]
        if stray or len(set(tgt_mids)) != len(tgt_mids):
            raise FormatError(name, f"refused: target segment mid {(stray or tgt_mids)[0]!r} is not one source "
                                    "segment's", where)
        defs_sent, defs_got = _seg_defs(u_sent), _seg_defs(u_got)
        lost = [m for m in seg_mids if m in defs_sent and m not in defs_got]
        if lost:
            raise FormatError(name, f"refused: segment {lost[0]!r} lost its sdl:seg (its status in Trados)", where)
        for mid, seg in defs_got.items():
            before = defs_sent.get(mid)
            for attr, value in seg.attrib.items():
                if before is not None and before.get(attr) == value:
                    continue
                why = _bad_seg_value(attr, value)
                if why:
                    raise FormatError(name, f"refused: {why}", f"{where}, segment {mid!r}")
