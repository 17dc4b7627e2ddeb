"""A start tag's attributes rewritten in a file's text: the splice writers' attribute edits.

:func:`attr_edits` gives the edits of one element's start tag that give it its attributes now,
keeping the bytes of those unchanged (their quotes, the spacing between them); :func:`qname`
writes a namespaced attribute's name with the prefix in scope.
"""
from __future__ import annotations

import re
from operator import itemgetter

from engine.formats.xmlspans import SpliceError, _Span

XML_NS = "http://www.w3.org/XML/1998/namespace"

_ATTR = re.compile(r"(\s+)([^\s=/>]+)(\s*=\s*)([\"'])(.*?)\4", re.S)


def qname(el, clark: str, *, strict: bool = False) -> str:
    """``prefix:local`` for a Clark-notation name in ``el``'s scope (``strict``: a namespace
    without a prefix there is a :class:`SpliceError`, else the bare local name)."""
    if not clark.startswith("{"):
        return clark
    ns, local = clark[1:].split("}", 1)
    if ns == XML_NS:
        return f"xml:{local}"
    for prefix, uri in (el.nsmap or {}).items():
        if uri == ns and prefix:
            return f"{prefix}:{local}"
    if strict:
        raise SpliceError(f"no prefix for the namespace {ns!r} of attribute {local!r}")
    return local


def _esc_attr(v: str, quote: str) -> str:
    v = (v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
         .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))
    return v.replace('"', "&quot;") if quote == '"' else v.replace("'", "&apos;")


_NEEDS_ESC = re.compile("[&<>\"\n\r\t]")
_TAG_END = re.compile(r"\s*/?>")


def _head(el, name: str, attrs) -> str | None:
    """``<name a="v" ...`` with ``attrs`` quoted as lxml writes them (None: a namespaced name
    without a prefix in scope)."""
    parts = ["<", name]
    for k, v in attrs.items():
        if k[0] == "{":
            try:
                k = qname(el, k, strict=True)
            except SpliceError:
                return None
        parts += (" ", k, '="', _esc_attr(v, '"') if _NEEDS_ESC.search(v) else v, '"')
    return "".join(parts)


def attr_edits(text: str, el, sp: _Span, before: dict) -> list[tuple[int, int, str]]:
    """The edits of ``el``'s start tag (at ``sp`` in ``text``) that give it its attributes
    now, from ``before``: changed values in their quotes, removed ones cut, new ones added.
    A start tag written as lxml writes it (double quotes, one space, no namespace declaration;
    any ``/>``) is written again from the attributes: the same bytes for those unchanged, in a
    third of the time of finding each attribute in it."""
    head = _head(el, sp.name, before)
    if head is not None and text.startswith(head, sp.start) and _TAG_END.fullmatch(
            text, sp.start + len(head), sp.stag_end):
        now = _head(el, sp.name, el.attrib)
        if now is not None:
            return [(sp.start, sp.start + len(head), now)] if now != head else []
    tag = text[sp.start:sp.stag_end]
    raw: dict[str, re.Match] = {}
    last = sp.start + 1 + len(sp.name)
    for m in _ATTR.finditer(tag, 1 + len(sp.name)):
        raw[m.group(2)] = m
        last = sp.start + m.end()
    edits = []
    added: list[str] = []
    now = dict(el.attrib)
    for name in list(before) + [n for n in now if n not in before]:
        old, new = before.get(name), now.get(name)
        if old == new:
            continue
        qn = qname(el, name, strict=True)
        m = raw.get(qn)
        if m is None and old is not None:
            raise SpliceError(f"attribute {qn!r} not found in the start tag")
        if new is None:
            edits.append((sp.start + m.start(), sp.start + m.end(), ""))
        elif m is not None:
            edits.append((sp.start + m.start(5), sp.start + m.end(5),
                          _esc_attr(new, m.group(4))))
        else:
            quote = next(iter(raw.values())).group(4) if raw else '"'
            added.append(f" {qn}={quote}{_esc_attr(new, quote)}{quote}")
    if added:
        edits.append((last, last, "".join(added)))
    if len(edits) < 2:
        return edits
    edits.sort(key=itemgetter(0, 1))  # one edit of the tag: fewer for the writer to sort and join
    parts, pos = [], edits[0][0]
    for a, b, s in edits:
        parts += (text[pos:a], s)
        pos = b
    return [(edits[0][0], pos, "".join(parts))]
