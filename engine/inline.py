"""Inline markup as protected placeholders.

Every inline code of a segment -- XLIFF ``<g>/<x>/<ph>/<pc>/<bx>/<ex>``, TMX
``<bpt>/<ept>/<ph>/<it>``, HTML/DocBook tags in plain text, and printf/ICU
placeholders such as ``%1``, ``%s``, ``{0}`` -- becomes **one character** of the
Unicode private use area in the segment text::

    "Click <b>Save</b> now"  ->  "Click \\ue001Save\\ue002 now"
                                  tags = (Tag(1, "open", "<b>"), Tag(2, "close", "</b>"))

Why one character: the TM scorer and the NMT tokenizer both see a tag as one
token that cannot be half-deleted, the editor shows it as one chip, and the
original markup comes back byte for byte on export because it is kept in
:class:`Tag.original`.  Tag numbers are per segment and start at 1; a target
reuses the numbers of its source's tags, so tag ``n`` in a target is the same
code as tag ``n`` in the source.

This module is pure Python and imported by formats, store, TM and app alike.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Iterable, Literal

TAG_BASE = 0xE000
TAG_MAX = 0xF8FF - TAG_BASE  # 6399 tags per segment
TagKind = Literal["open", "close", "ph"]

_TAG_CHAR_RE = re.compile("[\ue001-\uf8ff]")
#: ``json.dumps(obj, ensure_ascii=False)`` with one encoder, not one built per call
_json = json.JSONEncoder(ensure_ascii=False).encode


def tag_char(n: int) -> str:
    """The placeholder character of tag number ``n`` (1-based)."""
    if not 1 <= n <= TAG_MAX:
        raise ValueError(f"tag number out of range: {n}")
    return chr(TAG_BASE + n)


def new_tag(n: int, kind: TagKind, original: str, label: str, pair: str, attrs: dict) -> "Tag":
    """``Tag(...)``, every field given, without the frozen ``__init__``'s six ``object.__setattr__`` calls (2.7 ->
    1.2 us a Tag; a reader makes two a code, 19,000 for 3 MB of DOCX or HTML with a bold word a paragraph)."""
    t = object.__new__(Tag)
    t.__dict__.update(n=n, kind=kind, original=original, label=label, pair=pair, attrs=attrs)
    return t


def tag_number(ch: str) -> int | None:
    """Tag number of placeholder character ``ch``, or None for ordinary text."""
    o = ord(ch)
    if TAG_BASE < o <= TAG_BASE + TAG_MAX:
        return o - TAG_BASE
    return None


def is_tag_char(ch: str) -> bool:
    return tag_number(ch) is not None


#: attrs key of the code that stands for a private-use character of a file's own text
PRIVATE_USE_ATTR = "char"


def private_use_label(ch: str) -> str:
    return f"U+{ord(ch):04X}"


def is_private_use_tag(tag: "Tag | None") -> bool:
    """True for the code that stands for a private-use character of a file's text (a symbol-font
    bullet, a company glyph): its ``original`` is that one character, which writers put back as
    text, never as markup."""
    return (tag is not None and tag.kind == "ph" and len(tag.original) == 1
            and bool(_TAG_CHAR_RE.match(tag.original)))


@dataclass(frozen=True)
class Tag:
    """One inline code.

    ``n``: number within the segment (its placeholder is ``tag_char(n)``).
    ``kind``: ``open`` / ``close`` (a pair shares ``pair``) or ``ph`` (standalone).
    ``original``: the markup exactly as it stood in the file (XML of the
    element, or the raw text such as ``%1``); writers put it back.
    ``label``: short text for the chip, e.g. ``b``, ``g1``, ``%1``.
    ``pair``: id shared by an open and its close (``""`` for ``ph``).
    ``attrs``: format-specific data a writer needs (e.g. ``{"id": "1", "type": "bold"}``).
    """

    n: int
    kind: TagKind
    original: str
    label: str = ""
    pair: str = ""
    attrs: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def char(self) -> str:
        return tag_char(self.n)

    def display(self) -> str:
        """Short human form: ``<b>``, ``</b>``, ``<%1/>``."""
        lab = self.label or str(self.n)
        if self.kind == "open":
            return f"<{lab}>"
        if self.kind == "close":
            return f"</{lab}>"
        return f"<{lab}/>"

    def to_json(self) -> dict:
        d = {"n": self.n, "kind": self.kind, "original": self.original}
        if self.label:
            d["label"] = self.label
        if self.pair:
            d["pair"] = self.pair
        if self.attrs:
            d["attrs"] = self.attrs
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Tag":
        return cls(n=int(d["n"]), kind=d["kind"], original=d.get("original", ""), label=d.get("label", ""),
                   pair=d.get("pair", ""), attrs=dict(d.get("attrs") or {}))


@dataclass(frozen=True)
class TaggedText:
    """Segment text with inline codes as placeholder characters.

    ``text`` contains ``tag_char(t.n)`` for each ``t`` in ``tags`` (a target
    may omit some of its source's tags; QA reports that).
    """

    text: str
    tags: tuple[Tag, ...] = ()

    # ------------------------------------------------------------------ views
    def plain(self) -> str:
        """Text without any inline code."""
        return _TAG_CHAR_RE.sub("", self.text)

    def display(self) -> str:
        """Text with each code as a short tag such as ``<b>`` or ``<%1/>``."""
        by_n = {t.n: t for t in self.tags}

        def rep(m: re.Match) -> str:
            t = by_n.get(tag_number(m.group(0)) or -1)
            return t.display() if t else ""

        return _TAG_CHAR_RE.sub(rep, self.text)

    def original(self) -> str:
        """Text with each code's original markup (what a file writer emits)."""
        return self.render(lambda t: t.original)

    def render(self, fn) -> str:
        """Replace each placeholder by ``fn(tag)``; unknown placeholders vanish."""
        by_n = {t.n: t for t in self.tags}
        out = []
        for ch in self.text:
            n = tag_number(ch)
            if n is None:
                out.append(ch)
            else:
                t = by_n.get(n)
                if t is not None:
                    out.append(fn(t))
        return "".join(out)

    def tag_numbers(self) -> list[int]:
        """Numbers of the placeholders in text order."""
        return [n for n in (tag_number(c) for c in self.text) if n is not None]

    @property
    def tag_count(self) -> int:
        return len(self.tag_numbers())

    def __bool__(self) -> bool:  # an empty target is falsy
        return bool(self.text)

    # ---------------------------------------------------------- persistence
    def tags_json(self) -> str:
        if not self.tags:  # most segments: the encoder costs more than the row it fills
            return "[]"
        return _json([t.to_json() for t in self.tags])

    @classmethod
    def from_parts(cls, text: str, tags_json: str | None) -> "TaggedText":
        tags = tuple(Tag.from_json(d) for d in json.loads(tags_json)) if tags_json else ()
        return cls(text or "", tags)

    def with_text(self, text: str) -> "TaggedText":
        """Same tag table, new text (e.g. a target edited in the editor)."""
        return TaggedText(text, self.tags)


class TaggedTextBuilder:
    """Build a :class:`TaggedText` while walking a file's inline markup.

    >>> b = TaggedTextBuilder(); b.text("Click "); n = b.open("<b>", "b")
    >>> b.text("Save"); _ = b.close("</b>", "b", pair=n); b.build().display()
    'Click <b>Save</b>'
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._tags: list[Tag] = []
        #: called with each private-use character :meth:`text` turned into a code (a reader that
        #: numbers its codes alongside, as the XLIFF extractor does, counts it there)
        self.on_private_use = None

    def text(self, s: str | None) -> None:
        """Text of the file.  A private-use character in it (the range of Verso's placeholders)
        becomes a standalone code whose original is the character itself (see
        :func:`is_private_use_tag`): it is text -- a symbol-font bullet -- that must neither be
        taken for a tag nor lost."""
        if not s:
            return
        if s.isascii():  # no private-use character: no scan (isascii reads a flag)
            self._parts.append(s)
            return
        pos = 0
        for m in _TAG_CHAR_RE.finditer(s):
            if m.start() > pos:
                self._parts.append(s[pos:m.start()])
            ch = m.group(0)
            label = private_use_label(ch)
            self.ph(ch, label, attrs={PRIVATE_USE_ATTR: label})
            if self.on_private_use is not None:
                self.on_private_use(ch)
            pos = m.end()
        if pos < len(s):
            self._parts.append(s[pos:])

    def _add(self, kind: TagKind, original: str, label: str, pair: str, attrs: dict | None) -> int:
        n = len(self._tags) + 1
        self._tags.append(new_tag(n, kind, original, label, pair, attrs or {}))
        self._parts.append(tag_char(n))
        return n

    def open(self, original: str, label: str = "", pair: str = "", attrs: dict | None = None) -> str:
        """Add an opening code; returns its pair id (given or its number)."""
        pair = pair or str(len(self._tags) + 1)
        self._add("open", original, label, pair, attrs)
        return pair

    def close(self, original: str, label: str = "", pair: str = "", attrs: dict | None = None) -> int:
        return self._add("close", original, label, pair, attrs)

    def ph(self, original: str, label: str = "", attrs: dict | None = None) -> int:
        return self._add("ph", original, label, "", attrs)

    def build(self) -> TaggedText:
        return TaggedText("".join(self._parts), tuple(self._tags))


# ----------------------------------------------------------------- placeholders
#: Placeholders and markup protected in plain-text sources (TXT, PO, CSV, TSV).
PLACEHOLDER_PATTERNS: tuple[tuple[str, str], ...] = (
    # HTML / DocBook / XML tags: <b>, </guimenu>, <br/>, <a href="x">
    ("tag", r"</?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"),
    # XML/HTML character entities left in text: &nbsp; &amp; &#160;
    ("entity", r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});"),
    # Python %(name)s, printf %s %d %1$s %.2f, Qt/Magento %1, %L1
    ("printf", r"%(?:\([A-Za-z_]\w*\))?[-+#0]*\d*(?:\.\d+)?[sdifuxXoeEgGcr]|%\d+\$[sdif]|%L?\d+"),
    # ICU / .NET / Python format fields: {0}, {name}, {0:N2}, {{ and }} excluded
    ("brace", r"(?<!\{)\{[A-Za-z0-9_]+(?:[:,][^{}]*)?\}(?!\})"),
)
_PLACEHOLDER_RE = re.compile("|".join(f"(?P<{name}>{pat})" for name, pat in PLACEHOLDER_PATTERNS))
_TAGNAME_RE = re.compile(r"</?\s*([A-Za-z][\w:.-]*)")


def _may_hold_placeholder(text: str) -> bool:
    return "<" in text or "&" in text or "%" in text or "{" in text


def protect(text: str, *, markup: bool = True, placeholders: bool = True) -> TaggedText:
    """Turn tags and placeholders found in plain ``text`` into protected codes.

    HTML/DocBook opening and closing tags with the same name are paired
    (innermost first); a lone one becomes a standalone code.

    >>> protect("Delete %1 <b>now</b>?").display()
    'Delete <%1/> <b>now</b>?'
    """
    # every placeholder pattern starts with one of "<&%{": ``in`` rules most prose out 300 times faster
    # than the pattern's search (0.11 s for the 1.7 MB of JRC-Acquis English)
    if not (_may_hold_placeholder(text) and _PLACEHOLDER_RE.search(text)) and (
            text.isascii() or not _TAG_CHAR_RE.search(text)):  # isascii reads a flag: no scan
        return TaggedText(text)  # most strings hold no code: no builder, no second scan
    b = TaggedTextBuilder()
    stack: list[tuple[str, str]] = []  # (tag name, pair id)
    pos = 0
    pair_seq = 0
    for m in _PLACEHOLDER_RE.finditer(text):
        kind = m.lastgroup
        if kind in ("tag", "entity") and not markup:
            continue
        if kind in ("printf", "brace") and not placeholders:
            continue
        b.text(text[pos:m.start()])
        raw = m.group(0)
        if kind == "tag":
            name = (_TAGNAME_RE.match(raw).group(1)).lower()
            if raw.endswith("/>"):
                b.ph(raw, name)
            elif raw.startswith("</"):
                idx = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
                if idx is None:
                    b.ph(raw, "/" + name)
                else:
                    _, pid = stack.pop(idx)
                    b.close(raw, name, pair=pid)
            else:
                pair_seq += 1
                pid = f"p{pair_seq}"
                b.open(raw, name, pair=pid)
                stack.append((name, pid))
        else:
            b.ph(raw, raw)
        pos = m.end()
    b.text(text[pos:])
    return b.build()


#: labels the XLIFF readers give tracked changes in a target (SDL x-sdl-deleted / x-sdl-added,
#: memoQ x-mq-tc del / ins): a deletion is one opaque code holding the deleted text, an insertion
#: a pair of codes around the inserted text
REVISION_LABELS = frozenset({"deleted", "inserted"})


def revision(tag: "Tag | None") -> str:
    """``deleted`` / ``inserted`` for a tracked change's code, else ``""``."""
    if tag is not None and tag.label in REVISION_LABELS and tag.attrs.get("element") == "mrk":
        return tag.label
    return ""


def deleted_text(tag: Tag) -> str:
    """The text a tracked deletion's code holds (its markup without the elements)."""
    return re.sub(r"<[^>]*>", "", tag.original).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def accept_revisions(text: str, tags: Iterable[Tag]) -> str:
    """``text`` with its tracked changes accepted, as memoQ and Trados do when a segment
    holding them is edited: deleted text goes, inserted text stays as plain text."""
    revs = {tag_char(t.n) for t in tags if revision(t)}
    return "".join(ch for ch in text if ch not in revs) if revs else text


def accepted(tt: "TaggedText") -> "TaggedText":
    """``tt`` with its tracked changes accepted and their codes gone from its table: what a TM
    unit of a reviewed target holds (a unit with change marks matches neither the corrected
    target nor the accepted one the TM already has)."""
    if not any(revision(t) for t in tt.tags):
        return tt
    return TaggedText(accept_revisions(tt.text, tt.tags), tuple(t for t in tt.tags if not revision(t)))


def strip_tags(text: str) -> str:
    """Text with placeholder characters removed."""
    return _TAG_CHAR_RE.sub("", text)


def tag_chars_in(text: str) -> list[str]:
    return _TAG_CHAR_RE.findall(text)


def merge_tags(*tag_lists: Iterable[Tag]) -> tuple[Tag, ...]:
    """Union of tag tables by number (first wins)."""
    seen: dict[int, Tag] = {}
    for tl in tag_lists:
        for t in tl:
            seen.setdefault(t.n, t)
    return tuple(sorted(seen.values(), key=lambda t: t.n))


def from_display(display: str, tags: Iterable[Tag]) -> str:
    """Inverse of :meth:`TaggedText.display` for an edited string.

    Each short tag (``<b>``, ``</b>``, ``<%1/>``) that names a tag of ``tags``
    becomes its placeholder again; any other text, including ``<`` typed by the
    translator, stays as typed.  Each tag is used at most once.
    """
    table = {t.display(): t for t in tags}
    if not table:
        return display
    pattern = re.compile("|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)))
    used: set[int] = set()

    def rep(m: re.Match) -> str:
        t = table[m.group(0)]
        if t.n in used:
            return m.group(0)
        used.add(t.n)
        return t.char

    return pattern.sub(rep, display)
