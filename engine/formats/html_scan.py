"""The HTML tokenizer of :mod:`engine.formats.html`: blocks of text and inline tags, and the
translatable attributes, each with its offsets in the source.

Parsed with the standard library's :class:`html.parser.HTMLParser` (a real, tolerant HTML
tokenizer) because it reports where each token starts in the source, which the export's
splicing needs.

Inline elements nested more than :data:`MAX_INLINE_DEPTH` deep in one block are refused while
tokenizing: a paragraph of 100,000 nested ``<span>`` (0.7 MB) took 71 s to read (issue 45), each
open code's pair looked for across the block; real pages nest inline elements a few deep.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

INLINE = {"a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "data", "dfn", "em", "font", "i", "kbd",
          "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
          "del", "ins", "label", "nobr"}
VOID_INLINE = {"br", "img", "wbr", "input"}
#: their content is never translated
OPAQUE = {"script", "style", "pre", "code", "textarea", "svg", "math", "template", "noscript"}
TRANSLATABLE_ATTRS = ("alt", "title")
_TRANSLATABLE_ATTR = re.compile(r"""\s(alt|title)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
#: inline elements open at once in one block (see the module's docstring)
MAX_INLINE_DEPTH = 100


class TooDeep(Exception):
    """Inline elements nested past :data:`MAX_INLINE_DEPTH`; ``args[0]``: the offset of the tag."""


@dataclass
class Block:
    items: list = field(default_factory=list)  # ("text", start, end, raw) / ("tag", start, end, raw, kind, name)


class Scanner(HTMLParser):
    """Collects blocks and translatable attributes with their offsets in the source."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=False)
        self.src = text
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.blocks: list[Block] = []
        self.attrs: list[tuple[int, int, str]] = []  # value span, attribute name
        self.cur = Block()
        self.opaque: list[str] = []   # names of the opaque elements we are inside
        self.opaque_start = 0
        self.events: list[tuple] = []
        self.depth = 0  # inline elements open in the current block (tokenizer's view)
        self._at = self._base = 0  # where the next token starts; where the parser's buffer starts

    def updatepos(self, i: int, j: int) -> int:
        # the tokenizer moves from i to j: kept as an offset in the source, not as the line and column
        # the base class counts (newlines counted, then mapped back: 0.03 s of reading 3 MB of HTML)
        if i < j:
            self._at = self._base + j
        return j

    def _pos(self) -> int:
        return self._at

    def flush(self) -> None:
        if any(it[0] == "text" and it[3].strip() for it in self.cur.items):
            self.blocks.append(self.cur)
        self.cur = Block()

    # the end of each event is the start of the next: record starts, resolve later; each event
    # (start, kind, tag name, tag text), no star-arguments packed and unpacked (0.01 s of 3 MB of HTML)
    def _event(self, kind: str, name: str = "", raw: str | None = None) -> None:
        self.events.append((self._pos(), kind, name, raw))

    def handle_starttag(self, tag, attrs):
        self.events.append((self._pos(), "start", tag, self.get_starttag_text()))
        if tag in INLINE:
            self.depth += 1
            if self.depth > MAX_INLINE_DEPTH:
                raise TooDeep(self._pos())
        elif tag not in VOID_INLINE:
            self.depth = 0  # a block starts: what the last one left open is closed

    def handle_startendtag(self, tag, attrs):
        self._event("startend", tag, self.get_starttag_text())

    def handle_endtag(self, tag):
        self.events.append((self._pos(), "end", tag, None))
        if tag in INLINE:
            self.depth = max(0, self.depth - 1)
        elif tag not in VOID_INLINE:
            self.depth = 0

    def handle_data(self, data):
        self.events.append((self._pos(), "text", "", None))

    def handle_entityref(self, name):
        self._event("text")

    def handle_charref(self, name):
        self._event("text")

    def handle_comment(self, data):
        self._event("other")

    def handle_decl(self, decl):
        self._event("other")

    def handle_pi(self, data):
        self._event("other")

    def unknown_decl(self, data):
        self._event("other")

    def run(self) -> None:
        self.feed(self.src)
        self._base = len(self.src) - len(self.rawdata)  # close() reads the rest from its own start
        self.close()
        evs = self.events
        evs.append((len(self.src), "eof", "", None))
        src = self.src
        for k in range(len(evs) - 1):
            start, kind, name, text = evs[k]
            end = evs[k + 1][0]
            raw = src[start:end]
            if kind == "text":
                if not self.opaque:
                    self.cur.items.append(("text", start, end, raw))
            elif kind == "start" or kind == "startend":
                name = name.lower()
                self._attrs(start, text or raw)
                if self.opaque:
                    if name == self.opaque[-1] and kind == "start":
                        self.opaque.append(name)
                    continue
                if name in OPAQUE and kind == "start":
                    self.opaque.append(name)
                    self.opaque_start = start
                    if name != "code":
                        self.flush()
                    continue
                if name in INLINE and kind == "start":
                    self.cur.items.append(("tag", start, end, raw, "open", name))
                elif name in INLINE or name in VOID_INLINE:
                    self.cur.items.append(("tag", start, end, raw, "ph", name))
                else:
                    self.flush()
            elif kind == "end":
                name = name.lower()
                if self.opaque:
                    if name == self.opaque[-1]:
                        self.opaque.pop()
                        if not self.opaque and name == "code":
                            self.cur.items.append(("tag", self.opaque_start, end,
                                                   self.src[self.opaque_start:end], "ph", "code"))
                    continue
                if name in INLINE:
                    self.cur.items.append(("tag", start, end, raw, "close", name))
                elif name not in VOID_INLINE:
                    self.flush()
            elif not self.opaque:  # a comment inside a paragraph: a code
                self.cur.items.append(("tag", start, end, raw, "ph", "!--"))
        self.flush()

    def _attrs(self, start: int, raw: str) -> None:
        if "=" not in raw:  # most tags (``<p>``, ``<b>``): the pattern's cache lookup and search were
            return          # 0.01 s of reading 3 MB of HTML with a bold word a paragraph
        for m in _TRANSLATABLE_ATTR.finditer(raw):
            g = 2 if m.group(2) is not None else 3
            if m.group(g).strip():
                self.attrs.append((start + m.start(g), start + m.end(g), m.group(1).lower()))


