"""Markdown (CommonMark + tables): paragraphs, headings, list items, quotes, table cells.

Parsed with markdown-it-py, which gives each block's source lines and its inline
tokens.  Export keeps the original's syntax: only the inline source of a
translated block is replaced, in place (``*`` stays ``*``, ``__`` stays ``__``,
a setext heading stays setext, a continuation line keeps its ``>`` or indent);
everything else -- code blocks, HTML blocks, front matter, link definitions,
blank lines -- is copied byte for byte.

Inline markup becomes codes: emphasis markers as pairs, ``[``/``](url)`` of a
link as a pair around its text, inline code, images, autolinks and inline HTML
as standalone codes.  Keys are ``b<block>.s<sentence>``.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.textutil import read_decoded, renumber
from engine.fsutil import atomic_write
from engine.inline import TaggedText, TaggedTextBuilder, tag_number
from engine.segmentation import segment_text


def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


def _line_offsets(text: str) -> list[int]:
    offs = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            offs.append(i + 1)
    return offs


def _closing(raw: str, i: int, open_ch: str, close_ch: str) -> int:
    """Index after the bracket closing the one at ``raw[i]`` (nesting counted), or -1."""
    depth = 0
    j = i
    while j < len(raw):
        c = raw[j]
        if c == "\\":
            j += 2
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def _inline(raw: str, children) -> TaggedText | None:
    """``raw`` (the block's inline source) with the markup of ``children`` as codes;
    None when a piece of markup cannot be found in the source."""
    b = TaggedTextBuilder()
    pos = 0
    stack: list[tuple[str, str]] = []
    seq = 0
    skip_to_link_close = False

    def find(s: str) -> int:
        k = raw.find(s, pos)
        if k < 0:
            raise LookupError(s)
        return k

    try:
        for tok in children:
            ty = tok.type
            if skip_to_link_close:
                if ty == "link_close":
                    skip_to_link_close = False
                continue
            if ty in ("text", "softbreak", "hardbreak"):
                continue
            if ty.endswith("_open") and ty != "link_open":
                k = find(tok.markup)
                b.text(raw[pos:k])
                seq += 1
                stack.append((ty[:-5], b.open(tok.markup, tok.markup, pair=f"m{seq}")))
                pos = k + len(tok.markup)
            elif ty.endswith("_close") and ty != "link_close":
                k = find(tok.markup)
                b.text(raw[pos:k])
                name = ty[:-6]
                pair = next((p for n, p in reversed(stack) if n == name), "")
                if pair:
                    stack.remove((name, pair))
                b.close(tok.markup, tok.markup, pair=pair)
                pos = k + len(tok.markup)
            elif ty == "code_inline":
                k = find(tok.markup)
                end = raw.find(tok.markup, k + len(tok.markup) + len(tok.content.strip()) - 1)
                if end < 0:
                    raise LookupError(tok.markup)
                end += len(tok.markup)
                b.text(raw[pos:k])
                b.ph(raw[k:end], "code")
                pos = end
            elif ty == "link_open" and tok.markup == "autolink":
                k = find("<")
                end = raw.index(">", k) + 1
                b.text(raw[pos:k])
                b.ph(raw[k:end], "url")
                pos = end
                skip_to_link_close = True
            elif ty == "link_open":
                k = find("[")
                b.text(raw[pos:k])
                seq += 1
                stack.append(("link", b.open("[", "link", pair=f"m{seq}")))
                pos = k + 1
            elif ty == "link_close":
                k = find("]")
                end = k + 1
                if raw[end:end + 1] == "(":
                    end = _closing(raw, end, "(", ")")
                elif raw[end:end + 1] == "[":
                    end = _closing(raw, end, "[", "]")
                if end < 0:
                    raise LookupError("]")
                b.text(raw[pos:k])
                pair = next((p for n, p in reversed(stack) if n == "link"), "")
                if pair:
                    stack.remove(("link", pair))
                b.close(raw[k:end], "link", pair=pair)
                pos = end
            elif ty == "image":
                k = find("![")
                end = _closing(raw, k + 1, "[", "]")
                if end > 0 and raw[end:end + 1] == "(":
                    end = _closing(raw, end, "(", ")")
                elif end > 0 and raw[end:end + 1] == "[":
                    end = _closing(raw, end, "[", "]")
                if end < 0:
                    raise LookupError("![")
                b.text(raw[pos:k])
                b.ph(raw[k:end], "img")
                pos = end
            elif ty == "html_inline":
                k = find(tok.content)
                b.text(raw[pos:k])
                b.ph(tok.content, "html")
                pos = k + len(tok.content)
    except (LookupError, ValueError):
        return None
    b.text(raw[pos:])
    return b.build()


class _Block:
    def __init__(self, spans: list[tuple[int, int]], text: TaggedText, lang: str, prefix: str):
        self.spans = spans      # (start, end) in the source of each line of the inline content
        self.prefix = prefix    # what starts each continuation line (container markers, indent)
        seg = segment_text(text.text, lang, text.tags)
        by_n = {t.n: t for t in text.tags}
        self.sentences = [renumber(s, by_n) for s in seg.sentences]
        self.gaps = list(seg.gaps)


def _blocks(path: Path, text: str, lang: str, problems: list[str]) -> list[_Block]:
    tokens = _parser().parse(text)
    lines = _line_offsets(text)
    line_cursor: dict[int, int] = {}
    out: list[_Block] = []
    for tok in tokens:
        if tok.type != "inline" or not tok.map or not tok.content.strip():
            continue
        first, last = tok.map
        spans = []
        li = first
        ok = True
        for cl in tok.content.split("\n"):
            found = False
            while li < max(last, first + 1) and li < len(lines):
                start = line_cursor.get(li, lines[li])
                end_of_line = (lines[li + 1] - 1) if li + 1 < len(lines) else len(text)
                k = text.find(cl, start, end_of_line) if cl else start
                if k >= 0:
                    spans.append((k, k + len(cl)))
                    line_cursor[li] = k + len(cl)
                    li += 1
                    found = True
                    break
                li += 1
            if not found:
                ok = False
                break
        if not ok:
            problems.append(f"line {first + 1}: inline text not found in the source; left untranslated")
            continue
        raw = tok.content
        tt = _inline(raw, tok.children or [])
        if tt is None:
            problems.append(f"line {first + 1}: inline markup not found in the source; left untranslated")
            continue
        if not any(c.isalnum() for c in tt.plain()):
            continue
        prefix = ""
        if len(spans) > 1:
            second_line = text.rfind("\n", 0, spans[1][0]) + 1
            prefix = text[second_line:spans[1][0]]
        out.append(_Block(spans, tt, lang, prefix))
    return out


def _render(tt: TaggedText, src: TaggedText) -> str:
    by_n = {t.n: t for t in src.tags}
    return "".join(ch if tag_number(ch) is None else (by_n[tag_number(ch)].original
                                                      if tag_number(ch) in by_n else "")
                   for ch in tt.text)


class MarkdownFormat:
    name = "markdown"
    extensions = (".md", ".markdown", ".mdown", ".mkd")

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        dec = read_decoded(path, "empty Markdown file")
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
                             meta={"encoding": dec.encoding})
        for i, blk in enumerate(_blocks(path, dec.text, src_lang, doc.problems), 1):
            for j, s in enumerate(blk.sentences, 1):
                doc.segments.append(ParsedSegment(key=f"b{i}.s{j}", source=s))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        dec = read_decoded(original, "empty Markdown file")
        text = dec.text
        known: set[str] = set()
        repl = []
        for i, blk in enumerate(_blocks(original, text, src_lang, []), 1):
            keys = [f"b{i}.s{j}" for j in range(1, len(blk.sentences) + 1)]
            known.update(keys)
            if not any(k in translations and translations[k].target.text != s.text
                       for k, s in zip(keys, blk.sentences)):
                continue
            parts = [blk.gaps[0]]
            for k, src, gap in zip(keys, blk.sentences, blk.gaps[1:]):
                tr = translations.get(k)
                parts.append(_render(tr.target if tr else src, src))
                parts.append(gap)
            new = "".join(parts).replace("\n", "\n" + blk.prefix)
            repl.append((blk.spans[0][0], blk.spans[-1][1], new))
        unknown = [k for k in translations if k not in known]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for segments the file does not have "
                                        f"(first: {unknown[0]!r})")
        for a, b, new in sorted(repl, reverse=True):
            text = text[:a] + new + text[b:]
        with atomic_write(out, "wb") as fh:
            fh.write(dec.encode(text))


FORMAT = MarkdownFormat()
