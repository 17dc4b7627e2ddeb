"""Plain text: paragraphs (separated by blank lines) -> sentences -> segments.

Segment keys are ``p<paragraph>.s<sentence>``, both counted from 1.  Markup
and placeholders in the text become protected codes, and so does each
private-use character (a symbol-font bullet such as U+F0A7): it is kept, as a
code whose original is the character.  Encodings: UTF-8 with
or without BOM, UTF-16/UTF-32 with BOM; bytes that do not decode raise
:class:`~engine.errors.FormatError` with the line.

Export rebuilds the file exactly: the text between segments (blank lines,
indentation, spaces between sentences) is copied, untranslated segments keep
their source, line breaks inside a translation take the file's newline style,
and the encoding and BOM stay as they were.

Sentence breaks depend on the source language's rules, so :meth:`TxtFormat.write`
takes the ``src_lang`` the file was read with; a translation key the
re-segmented file lacks is refused rather than written to the wrong place.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats import textutil
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.textutil import Decoded, newline_style, protect_text, read_decoded, render, renumber
from engine.fsutil import atomic_write
from engine.inline import TaggedText
from engine.segmentation import Segmentation, safe_cuts, segment_text, segmenter_language

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


@dataclass
class _Paragraph:
    """One paragraph (or one piece of a very long one): its span in the
    decoded text, protected text, sentences; ``number`` the paragraph's
    number and ``first`` the number of its first sentence."""

    start: int
    end: int
    tagged: TaggedText
    seg: Segmentation
    number: int = 0
    first: int = 1

    def keys(self) -> list[str]:
        return [f"p{self.number}.s{self.first + i}" for i in range(len(self.seg.sentences))]


#: A run of non-blank lines: from the start of its first line (indentation included) to the end of its
#: last line's text (its line break excluded).  One search per paragraph: a loop over every line was
#: 0.06 s of the 0.18 s that reading 3 MB of JRC-Acquis took (benchmarks/import_speed.py).
_PARAGRAPH = re.compile(r"[^\S\r\n]*[^\s][^\r\n]*(?:(?:\r\n|\r|\n)[^\S\r\n]*[^\s][^\r\n]*)*")


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines, line break after the last excluded."""
    return [m.span() for m in _PARAGRAPH.finditer(text)]


def _parse(path: Path, src_lang: str) -> tuple[Decoded, list[_Paragraph], list[str]]:
    dec = read_decoded(path, "the file is empty (no text to translate)")
    problems: list[str] = []
    paras = []
    limit, count = textutil.MAX_SEGMENTS, 0
    spans = paragraph_spans(dec.text)
    if len(spans) > limit:  # each paragraph is a segment at least: refused before segmenting
        # (150,000 one-line paragraphs took 21 s to refuse while each was segmented first)
        a = spans[limit][0]
        raise FormatError(path, f"more than {limit:,} segments: more than Verso imports as one "
                                "document; split it", f"line {dec.text.count(chr(10), 0, a) + 1}")
    for number, (start, end) in enumerate(spans, 1):
        # A very long paragraph (a whole file on one line) is taken piece by piece,
        # cut at sentence ends or white space: its codes are numbered per piece.
        first = 1
        for a, b in _pieces(dec.text, start, end):
            tagged = protect_text(dec.text[a:b])
            para = _Paragraph(a, b, tagged, segment_text(tagged.text, src_lang, tagged.tags), number, first)
            paras.append(para)
            first += len(para.seg.sentences)
            count += len(para.seg.sentences)
            if count > limit:  # refused as soon as it is known, not after the whole file
                raise FormatError(path, f"more than {limit:,} segments: more than Verso imports as one "
                                        "document; split it", f"line {dec.text.count(chr(10), 0, a) + 1}")
    return dec, paras, problems


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    cuts = [start + c for c in safe_cuts(text[start:end])]
    return list(zip([start] + cuts, cuts + [end]))


def _plain_newlines(s: str) -> str:
    return s.replace("\r\n", "\n").replace("\r", "\n")


class TxtFormat:
    """Reader/writer for plain text files."""

    name = "txt"
    extensions = (".txt", ".text")

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        dec, paras, problems = _parse(path, src_lang)
        doc = ParsedDocument(
            path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
            meta={"encoding": dec.encoding, "bom": bool(dec.bom), "newline": newline_style(dec.text),
                  "segmentation_rules": segmenter_language(src_lang)},
            problems=problems,
        )
        for para in paras:
            by_n = {t.n: t for t in para.tagged.tags}
            for si, (key, sent) in enumerate(zip(para.keys(), para.seg.sentences), para.first):
                tt = renumber(sent, by_n)
                doc.segments.append(ParsedSegment(
                    key=key, source=tt.with_text(_plain_newlines(tt.text)),
                    meta={"paragraph": para.number, "sentence": si}))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        """Write ``original`` with ``translations``; ``src_lang``: the language
        the file was read with (it decides the sentence breaks, hence the keys)."""
        original = Path(original)
        dec, paras, _ = _parse(original, src_lang)
        nl = newline_style(dec.text)
        known = {k for p in paras for k in p.keys()}
        unknown = sorted(set(translations) - known)
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for segments the file does not have "
                                        f"(first: {unknown[0]!r}); was it read with another source language?")
        parts: list[str] = []
        pos = 0
        for para in paras:
            parts.append(dec.text[pos:para.start])
            rendered = []
            by_n = {t.n: t for t in para.tagged.tags}
            for key, sent in zip(para.keys(), para.seg.sentences):
                src = renumber(sent, by_n)
                tr = translations.get(key)
                if tr is None or not tr.target:
                    rendered.append(src.original())
                else:
                    rendered.append(_plain_newlines(render(tr.target, src)).replace("\n", nl))
            parts.append(para.seg.join(rendered))
            pos = para.end
        parts.append(dec.text[pos:])
        data = _encode(original, dec, "".join(parts))
        with atomic_write(out, "wb") as fh:
            fh.write(data)


def _encode(path: Path, dec: Decoded, text: str) -> bytes:
    try:
        return dec.encode(text)
    except UnicodeEncodeError as e:
        raise FormatError(path, f"the translation cannot be written in {dec.encoding}: {e.reason}") from None


FORMAT = TxtFormat()
