"""TMX inline codes: a ``<seg>``'s markup <-> text with protected tags.

:func:`seg_to_tagged` reads ``<bpt>/<ept>/<ph>/<it>/<ut>/<hi>`` into the tags of a
:class:`~engine.inline.TaggedText` (the rules are in :mod:`engine.formats.tmx`);
:func:`align_tags` numbers a variant's tags like the reference variant's;
:func:`tagged_to_seg` writes the tags back: a code read from TMX as it was, any
other wrapped in ``<bpt>/<ept>/<it>/<ph>``.
"""
from __future__ import annotations

import re
from pathlib import Path
from xml.sax.saxutils import escape as _xml_escape
from xml.sax.saxutils import quoteattr as _quoteattr

from lxml import etree

from engine.errors import UnsafeXMLError
from engine.formats.tmx_meta import _attr_name, _clean, _text
from engine.formats.xmlsafe import localname, safe_parser
from engine.inline import Tag, TaggedText, TaggedTextBuilder, is_private_use_tag, tag_char, tag_number

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


_TMX_ORIGINAL = re.compile(r"^<(bpt|ept|ph|it|ut|hi)[\s>/]")


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

