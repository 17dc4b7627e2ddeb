"""TMX 1.4b: streaming import and export of translation memories.

Reading (:func:`read_tmx`) walks the file with
:func:`engine.formats.xmlsafe.iterparse` and clears every finished ``<tu>``
(and whatever precedes it) so memory stays bounded on a file of any size.
Writing (:func:`write_tmx`) streams through :class:`lxml.etree.xmlfile` into
:func:`engine.fsutil.atomic_write`.

What a :class:`~engine.formats.base.TMUnit` read from TMX carries:

* ``variants``: language (normalised, :func:`engine.langs.normalize_lang`)
  -> :class:`~engine.inline.TaggedText`.  Inline ``<bpt>/<ept>/<ph>/<it>/<ut>``
  become one protected tag each whose ``original`` is the element's XML
  (``<sub>`` stays inside its code's XML): ``<bpt>``/``<ept>`` paired by
  ``i`` are open/close, ``<it pos="begin|end">`` an open or close without
  partner, the others standalone; ``<hi>`` becomes an open/close pair around
  its (translatable) content.
  Tags of every variant are numbered like those of the reference variant
  (the source language), so tag ``n`` is the same code in each language.
  A private-use character of the text (U+E001..U+F8FF, the range of Verso's
  tag placeholders) becomes a standalone code whose ``original`` is the
  character, labelled ``U+F0A7``; :func:`write_tmx` writes it back as the
  plain character (see :mod:`engine.formats.xliffcommon` for why it is kept
  this way rather than replaced or refused).
* ``meta``: ``tuid``, ``creationdate`` / ``changedate`` / ``lastusagedate``
  (raw TMX value, plus ``*_iso`` in ISO 8601 when it parses), ``creationid``,
  ``changeid``, ``usagecount`` (int), ``props`` ([[type, value], ...]),
  ``notes`` ([text, ...]), ``srclang`` (the reference language), ``attrs``
  (other ``<tu>`` attributes), ``tuv`` ({lang: the same keys for that
  ``<tuv>``}), ``extra_variants`` (a second ``<tuv>`` of a language already
  seen: [{"lang", "text", "tags"}]).  Keys appear only when the file has them.

A TMX whose elements are in a namespace (``xmlns="http://www.lisa.org/tmx14"``,
as some tools write) is read like any other; a ``<body>`` with content but
no ``<tu>`` is an error, not an empty memory.  A ``<seg>`` over 1 MiB of text
is refused with its line.

Problems: each skipped ``<tu>`` adds one message to ``problems`` naming its
number, tuid and line; a well-formedness error raises
:class:`~engine.errors.FormatError` with the line (callers roll back).

This module reads; the other jobs have their own modules, whose public names are
importable from here as well: :mod:`engine.formats.tmx_write` (:func:`write_tmx`),
:mod:`engine.formats.tmx_inline` (inline codes), :mod:`engine.formats.tmx_meta`
(header, props, notes, dates).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError
from engine.formats import textutil
from engine.formats.base import TMUnit
from engine.formats.tmx_inline import align_tags, seg_to_tagged, tagged_to_seg  # noqa: F401  (asked of tmx)
from engine.formats.tmx_meta import (  # noqa: F401  (the dates and header: asked of tmx)
    XML_LANG, TMXHeader, _header_from, _meta_of, iso_to_tmx_date, tmx_date_to_iso,
)
from engine.formats.tmx_write import write_tmx  # noqa: F401  (asked of tmx)
from engine.formats.xmlsafe import iterparse, localname
from engine.inline import TaggedText
from engine.langs import normalize_lang, same_language


def read_tmx_header(path: str | Path) -> TMXHeader:
    """The header of a TMX file (reads only up to it)."""
    path = Path(path)
    with _parse_errors(path):
        for el in _events(path):
            if localname(el) == "header":
                return _header_from(el)
            if localname(el) in ("body", "tu"):
                break
    return TMXHeader()


# ------------------------------------------------------------------ reading
class _parse_errors:
    """Turn lxml errors raised while streaming into FormatError with the line."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, et, e, tb):
        if et is None:
            return False
        if issubclass(et, etree.XMLSyntaxError):
            line = getattr(e, "lineno", None) or 1
            msg = getattr(e, "msg", None) or str(e)
            raise FormatError(self.path, f"not well-formed XML: {msg}", f"line {line}") from None
        if issubclass(et, OSError) and not isinstance(e, FormatError):
            raise FormatError(self.path, f"cannot read: {e.strerror or e}") from None
        return False


def _check_root(path: Path) -> None:
    """Parse up to the root element: refuse entity declarations and non-TMX files."""
    for _ev, root in iterparse(path, events=("start",)):
        dtd = root.getroottree().docinfo.internalDTD
        if dtd is not None and any(True for _ in dtd.iterentities()):
            raise UnsafeXMLError(path, "refused: the document declares XML entities "
                                       "(entity expansion is disabled for safety)", "prolog")
        if localname(root) != "tmx":
            raise FormatError(path, f"not a TMX file (root element <{localname(root)}>)",
                              f"line {root.sourceline or 1}")
        return


def _events(path: Path) -> Iterator:
    """Finished ``<header>`` and ``<tu>`` elements, after checking the root."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if size == 0:
        raise FormatError(path, "the file is empty (no TMX content)", "line 1")
    _check_root(path)
    # "{*}": in no namespace or any (some tools write xmlns="http://www.lisa.org/tmx14")
    for _ev, el in iterparse(path, events=("end",), tag=("{*}header", "{*}tu", "{*}body")):
        yield el


def _tu_name(index: int, tuid: str | None, line: int | None) -> str:
    who = f"TU {index}" + (f" (tuid {tuid!r})" if tuid else "")
    return f"{who}, line {line}" if line else who


def read_tmx(path: str | Path, *, src_lang: str = "", tgt_lang: str = "",
             problems: list[str] | None = None) -> Iterator[TMUnit]:
    """Yield the units of a TMX file one at a time (bounded memory).

    ``src_lang`` / ``tgt_lang`` (any spelling) name the languages wanted: a
    unit lacking either is skipped.  Every variant is kept all the same.
    """
    path = Path(path)
    problems = problems if problems is not None else []
    want_src, want_tgt = normalize_lang(src_lang), normalize_lang(tgt_lang)
    header = TMXHeader()
    index = 0
    with _parse_errors(path):
        for el in _events(path):
            name = localname(el)
            if name == "header":
                header = _header_from(el)
                continue
            if name == "body" and index == 0:
                other = next((c for c in el if isinstance(c.tag, str)), None)
                if other is not None:
                    raise FormatError(path, f"no <tu> in a <body> that holds <{localname(other)}>: "
                                            "not a TMX body Verso can read", f"line {other.sourceline}")
            if name != "tu":
                continue
            index += 1
            unit = _unit_from(el, index, header, want_src, want_tgt, problems, path)
            parent = el.getparent()
            el.clear(keep_tail=False)
            if parent is not None:
                while el.getprevious() is not None:
                    del parent[0]
            if unit is not None:
                yield unit


def _lang_of(tuv) -> str:
    return normalize_lang(tuv.get(XML_LANG) or tuv.get("lang") or "")


def _unit_from(tu, index: int, header: TMXHeader, want_src: str, want_tgt: str,
               problems: list[str], path: Path) -> TMUnit | None:
    line = tu.sourceline
    meta = _meta_of(tu)
    where = _tu_name(index, meta.get("tuid"), line)
    variants: dict[str, TaggedText] = {}
    extras: list[tuple[str, TaggedText]] = []
    tuv_meta: dict[str, dict] = {}
    for tuv in tu:
        if localname(tuv) != "tuv":
            continue
        lang = _lang_of(tuv)
        if not lang:
            problems.append(f"{where}: a <tuv> (line {tuv.sourceline}) has no xml:lang; ignored")
            continue
        seg = next((c for c in tuv if localname(c) == "seg"), None)
        text = seg_to_tagged(seg, path) if seg is not None else TaggedText("")
        if len(text.text) > textutil.MAX_STRING_CHARS:
            raise FormatError(path, f"a <seg> longer than {textutil.size_label(textutil.MAX_STRING_CHARS)} "
                                    "of text: not a segment Verso translates",
                              f"line {seg.sourceline}")
        if not text.text.strip():
            continue
        if lang in variants:
            extras.append((lang, text))
            continue
        variants[lang] = text
        m = _meta_of(tuv)
        if m:
            tuv_meta[lang] = m
    if len(variants) < 2:
        problems.append(f"{where}: skipped, fewer than two languages with text")
        return None
    for want, role in ((want_src, "source"), (want_tgt, "target")):
        if want and not any(same_language(want, v) for v in variants):
            problems.append(f"{where}: skipped, no {role} text in {want} "
                            f"(has {', '.join(variants)})")
            return None
    ref = _reference_lang(variants, want_src, normalize_lang(tu.get("srclang")), header.srclang)
    for lang in variants:
        if lang != ref:
            variants[lang] = align_tags(variants[ref], variants[lang])
    meta["srclang"] = ref
    if tuv_meta:
        meta["tuv"] = tuv_meta
    if extras:
        meta["extra_variants"] = [
            {"lang": lang, "text": (tt := align_tags(variants[ref], t)).text,
             "tags": [g.to_json() for g in tt.tags]}
            for lang, t in extras
        ]
    return TMUnit(variants=variants, meta=meta, line=line)


def _reference_lang(variants: dict[str, TaggedText], *candidates: str) -> str:
    """The variant whose tag numbers the others follow: the source language."""
    for c in candidates:
        if c and c != "*all*":
            if c in variants:
                return c
            for lang in variants:
                if same_language(c, lang):
                    return lang
    return next(iter(variants))


