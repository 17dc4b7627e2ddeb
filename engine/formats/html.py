"""HTML and XHTML: block elements -> sentences -> segments; ``alt``/``title`` attributes.

Parsed with the standard library's :class:`html.parser.HTMLParser` (a real,
tolerant HTML tokenizer) because it reports where each token starts in the
source: export replaces only the text of the blocks and attributes that were
translated and copies every other byte of the file as it was.  lxml.html
builds a tree and writes it back re-serialised (quotes, entities, optional
tags changed), which a round trip cannot afford.

* A block is the text between block-level tags (``p``, ``li``, ``td``,
  ``h1``.., ``title``, ...); inline elements (``b``, ``a``, ``span``, ...)
  inside it become paired codes, ``br``/``img`` standalone codes, an inline
  ``code`` element one code with its content.
* ``script``, ``style``, ``pre``, ``code`` blocks, ``textarea`` and comments are never segments.
* ``alt`` and ``title`` attributes are segments of their own (key ``a<n>.<name>``);
  block keys are ``b<n>.s<sentence>``.
* The encoding is the byte order mark's, else the ``<meta charset>``'s, else UTF-8;
  export writes the same encoding (characters it cannot hold as references).
"""
from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats import html_scan, precount
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.html_scan import Block, Scanner, TooDeep
from engine.formats.textutil import check_lines, decode_bytes, renumber, text_codec
from engine.fsutil import atomic_write
from engine.inline import TAG_MAX, TaggedText, TaggedTextBuilder, tag_number
from engine.segmentation import segment_text

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
NL = b"\n"
_PUA = re.compile("[\ue001-\uf8ff]")
_SNIFF = re.compile(rb"<!doctype\s+html|<html[\s>]|<body[\s>]|<head[\s>]", re.I)
#: tags (counted as ``<``) in one document: the tokenizer keeps about 350 bytes and 22 us a tag
#: (400,000 tags: 8.8 s, 420 MiB), so a million stays near the 1 GB every document is held to
MAX_TAGS = 1_000_000

@dataclass
class _Seg:
    block: Block
    text: TaggedText
    lead: str
    tail: str
    sentences: list
    gaps: list
    start: int
    end: int


def _block_text(block: Block, lang: str) -> _Seg | None:
    items = block.items
    # codes at the block's ends stay out of it; a pair only when both ends are there
    lo, hi = 0, len(items)
    while lo < hi and items[lo][0] == "tag" and items[lo][4] in ("ph", "open") and not _text_before_close(items, lo, hi):
        lo += 1
    while hi > lo and items[hi - 1][0] == "tag" and items[hi - 1][4] in ("ph", "close") \
            and not _opened_inside(items, lo, hi - 1):
        hi -= 1
    while lo < hi and items[lo][0] == "text" and not items[lo][3].strip():
        lo += 1
    while hi > lo and items[hi - 1][0] == "text" and not items[hi - 1][3].strip():
        hi -= 1
    body = items[lo:hi]
    if not body or not any(it[0] == "text" and any(map(str.isalnum, html.unescape(it[3]))) for it in body):
        return None
    b = TaggedTextBuilder()
    stack: list[tuple[str, str]] = []
    seq = 0
    for it in body:
        if it[0] == "text":
            b.text(html.unescape(it[3]))
            continue
        _, _, _, raw, kind, name = it
        at = {"at": it[1]}
        if kind == "open":
            seq += 1
            stack.append((name, b.open(raw, name, pair=f"h{seq}", attrs=at)))
        elif kind == "close":
            k = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
            if k is None:
                b.ph(raw, "/" + name, attrs=at)
            else:
                b.close(raw, name, pair=stack.pop(k)[1], attrs=at)
        else:
            b.ph(raw, name, attrs=at)
    text = b.build()
    seg = segment_text(text.text, lang, text.tags)
    by_n = {t.n: t for t in text.tags}
    return _Seg(block, text, "", "", [renumber(s, by_n) for s in seg.sentences], list(seg.gaps),
                body[0][1], body[-1][2])


#: Codes in one piece of a block: a segment numbers at most TAG_MAX (6,399) codes, and a tag cloud
#: (one paragraph of thousands of links) has more.  Such a block is read in pieces, each cut where
#: no element is open once it holds PIECE_CODES codes, and cut anyway at TAG_MAX - 1 (a pair
#: split so is two standalone codes); export copies each piece's markup back as it was.
PIECE_CODES = 3000


def _pieces(block: Block) -> list[Block]:
    """``block``, or its pieces when it holds more codes than one segment can number."""
    items = block.items
    # an ASCII text (isascii reads a flag) holds no private-use character: not scanned (3 MB of HTML: 0.04 -> 0.006 s)
    codes = [1 if it[0] == "tag" else 0 if it[3].isascii() and "&" not in it[3]
             else len(_PUA.findall(html.unescape(it[3]) if "&" in it[3] else it[3])) for it in items]
    if sum(codes) <= PIECE_CODES:
        return [block]
    pieces: list[Block] = []
    open_names: list[str] = []
    cur: list = []
    n = 0
    for it, c in zip(items, codes):
        if cur and n + c > TAG_MAX - 1:
            pieces.append(Block(cur))
            cur, n, open_names = [], 0, []
        cur.append(it)
        n += c
        if it[0] == "tag":
            if it[4] == "open":
                open_names.append(it[5])
            elif it[4] == "close" and it[5] in open_names:
                del open_names[len(open_names) - 1 - open_names[::-1].index(it[5])]
        if n >= PIECE_CODES and not open_names:
            pieces.append(Block(cur))
            cur, n = [], 0
    if cur:
        pieces.append(Block(cur))
    return pieces


def _text_before_close(items, lo, hi) -> bool:
    """True when the opening code at ``lo`` closes before ``hi`` (it wraps part of the text)."""
    it = items[lo]
    if it[4] != "open":
        return False
    depth = 0
    for j in range(lo + 1, hi):
        x = items[j]
        if x[0] == "tag" and x[5] == it[5]:
            if x[4] == "open":
                depth += 1
            elif x[4] == "close":
                if depth == 0:
                    return j != hi - 1
                depth -= 1
    return False


def _opened_inside(items, lo, k) -> bool:
    it = items[k]
    if it[4] != "close":
        return False
    return any(x[0] == "tag" and x[4] == "open" and x[5] == it[5] for x in items[lo:k])


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\u00a0", "&nbsp;")


def _patched(tag, attr_repl: dict) -> str:
    """A tag's markup with the translated attribute values that fall inside it."""
    raw, at = tag.original, tag.attrs.get("at")
    if at is None:
        return raw
    for a in sorted((a for a in attr_repl if at <= a < at + len(raw)), reverse=True):
        b, new = attr_repl[a]
        raw = raw[:a - at] + new + raw[b - at:]
    return raw


def _render(tt: TaggedText, src: TaggedText, attr_repl: dict) -> str:
    by_n = {t.n: t for t in src.tags}
    out, buf = [], []
    for ch in tt.text:
        n = tag_number(ch)
        if n is None:
            buf.append(ch)
            continue
        out.append(_escape("".join(buf)))
        buf = []
        if n in by_n:
            out.append(_patched(by_n[n], attr_repl))
    out.append(_escape("".join(buf)))
    return "".join(out)


def _load(path: Path):
    raw = precount.read_counted(path)
    precount.refuse_over(path, raw, b"<", "tags", MAX_TAGS)
    check_lines(path)
    m = _CHARSET.search(raw[:4096])
    declared = m.group(1).decode("ascii", "ignore") if m else None
    if declared:
        try:
            text_codec(path, declared, f"line {raw.count(NL, 0, m.start(1)) + 1}", "meta charset")
        except FormatError as e:
            if "not a text encoding" in e.message:  # zlib, rot13: never decoded, never guessed past
                raise
            # an unknown name: read as UTF-8 below, as any wrong declaration is
    try:
        dec = decode_bytes(path, raw, declared)
    except FormatError:
        if declared is None:
            raise
        dec = decode_bytes(path, raw, None)  # a wrong declaration: the bytes are UTF-8
    return dec, scan(path, dec.text)


def html_segments(sc: Scanner, lang: str, path: Path, where: str | None = None) -> tuple[list, list]:
    """The blocks of a scanned text as ``(prefix, _Seg)`` and its attributes as ``(key, start, end)``;
    an error names ``where`` (else the line of the block)."""
    segs = []
    for block in sc.blocks:
        for piece in _pieces(block):
            try:
                s = _block_text(piece, lang)
            except ValueError as e:  # one run of text holding more private-use characters than codes
                raise FormatError(path, f"a block with more inline codes than one segment holds ({e})",
                                  where or f"line {bisect.bisect_right(sc.line_starts, piece.items[0][1])}") from None
            if s is not None:
                segs.append((f"b{len(segs) + 1}", s))
    attrs = [(f"a{i}.{name}", a, b) for i, (a, b, name) in enumerate(sc.attrs, 1)]
    return segs, attrs


def html_sources(sc: Scanner, segs: list, attrs: list) -> list[tuple[str, TaggedText, str]]:
    """``(key, source, context)`` of each sentence (``b<n>.s<j>``) and attribute (``a<n>.alt``)."""
    out = [(f"{prefix}.s{j}", sent, "") for prefix, s in segs for j, sent in enumerate(s.sentences, 1)]
    out += [(key, TaggedText(html.unescape(sc.src[a:b])), key.split(".", 1)[1]) for key, a, b in attrs]
    return out


def html_spliced(text: str, segs: list, attrs: list, translations: dict[str, Translation]) -> tuple[str, list[str]]:
    """``text`` with the translated sentences and attributes in place, and the keys of
    ``translations`` it does not have.  A block is rewritten only when one of its sentences changed."""
    known = {k for k, _, _ in attrs}
    attr_repl: dict[int, tuple[int, str]] = {}
    for key, a, b in attrs:
        tr = translations.get(key)
        if tr is not None and tr.target.plain() != html.unescape(text[a:b]):
            attr_repl[a] = (b, html.escape(tr.target.plain(), quote=True))
    repl: list[tuple[int, int, str]] = []
    for prefix, s in segs:
        keys = [f"{prefix}.s{j}" for j in range(1, len(s.sentences) + 1)]
        known.update(keys)
        if not any(k in translations and translations[k].target.text != src.text
                   for k, src in zip(keys, s.sentences)):
            continue
        parts = [s.gaps[0]]
        for k, src, gap in zip(keys, s.sentences, s.gaps[1:]):
            tr = translations.get(k)
            parts.append(_render(tr.target if tr else src, src, attr_repl))
            parts.append(_escape(gap))
        repl.append((s.start, s.end, "".join(parts)))
    for a, (b, new) in attr_repl.items():
        if not any(s <= a < e for s, e, _ in repl):
            repl.append((a, b, new))
    out, pos = [], 0
    for a, b, new in sorted(repl):
        out += [text[pos:a], new]
        pos = b
    out.append(text[pos:])
    return "".join(out), [k for k in translations if k not in known]


def scan(path: Path, text: str) -> Scanner:
    """``text`` tokenized; inline elements nested too deep are refused naming the line."""
    sc = Scanner(text)
    try:
        sc.run()
    except TooDeep as e:
        raise FormatError(path, f"inline elements nested more than {html_scan.MAX_INLINE_DEPTH} deep in one "
                                "paragraph: not a page Verso translates",
                          f"line {bisect.bisect_right(sc.line_starts, e.args[0])}") from None
    return sc


class HtmlFormat:
    name = "html"
    extensions = (".html", ".htm", ".xhtml", ".xht")

    def sniff(self, path: Path, head: bytes) -> bool:
        if Path(path).suffix.lower() in self.extensions:
            return True
        return bool(_SNIFF.search(head[:1024]))

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        dec, sc = _load(path)
        segs, attrs = html_segments(sc, src_lang, path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
                             meta={"encoding": dec.encoding})
        doc.segments = [ParsedSegment(key=k, source=src, context=ctx) for k, src, ctx in html_sources(sc, segs, attrs)]
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        dec, sc = _load(original)
        segs, attrs = html_segments(sc, src_lang, original)
        text, unknown = html_spliced(dec.text, segs, attrs, translations)
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for segments the file does not have "
                                        f"(first: {unknown[0]!r})")
        data = dec.bom + text.encode(dec.encoding, errors="xmlcharrefreplace")
        with atomic_write(out, "wb") as fh:
            fh.write(data)


FORMAT = HtmlFormat()
