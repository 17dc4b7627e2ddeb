"""SubRip (``.srt``) and WebVTT (``.vtt``) subtitles.

Each cue's text is cut into sentences (the source language's rules, as for plain text); the
segment keys are ``c<cue>.s<sentence>``, the cue counted from 1 in file order, and the context
is the cue's timing.  Numbers, timings, cue settings, the ``WEBVTT`` header and ``NOTE``,
``STYLE`` and ``REGION`` blocks are not text and are never rewritten.

Inside a cue, the line break between two lines of one sentence is a code (label ``br``, its
original the file's line end), so a translation keeps the cue's two-line layout unless the
translator moves or drops it; formatting tags (``<i>``, ``<b>``, ``<font color="...">``,
WebVTT's ``<v Speaker>``, ``<c.class>``, ``<00:01.500>``) and character references (``&amp;``) are
codes too, tags paired where they open and close; ``&``, ``<`` and ``>`` typed into a WebVTT
translation are written as references.  A line break typed into a translation takes the file's line-end style, and an empty
line (which would end the cue) is not written.

Export splices: only the text lines of cues with a changed sentence are replaced; an export
without translations is the same file.  Encoding: a BOM, else UTF-8, else -- subtitle tools
still write it -- Windows-1252, reported in ``problems``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats import precount, textutil
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.textutil import Decoded, codes_checked, newline_style, render
from engine.fsutil import atomic_write
from engine.inline import TaggedText, TaggedTextBuilder, merge_tags, tag_number
from engine.segmentation import segment_text

_TIME = r"(?:\d+:)?\d{1,2}:\d{2}[,.]\d{1,3}"
_TIMING = re.compile(rf"^\s*{_TIME}\s*-->\s*{_TIME}")
_LINE = re.compile(r"[^\r\n]*(?:\r*\n|\r|$)")  # "\r\r\n" is one line end (files edited on Windows twice)
_CODE = re.compile(r"</?[A-Za-z][^<>\r\n]*>|<\d[\d:.]*>|\r*\n|\r|[\ue001-\uf8ff]"
                   r"|&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#x[0-9A-Fa-f]{1,6});")
_TAGNAME = re.compile(r"</?([A-Za-z][\w-]*)")
_BLANK_LINES = re.compile(r"(?:\r\n|\r|\n)(?:[ \t]*(?:\r\n|\r|\n))+")


@dataclass
class _Cue:
    number: int        # 1-based, file order
    timing: str
    start: int         # the cue text's span in the decoded text (line end after it excluded)
    end: int
    line: int
    tagged: TaggedText = TaggedText("")
    sentences: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()

    def keys(self) -> list[str]:
        return [f"c{self.number}.s{i}" for i in range(1, len(self.sentences) + 1)]


def protect_cue(text: str) -> TaggedText:
    """Formatting tags and line breaks of a cue's text as codes."""
    if not _CODE.search(text):
        return TaggedText(text)
    b = TaggedTextBuilder()
    stack: list[tuple[str, str]] = []
    pos = seq = 0
    for m in _CODE.finditer(text):
        b.text(text[pos:m.start()])
        raw = m.group(0)
        pos = m.end()
        name_m = _TAGNAME.match(raw)
        if not raw.strip("\r\n"):
            b.ph(raw, "br")
        elif name_m is None:  # a WebVTT timestamp or character reference, a private-use character
            b.ph(raw, raw)
        elif raw.startswith("</"):
            name = name_m.group(1).lower()
            idx = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
            if idx is None:
                b.ph(raw, "/" + name)
            else:
                b.close(raw, name, pair=stack.pop(idx)[1])
        else:
            seq += 1
            name = name_m.group(1).lower()
            b.open(raw, name, pair=f"p{seq}")
            stack.append((name, f"p{seq}"))
    b.text(text[pos:])
    return b.build()


def _breaks_to_gaps(sentences, gaps, tagged: TaggedText) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A line break between two sentences belongs to neither: moved into the gap between them,
    so that a sentence ending a cue's first line has no code to keep."""
    br = {t.char for t in tagged.tags if t.label == "br"} | {" ", "\t"}
    sents, gaps = list(sentences), list(gaps)
    for i, s in enumerate(sents):
        head = len(s) - len(s.lstrip("".join(br)))
        tail = len(s) - len(s.rstrip("".join(br)))
        if head + tail >= len(s):
            continue
        gaps[i] += s[:head]
        gaps[i + 1] = s[len(s) - tail:] + gaps[i + 1]
        sents[i] = s[head:len(s) - tail]
    return tuple(sents), tuple(gaps)


def _render_escaped(target: TaggedText, source: TaggedText) -> str:
    tags = {t.n: t for t in merge_tags(target.tags, source.tags)}
    out = []
    for ch in target.text:
        t = tags.get(tag_number(ch) or -1)
        out.append(t.original if t is not None else
                   ch.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    return "".join(out)


class SubtitleFormat:
    """Reader/writer for SubRip and WebVTT files."""

    name = "subtitles"
    extensions = (".srt", ".vtt")

    def sniff(self, path: Path, head: bytes) -> bool:
        if Path(path).suffix.lower() in self.extensions:
            return True
        return head.lstrip(b"\xef\xbb\xbf").startswith(b"WEBVTT")

    def _decode(self, path: Path, problems: list[str]) -> Decoded:
        raw = precount.read_counted(path)
        precount.refuse_over(path, raw, b"-->", "cues")  # counted before the lines are split: 1 s a million
        textutil.check_lines(path)
        try:
            return textutil.decode_bytes(path, raw)
        except FormatError as e:
            if "not valid" not in e.message:
                raise
        problems.append("not valid UTF-8: read (and written back) as Windows-1252")
        return textutil.decode_bytes(path, raw, "cp1252")

    def _parse(self, path: Path, src_lang: str) -> tuple[Decoded, list[_Cue], list[str]]:
        problems: list[str] = []
        dec = self._decode(path, problems)
        text = dec.text
        cues: list[_Cue] = []
        lines = [(m.start(), m.group(0)) for m in _LINE.finditer(text) if m.group(0)]
        i, count = 0, 0
        while i < len(lines):
            start, line = lines[i]
            if not _TIMING.match(line):
                i += 1
                continue
            timing = line.strip()
            j = i + 1
            while j < len(lines) and lines[j][1].strip():
                j += 1
            if j > i + 1:
                a = lines[i + 1][0]
                last_start, last = lines[j - 1]
                b = last_start + len(last.rstrip("\r\n"))
                cue = _Cue(len(cues) + 1, timing, a, b, i + 2)
                with codes_checked(path, f"line {cue.line}"):
                    cue.tagged = protect_cue(text[a:b])
                seg = segment_text(cue.tagged.text, src_lang, cue.tagged.tags)
                cue.sentences, cue.gaps = _breaks_to_gaps(seg.sentences, seg.gaps, cue.tagged)
                count += len(cue.sentences)
                if count > textutil.MAX_SEGMENTS:
                    raise FormatError(path, f"more than {textutil.MAX_SEGMENTS:,} segments: more than Verso imports "
                                            "as one document; split it", f"line {cue.line}")
                cues.append(cue)
            else:
                cues.append(_Cue(len(cues) + 1, timing, start, start, i + 1))  # a cue without text
            i = j
        if not any(c.sentences for c in cues):
            raise FormatError(path, "no subtitle cue with text (a timing line such as "
                                    "'00:00:01,000 --> 00:00:02,500' followed by text)")
        return dec, cues, problems

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        dec, cues, problems = self._parse(path, src_lang)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
                             meta={"encoding": dec.encoding, "bom": bool(dec.bom)}, problems=problems)
        for cue in cues:
            for key, sentence in zip(cue.keys(), cue.sentences):
                doc.segments.append(ParsedSegment(
                    key=key, source=textutil.renumber(sentence, cue.tagged.tags), context=cue.timing,
                    meta={"line": cue.line, "cue": cue.number}))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        dec, cues, _ = self._parse(original, src_lang)
        known = {k for c in cues for k in c.keys()}
        unknown = [k for k in translations if k not in known]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for cues the file does not have "
                                        f"(first: {unknown[0]!r}; was it read with another source language?)")
        text = dec.text
        vtt = text.lstrip("\ufeff").startswith("WEBVTT")
        first_end = re.search(r"\r*\n|\r", text)
        nl = first_end.group(0) if first_end else newline_style(text)
        parts, pos = [], 0
        for cue in cues:
            if not any(k in translations for k in cue.keys()):
                continue
            pieces = [cue.gaps[0]]
            for key, sentence, gap in zip(cue.keys(), cue.sentences, cue.gaps[1:]):
                tr = translations.get(key)
                src = textutil.renumber(sentence, cue.tagged.tags)
                if tr is None or not tr.target:
                    new = src.original()
                elif vtt:  # "&" and "<" typed in a WebVTT translation are text, not markup
                    new = _render_escaped(tr.target, src)
                else:
                    new = render(tr.target, src)
                pieces += [new, ""]
                pieces[-1] = TaggedText(gap, cue.tagged.tags).original()
            pieces[0] = TaggedText(pieces[0], cue.tagged.tags).original()
            new_text = re.sub(r"\r\n|\r|\n", nl, _BLANK_LINES.sub(nl, "".join(pieces)))
            if new_text == text[cue.start:cue.end]:
                continue
            parts += [text[pos:cue.start], new_text]
            pos = cue.end
        parts.append(text[pos:])
        try:
            data = dec.encode("".join(parts))
        except UnicodeEncodeError as e:
            raise FormatError(original, f"a translation holds {e.object[e.start:e.end]!r}, which the file's "
                                        f"encoding {dec.encoding} cannot hold") from None
        with atomic_write(out, "wb") as fh:
            fh.write(data)


FORMAT = SubtitleFormat()
