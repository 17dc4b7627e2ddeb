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
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator
from xml.sax.saxutils import escape as _xml_escape
from xml.sax.saxutils import quoteattr as _quoteattr

from lxml import etree

import engine
from engine.errors import FormatError, UnsafeXMLError
from engine.formats import textutil
from engine.formats.base import TMUnit
from engine.formats.xmlsafe import iterparse, localname, safe_parser
from engine.fsutil import atomic_write
from engine.inline import Tag, TaggedText, TaggedTextBuilder, is_private_use_tag, tag_char, tag_number
from engine.langs import normalize_lang, same_language

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_XML_NS = "{http://www.w3.org/XML/1998/namespace}"

#: Attributes of <tu>/<tuv> with a dedicated meta key.
_DATE_KEYS = ("creationdate", "changedate", "lastusagedate")
_PLAIN_KEYS = ("tuid", "creationid", "changeid")
_INLINE_CODES = ("bpt", "ept", "ph", "it", "ut")

# ------------------------------------------------------------------- dates
_BASIC_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$")
_EXT_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")


def tmx_date_to_iso(raw: str | None) -> str | None:
    """``20060101T120000Z`` -> ``2006-01-01T12:00:00Z``; None when it is no date.

    ISO 8601 extended dates (written by some tools) are accepted as well.
    """
    if not raw:
        return None
    raw = raw.strip()
    m = _BASIC_DATE.match(raw) or _EXT_DATE.match(raw)
    if not m:
        return None
    try:
        y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
        when = _dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc)
    except ValueError:
        return None
    if len(m.groups()) > 6 and m.group(7) and m.group(7) != "Z":
        return raw  # an explicit offset: already ISO 8601, keep it as written
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_to_tmx_date(iso: str | None) -> str | None:
    """``2006-01-01T12:00:00Z`` (or a datetime's isoformat) -> ``20060101T120000Z``."""
    if not iso:
        return None
    try:
        when = _dt.datetime.fromisoformat(iso.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc)
    return when.strftime("%Y%m%dT%H%M%SZ")


def _now_tmx() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


# ---------------------------------------------------------------- header
@dataclass
class TMXHeader:
    """The ``<header>`` of a TMX file."""

    srclang: str = ""
    attrs: dict = field(default_factory=dict)
    props: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def _attr_name(name: str) -> str:
    return "xml:" + name[len(_XML_NS):] if name.startswith(_XML_NS) else localname_str(name)


def localname_str(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def _text(el) -> str:
    return "".join(el.itertext())


def _header_from(el) -> TMXHeader:
    h = TMXHeader()
    for k, v in el.attrib.items():
        h.attrs[_attr_name(k)] = v
    src = h.attrs.get("srclang", "")
    h.srclang = src if src == "*all*" else normalize_lang(src)
    for ch in el:
        n = localname(ch)
        if n == "prop":
            h.props.append([ch.get("type", ""), _text(ch)])
        elif n == "note":
            h.notes.append(_text(ch))
    return h


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


def _meta_of(el) -> dict:
    """Known attributes, other attributes, <prop>s and <note>s of a <tu> or <tuv>."""
    meta: dict = {}
    attrs: dict = {}
    for k, v in el.attrib.items():
        name = _attr_name(k)
        if name in ("xml:lang", "lang", "srclang"):
            continue
        if name in _DATE_KEYS:
            meta[name] = v
            iso = tmx_date_to_iso(v)
            if iso:
                meta[name + "_iso"] = iso
        elif name in _PLAIN_KEYS:
            meta[name] = v
        elif name == "usagecount" and v.strip().isdigit():
            meta[name] = int(v)
        else:
            attrs[name] = v
    if attrs:
        meta["attrs"] = attrs
    for ch in el:
        n = localname(ch)
        if n == "prop":
            meta.setdefault("props", []).append([ch.get("type", ""), _text(ch)])
        elif n == "note":
            meta.setdefault("notes", []).append(_text(ch))
    return meta


_MARKUP_NAME = re.compile(r"\s*</?\s*([A-Za-z][\w:.-]*)")


def _label(el, name: str) -> str:
    native = _text(el)
    m = _MARKUP_NAME.match(native)
    if m:
        return m.group(1)
    if el.get("type"):
        return el.get("type")
    if native.strip() and len(native.strip()) <= 12:
        return native.strip()
    return name


def _start_tag(el) -> str:
    attrs = "".join(f" {_attr_name(k)}={_quoteattr(v)}" for k, v in el.attrib.items())
    return f"<{localname(el)}{attrs}>"


def seg_to_tagged(seg, path: Path | None = None) -> TaggedText:
    """The content of a ``<seg>`` element as text with protected codes."""
    b = TaggedTextBuilder()
    open_by_i: dict[str, str] = {}  # TMX i -> pair id of a <bpt> not yet closed
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}{counter[0]}"

    def text(s: str | None) -> None:
        b.text(s)  # a private-use character stays itself (a code whose original it is)

    def walk(ch) -> None:
        if isinstance(ch, etree._Entity):
            raise UnsafeXMLError(path, "refused: entity reference in a segment", f"line {ch.sourceline}")
        if not isinstance(ch.tag, str):  # comment or processing instruction
            text(ch.tail)
            return
        name = localname(ch)
        attrs = {"fmt": "tmx", "el": name}
        for a in ("i", "x", "type", "pos"):
            if ch.get(a) is not None:
                attrs[a] = ch.get(a)
        if name == "hi":
            pid = fresh("hi")
            label = ch.get("type") or "hi"
            b.open(_start_tag(ch), label, pair=pid, attrs=attrs)
            text(ch.text)
            for sub in ch:
                walk(sub)
            b.close(f"</{name}>", label, pair=pid, attrs=attrs)
        else:
            original = etree.tostring(_without_namespace(ch), encoding="unicode", with_tail=False)
            label = _label(ch, name)
            i = ch.get("i")
            if name == "bpt":
                pid = f"i{i}" if i is not None and i not in open_by_i else fresh("b")
                if i is not None:
                    open_by_i[i] = pid
                b.open(original, label, pair=pid, attrs=attrs)
            elif name == "ept" and i is not None and i in open_by_i:
                b.close(original, label, pair=open_by_i.pop(i), attrs=attrs)
            elif name == "it" and ch.get("pos") in ("begin", "end"):
                # an isolated half of a pair whose other half is in another segment
                pid = fresh("it")
                if ch.get("pos") == "begin":
                    b.open(original, label, pair=pid, attrs=attrs)
                else:
                    b.close(original, label, pair=pid, attrs=attrs)
            else:  # ph, ut, an <ept> without its <bpt>, or an unknown element
                b.ph(original, label, attrs=attrs)
        text(ch.tail)

    text(seg.text)
    for ch in seg:
        walk(ch)
    return b.build()


def _without_namespace(el):
    """``el`` itself, or a copy whose elements are in no namespace (an inline
    code of a namespaced TMX is written back into Verso's plain TMX)."""
    if not any(isinstance(e.tag, str) and e.tag.startswith("{") for e in el.iter()):
        return el
    import copy

    el = copy.deepcopy(el)
    for e in el.iter():
        if isinstance(e.tag, str) and e.tag.startswith("{"):
            e.tag = localname(e)
    etree.cleanup_namespaces(el)
    return el


def align_tags(ref: TaggedText, other: TaggedText) -> TaggedText:
    """Renumber ``other``'s tags so that a code shared with ``ref`` has ref's number.

    Codes are matched by closing pair, then TMX ``x``, then identical
    markup, then element and label; a code with no counterpart gets a number
    above all of ``ref``'s.
    """
    if not other.tags:
        return other
    if [(t.n, t.kind, t.original, t.pair) for t in other.tags] == \
            [(t.n, t.kind, t.original, t.pair) for t in ref.tags]:
        return other  # the same codes in the same order: numbers agree already
    ref_tags = list(ref.tags)
    used: set[int] = set()
    pair_map: dict[str, str] = {}
    mapping: dict[int, int] = {}
    next_n = max((t.n for t in ref_tags), default=0)
    new_tags: list[Tag] = []

    def pick(pred) -> Tag | None:
        for r in ref_tags:
            if r.n not in used and pred(r):
                return r
        return None

    for t in sorted(other.tags, key=lambda t: t.n):
        el, x = t.attrs.get("el"), t.attrs.get("x")
        cand = None
        if t.kind == "close" and t.pair in pair_map:
            cand = pick(lambda r: r.kind == "close" and r.pair == pair_map[t.pair])
        if cand is None and x:
            cand = pick(lambda r: r.kind == t.kind and r.attrs.get("x") == x)
        if cand is None:
            cand = pick(lambda r: r.kind == t.kind and r.original == t.original)
        if cand is None and t.kind != "close":
            cand = pick(lambda r: r.kind == t.kind and r.attrs.get("el") == el and r.label == t.label)
        if cand is not None:
            used.add(cand.n)
            n, pair = cand.n, cand.pair
            if t.kind == "open":
                pair_map[t.pair] = cand.pair
        else:
            next_n += 1
            n = next_n
            pair = pair_map.get(t.pair) or (f"{t.pair}~{n}" if t.pair else "")
            if t.kind == "open":
                pair_map[t.pair] = pair
        mapping[t.n] = n
        new_tags.append(Tag(n, t.kind, t.original, t.label, pair, dict(t.attrs)))
    text = "".join(tag_char(mapping[tn]) if (tn := tag_number(c)) in mapping else c for c in other.text)
    return TaggedText(text, tuple(sorted(new_tags, key=lambda t: t.n)))


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


# ------------------------------------------------------------------ writing
_INVALID_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_TMX_ORIGINAL = re.compile(r"^<(bpt|ept|ph|it|ut|hi)[\s>/]")


def _clean(s: str) -> str:
    return _INVALID_XML.sub("", s)


def _is_tmx_code(t: Tag) -> bool:
    """A code read from TMX, whose original element can be written back as is."""
    if t.attrs.get("fmt") != "tmx":
        return False
    return bool(_TMX_ORIGINAL.match(t.original)) or t.original == f"</{t.attrs.get('el')}>"


def _seg_markup(tt: TaggedText, *, keep_tmx: bool) -> str:
    """The inner XML of a <seg> for ``tt``."""
    by_n = {t.n: t for t in tt.tags}
    order = [by_n[n] for n in tt.tag_numbers() if n in by_n]
    opens_seen: set[str] = set()
    closes_after: dict[int, bool] = {}
    for idx, t in enumerate(order):  # does each open have its close later on?
        if t.kind == "open":
            closes_after[id(t)] = any(u.kind == "close" and u.pair == t.pair for u in order[idx + 1:])
    used_i = [int(t.attrs["i"]) for t in order
              if keep_tmx and _is_tmx_code(t) and str(t.attrs.get("i", "")).isdigit()]
    next_i = max(used_i, default=0)
    i_of_pair: dict[str, int] = {}
    out: list[str] = []
    for ch in tt.text:
        n = tag_number(ch)
        if n is None:
            out.append(_xml_escape(_clean(ch)))
            continue
        t = by_n.get(n)
        if t is None:
            continue
        if is_private_use_tag(t):  # text of the file, not markup
            out.append(t.original)
            continue
        if keep_tmx and _is_tmx_code(t):
            out.append(t.original)
            continue
        native = _xml_escape(_clean(t.original))
        if t.kind == "open" and closes_after.get(id(t)):
            next_i += 1
            i_of_pair[t.pair] = next_i
            opens_seen.add(t.pair)
            out.append(f'<bpt i="{next_i}" x="{t.n}">{native}</bpt>')
        elif t.kind == "close" and t.pair in opens_seen:
            out.append(f'<ept i="{i_of_pair[t.pair]}">{native}</ept>')
        elif t.kind == "open":
            out.append(f'<it pos="begin" x="{t.n}">{native}</it>')
        elif t.kind == "close":
            out.append(f'<it pos="end" x="{t.n}">{native}</it>')
        else:
            out.append(f'<ph x="{t.n}">{native}</ph>')
    return "".join(out)


def tagged_to_seg(tt: TaggedText) -> etree._Element:
    """A ``<seg>`` element for ``tt``: TMX codes as they were, others wrapped."""
    seg = etree.Element("seg")
    if not tt.tags:
        seg.text = _clean(tt.plain())
        return seg
    parser = safe_parser()
    try:
        return etree.fromstring(f"<seg>{_seg_markup(tt, keep_tmx=True)}</seg>", parser)
    except etree.XMLSyntaxError:
        # e.g. a <hi> whose closing half was deleted in an edited target
        return etree.fromstring(f"<seg>{_seg_markup(tt, keep_tmx=False)}</seg>", parser)


def _meta_attrs(meta: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for k in _PLAIN_KEYS:
        if meta.get(k) not in (None, ""):
            out[k] = str(meta[k])
    for k in _DATE_KEYS:
        v = meta.get(k) or iso_to_tmx_date(meta.get(k + "_iso"))
        if v:
            out[k] = str(v)
    if meta.get("usagecount") not in (None, ""):
        out["usagecount"] = str(meta["usagecount"])
    for k, v in (meta.get("attrs") or {}).items():
        key = _XML_NS + k[4:] if k.startswith("xml:") else k
        out.setdefault(key, str(v))
    return out


def _add_notes_props(parent, meta: dict) -> None:
    for note in meta.get("notes") or ():
        etree.SubElement(parent, "note").text = _clean(str(note))
    for prop in meta.get("props") or ():
        ptype, value = (list(prop) + ["", ""])[:2]
        etree.SubElement(parent, "prop", type=str(ptype)).text = _clean(str(value))


def _indent(parent, level: int) -> None:
    """Whitespace between structural children (never inside <seg>)."""
    kids = list(parent)
    if not kids:
        return
    pad = "\n" + "  " * (level + 1)
    parent.text = pad
    for k in kids:
        k.tail = pad
        if localname(k) == "tuv":
            _indent(k, level + 1)
    kids[-1].tail = "\n" + "  " * level


def _tuv(lang: str, tt: TaggedText, meta: dict | None):
    tuv = etree.Element("tuv", {XML_LANG: lang})
    if meta:
        for k, v in _meta_attrs(meta).items():
            tuv.set(k, v)
        _add_notes_props(tuv, meta)
    tuv.append(tagged_to_seg(tt))
    return tuv


def _tu_element(unit: TMUnit, src_lang: str) -> etree._Element:
    meta = unit.meta or {}
    tu = etree.Element("tu")
    for k, v in _meta_attrs(meta).items():
        tu.set(k, v)
    tu_src = normalize_lang(meta.get("srclang") or "")
    if tu_src and tu_src != src_lang:
        tu.set("srclang", tu_src)
    _add_notes_props(tu, meta)
    tuv_meta = meta.get("tuv") or {}
    langs = list(unit.variants)
    first = next((lang for lang in langs if same_language(lang, src_lang, loose=False)), None)
    if first:
        langs.remove(first)
        langs.insert(0, first)
    for lang in langs:
        tu.append(_tuv(normalize_lang(lang), unit.variants[lang], tuv_meta.get(lang)))
    for extra in meta.get("extra_variants") or ():
        tt = TaggedText(extra.get("text", ""), tuple(Tag.from_json(d) for d in extra.get("tags") or ()))
        tu.append(_tuv(normalize_lang(extra.get("lang", "")), tt, None))
    _indent(tu, 2)
    return tu


def write_tmx(path: str | Path, units: Iterable[TMUnit], *, src_lang: str,
              creation_tool: str = "Verso", creation_tool_version: str = engine.__version__,
              adminlang: str = "en", segtype: str = "sentence", datatype: str = "plaintext",
              o_tmf: str = "Verso", header_props: Iterable[tuple[str, str]] = (),
              header_notes: Iterable[str] = ()) -> int:
    """Write ``units`` as a TMX 1.4b file (UTF-8, streamed, atomic); return how many.

    ``src_lang`` becomes the header's ``srclang`` (``*all*`` allowed); each
    unit's variant in that language is written first.
    """
    path = Path(path)
    src = src_lang if src_lang == "*all*" else normalize_lang(src_lang)
    if not src:
        raise FormatError(path, "write_tmx needs the source language (src_lang)")
    count = 0
    header = etree.Element("header", {
        "creationtool": creation_tool, "creationtoolversion": creation_tool_version,
        "segtype": segtype, "o-tmf": o_tmf, "adminlang": normalize_lang(adminlang) or "en",
        "srclang": src, "datatype": datatype, "creationdate": _now_tmx(),
    })
    _add_notes_props(header, {"notes": list(header_notes), "props": [list(p) for p in header_props]})
    _indent(header, 1)
    with atomic_write(path, "wb") as fh:
        with etree.xmlfile(fh, encoding="UTF-8") as xf:
            xf.write_declaration()
            xf.write_doctype('<!DOCTYPE tmx SYSTEM "tmx14.dtd">')
            with xf.element("tmx", version="1.4"):
                xf.write("\n  ")
                header.tail = "\n  "
                xf.write(header)
                with xf.element("body"):
                    xf.write("\n")
                    for unit in units:
                        tu = _tu_element(unit, src)
                        xf.write("    ")
                        xf.write(tu)
                        xf.write("\n")
                        count += 1
                    xf.write("  ")
                xf.write("\n")
        fh.write(b"\n")
    return count
