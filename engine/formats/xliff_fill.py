"""XLIFF inline codes, written: a translated :class:`~engine.inline.TaggedText` back as XML content.

:func:`fill_content` re-nests paired codes where the translation keeps them well
nested and isolates them where it does not; :func:`remap_target` numbers the
codes of a target already in the file like the source's, so that an edited
target keeps the target's own codes; :func:`target_codes` is what a writer asks
for before filling a target.
"""
from __future__ import annotations

import copy
import re
from typing import Callable

from lxml import etree

from engine.formats.xliff_codes import Code, Extracted, Role
from engine.formats.xliff_load import localname
from engine.formats.xliff_space import edges
from engine.inline import TAG_BASE, Tag, TaggedText, is_private_use_tag

# ------------------------------------------------------------ writing codes
IsolateFn = Callable[[object, Role, bool], "etree._Element | None"]
TextFn = Callable[[object, str], None]


# a tag's placeholder (the range of engine.inline.tag_number), captured so that split keeps it
_TAG_SPLIT = re.compile("([\ue001-\uf8ff])")


def _tokens(tt: TaggedText) -> list[str | int]:
    """The text runs and tag numbers of ``tt`` in order (split in C: a loop over the characters
    in Python was a tenth of a 10,000-segment edited export)."""
    out: list[str | int] = []
    for i, part in enumerate(_TAG_SPLIT.split(tt.text)):
        if i & 1:
            out.append(ord(part) - TAG_BASE)
        elif part:
            out.append(part)
    return out


def append_text(parent, s: str) -> None:
    """Append text after the last child of ``parent`` (or as its text)."""
    if not s:
        return
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + s
    else:
        parent.text = (parent.text or "") + s


def clear_content(el) -> None:
    el.text = None
    for c in list(el):
        el.remove(c)


def fill_content(container, target: TaggedText, codes: dict[int, Code], *,
                 isolate: IsolateFn, add_text: TextFn = append_text) -> None:
    """Replace ``container``'s content with ``target``.

    Tag ``n`` of the target is code ``n`` of ``codes`` (the source's, or the
    file's target's where :func:`remap_target` found it there).  Standalone
    codes are copied; a wrapping pair whose two halves are well nested in the
    target is rebuilt around its content; a half that is alone or crosses
    another pair becomes what ``isolate(el, role, partner_present)`` returns
    (``None`` drops it).  A private-use character is written as text.  Other
    numbers ``codes`` does not know are dropped.
    """
    clear_content(container)
    tags = {t.n: t for t in target.tags}
    toks = _tokens(target)
    present = {t for t in toks if isinstance(t, int)}
    matched: set[int] = set()
    stack: list[int] = []  # token indexes of open halves
    for i, t in enumerate(toks):
        if isinstance(t, str) or t not in codes:
            continue
        code = codes[t]
        if code.role == "open":
            stack.append(i)
        elif code.role == "close":
            j = next((k for k in range(len(stack) - 1, -1, -1)
                      if toks[stack[k]] == code.partner), None)
            if j is not None:
                matched.update((stack[j], i))
                del stack[j:]
    cur = container
    parents: list = []
    for i, t in enumerate(toks):
        if isinstance(t, str):
            add_text(cur, t)
            continue
        code = codes.get(t)
        if code is None:
            if is_private_use_tag(tags.get(t)):  # e.g. from a TM: still just a character
                add_text(cur, tags[t].original)
            continue
        if code.role == "char":
            add_text(cur, code.text)
        elif code.role == "copy":
            new = copy.deepcopy(code.el)
            new.tail = None
            cur.append(new)
        elif i in matched and code.role == "open":
            new = cur.makeelement(code.el.tag, dict(code.el.attrib))
            cur.append(new)
            parents.append(cur)
            cur = new
        elif i in matched:  # matched close
            cur = parents.pop()
        else:
            iso = isolate(code.el, code.role, code.partner in present)
            if iso is not None:
                cur.append(iso)


def _signature(code: Code) -> tuple[str, str, str]:
    if code.role == "char":
        return ("#char", code.text, "char")
    el = code.el
    if not isinstance(getattr(el, "tag", None), str):
        return ("", "", code.role)
    ident = el.get("id") or el.get("startRef") or el.get("rid") or el.get("mid") or ""
    return (localname(el), ident, code.role)


def remap_target(src: Extracted, tgt: Extracted) -> Extracted:
    """A target read from the file, renumbered so that tag ``n`` is the
    source's code ``n``.

    Codes are matched by element name, id and role, then by identical markup
    (an ``<mrk>``, whose id may differ in a target, by name alone); the closing
    half of a wrapping element follows its opening half.  Codes only the target
    has get numbers after the source's.

    The codes returned are the target's own elements under those numbers, and
    the source's for the numbers the target lacks: what a writer needs to
    rebuild an edited target without replacing the target's ``<mrk id>`` by
    the source's or dropping a code only the target has.
    """
    if not tgt.text.tags:  # no codes in the target (most segments): nothing to renumber
        return Extracted(TaggedText(tgt.text.text, tuple(src.text.tags)), dict(src.codes))
    src_tags = {t.n: t for t in src.text.tags}
    free: dict[tuple, list[int]] = {}
    loose: dict[tuple, list[int]] = {}
    for n in sorted(src.codes):
        sig = _signature(src.codes[n])
        free.setdefault(sig, []).append(n)
        if sig[0] == "mrk" and sig[2] == "open":
            loose.setdefault(sig[0], []).append(n)
    by_original: dict[str, list[int]] = {}
    for t in src.text.tags:
        if src.codes.get(t.n) is None or src.codes[t.n].role == "copy":
            by_original.setdefault(t.original, []).append(t.n)
    used: set[int] = set()
    mapping: dict[int, int] = {}
    extra: list[Tag] = []
    next_n = max(src_tags, default=0) + 1
    for t in sorted(tgt.text.tags, key=lambda t: t.n):
        code = tgt.codes.get(t.n)
        if code is not None and code.role == "close" and code.partner in mapping:
            opener = src.codes.get(mapping[code.partner])
            cand = [opener.partner] if opener is not None and opener.role == "open" else []
        elif code is not None and code.role != "copy":
            sig = _signature(code)
            cand = free.get(sig, []) + (loose.get(sig[0], []) if sig[2] == "open" else [])
        else:
            cand = (free.get(_signature(code), []) if code is not None else []) + \
                by_original.get(t.original, [])
        cand = [m for m in cand if m not in used]
        if cand:
            mapping[t.n] = cand[0]
            used.add(cand[0])
        else:
            mapping[t.n] = next_n
            extra.append(Tag(next_n, t.kind, t.original, t.label, f"t{t.pair}" if t.pair else "",
                             dict(t.attrs)))
            next_n += 1
    moved = {TAG_BASE + tn: TAG_BASE + sn for tn, sn in mapping.items() if tn != sn}
    text = tgt.text.text.translate(moved) if moved else tgt.text.text
    codes = dict(src.codes)
    for tn, sn in mapping.items():
        code = tgt.codes.get(tn)
        if code is not None:
            partner = mapping.get(code.partner, 0) if code.role in ("open", "close") else 0
            codes[sn] = Code(code.el, code.role, partner, code.text)
    return Extracted(TaggedText(text, tuple(src.text.tags) + tuple(extra)), codes)


def target_codes(src: Extracted, source_edges: tuple[str, str], container,
                 extract: Callable[[object], Extracted]) -> tuple[dict[int, Code], tuple[str, str]]:
    """What a writer needs to rebuild the target in ``container`` (None when
    the segment has none yet): the codes by number (:func:`remap_target`) and
    the whitespace to keep around the new text (:func:`keep_edges`) -- the
    existing target's when it has content, else the source's
    (``source_edges``)."""
    if container is not None:
        tgt = extract(container)
        if tgt.text.text.strip():
            return remap_target(src, tgt).codes, edges(tgt.text)
    return src.codes, source_edges
