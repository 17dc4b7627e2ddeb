"""What the software-string and subtitle formats share: units found at a place in the decoded
text, read as segments, written back by splicing.

A format's parser returns a :class:`Parsed`: the decoded file and its :class:`Unit` s, each
with its key, its value as the program sees it (escapes undone) and the span of the value's
*written* form in the decoded text.  Reading turns each unit with a non-empty value into a
segment (placeholders protected, :mod:`engine.formats.placeholders`).  Writing re-parses the
original, and for each translated unit whose text differs from the file's replaces that span
with the translation escaped by the format's rules (:meth:`StringsFormat.escape`); every other
character -- comments, order, quoting, white space, line ends, encoding, BOM -- is copied, so
an export without translations is the same file byte for byte.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import FormatError
from engine.formats import htmlsub, precount, textutil
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.placeholders import protect_software, protect_target
from engine.formats.textutil import Decoded, codes_checked, render
from engine.fsutil import atomic_write
from engine.inline import TaggedText, merge_tags, tag_number

#: ``json.dumps(obj, ensure_ascii=False)`` with one encoder
key_json = json.JSONEncoder(ensure_ascii=False).encode


@dataclass
class Unit:
    """One translatable string: ``value`` unescaped, ``start``/``end`` the span of its written
    form in the decoded text (what a translation replaces); ``target``: a translation the file
    already holds (bilingual formats), ``line``: 1-based, for messages."""

    key: str
    value: str
    start: int
    end: int
    line: int = 0
    note: str = ""
    context: str = ""
    target: str | None = None
    meta: dict = field(default_factory=dict)


@dataclass
class Parsed:
    decoded: Decoded
    units: list[Unit]
    problems: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


def read_text(path: Path, empty_message: str, encoding: str | None = None) -> Decoded:
    """The decoded text of ``path`` (a BOM wins, then ``encoding``, then UTF-8), refused when over
    the document size limit, with a line over the line limit, undecodable or empty."""
    textutil.check_lines(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    dec = textutil.decode_bytes(path, raw, encoding)
    if not dec.text.strip():
        raise FormatError(path, empty_message)
    return dec


def line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def unique_keys(units: list[Unit], problems: list[str]) -> None:
    """A key met again gets ``#2``, ``#3``... (and a problem naming its line)."""
    seen: dict[str, int] = {}
    for u in units:
        n = seen[u.key] = seen.get(u.key, 0) + 1
        if n > 1:
            problems.append(f"line {u.line}: duplicate key {u.context or u.key!r} (kept as a separate segment)")
            u.key = f"{u.key}#{n}"


class StringsFormat:
    """Reader/writer base: a subclass sets ``name``/``extensions`` and implements :meth:`sniff`,
    :meth:`parse` and :meth:`escape`."""

    name = ""
    extensions: tuple[str, ...] = ()
    markup = True  # HTML tags in values are codes
    #: what finds one string in the raw bytes, counted before parsing (:mod:`engine.formats.precount`)
    UNITS: bytes | re.Pattern | None = None

    def sniff(self, path: Path, head: bytes) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def parse(self, path: Path) -> Parsed:  # pragma: no cover - abstract
        raise NotImplementedError

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:  # pragma: no cover - abstract
        """``value`` written as the file writes the unit's string (quotes and escapes)."""
        raise NotImplementedError

    def written(self, target: TaggedText, source: TaggedText, unit: Unit, parsed: Parsed) -> str | None:
        """What replaces the unit's span for ``target``; None when it says what the file says."""
        new = render(target, source)
        if not new or new == (unit.target if unit.target is not None else unit.value):
            return None
        return self.escape(new, unit, parsed)

    def escape_pieces(self, target: TaggedText, source: TaggedText, escape_text) -> str:
        """``target`` written with ``escape_text`` applied to its text and each code's original
        markup as it was (markup formats: a code is already written XML)."""
        tags = {t.n: t for t in merge_tags(target.tags, source.tags)}
        out, run = [], []
        for ch in target.text:
            t = tags.get(tag_number(ch) or -1)
            if t is None:
                run.append(ch)
                continue
            out += [escape_text("".join(run)), t.original]
            run = []
        out.append(escape_text("".join(run)))
        return "".join(out)

    def encode(self, parsed: Parsed, text: str, path: Path) -> bytes:
        try:
            return parsed.decoded.encode(text)
        except UnicodeEncodeError as e:
            raise FormatError(path, f"the translation holds {text[e.start:e.end]!r}, which the file's "
                                    f"encoding {parsed.decoded.encoding} cannot hold") from None

    def html_translations(self, translations: dict[str, Translation], by_key: dict[str, Unit]):
        """``translations`` less those of sentences of HTML values (:mod:`engine.formats.htmlsub`), and
        those by string key, then sentence key."""
        rest: dict[str, Translation] = {}
        in_html: dict[str, dict[str, Translation]] = {}
        for k, tr in translations.items():
            split = None if k in by_key or not self.markup else htmlsub.split_key(k)
            if split and split[0] in by_key and self.html_value(by_key[split[0]]):
                in_html.setdefault(split[0], {})[split[1]] = tr
            else:
                rest[k] = tr
        return rest, in_html

    def html_edits(self, in_html: dict[str, dict[str, Translation]], by_key: dict[str, Unit], parsed: Parsed,
                   path: Path, lang: str) -> list[tuple[int, int, str]]:
        """The edits of the HTML values with translated sentences: each value with its sentences
        spliced in, escaped as the file writes the string; none for a value that comes out the same."""
        edits = []
        for key, trs in in_html.items():
            u = by_key[key]
            value = htmlsub.spliced(u.value, trs, lang, path, f"line {u.line}")
            if value != u.value:
                edits.append((u.start, u.end, self.escape_html(value, u, parsed)))
        return edits

    def html_as_values(self, translations: dict[str, Translation], by_key: dict[str, Unit], path: Path,
                       lang: str) -> dict[str, Translation]:
        """``translations`` with those of an HTML value's sentences made one translation of the whole
        value (its sentences spliced into the source's HTML; confirmed when they all are): for a
        bilingual format (Qt TS) whose target is written whole."""
        rest, in_html = self.html_translations(translations, by_key)
        for key, trs in in_html.items():
            u = by_key[key]
            value = htmlsub.spliced(u.value, trs, lang, path, f"line {u.line}")
            keys = [k for k, _, _ in htmlsub.sources(u.value, lang, path, f"line {u.line}")]
            draft = any(k not in trs or trs[k].status != "confirmed" for k in keys)
            rest[key] = Translation(TaggedText(value), "draft" if draft else "confirmed")
        return rest

    def html_value(self, unit: Unit) -> bool:
        """True when ``unit``'s value is an article read as HTML (:func:`htmlsub.is_html`)."""
        return self.markup and htmlsub.is_html(unit.value)

    def escape_html(self, value: str, unit: Unit, parsed: Parsed) -> str:
        """An HTML value written as the file writes the unit's string: as any value, where the HTML
        is the string's text (escaped in XML formats, quoted in JSON)."""
        return self.escape(value, unit, parsed)

    def source(self, unit: Unit, path: Path) -> TaggedText:
        with codes_checked(path, f"line {unit.line}"):
            return protect_software(unit.value, markup=self.markup)

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        if self.UNITS is not None:
            precount.refuse_over(path, precount.read_counted(path), self.UNITS, "strings")
        parsed = self.parse(path)
        doc = ParsedDocument(path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
                             meta={"encoding": parsed.decoded.encoding, "bom": bool(parsed.decoded.bom),
                                   **parsed.meta},
                             problems=parsed.problems)
        if len(parsed.units) > textutil.MAX_SEGMENTS:
            raise FormatError(path, f"{len(parsed.units):,} strings: more than the {textutil.MAX_SEGMENTS:,} "
                                    "Verso imports as one document; split it")
        for u in parsed.units:
            if not u.value.strip():
                continue
            if max(len(u.value), len(u.target or "")) > textutil.MAX_STRING_CHARS:
                raise FormatError(path, f"a string longer than {textutil.size_label(textutil.MAX_STRING_CHARS)}: "
                                        "not a message Verso translates", f"line {u.line}")
            if self.html_value(u):  # an article: its sentences, read as HTML
                doc.segments.extend(htmlsub.segments(u, src_lang, path))
                continue
            src = self.source(u, path)
            target = None
            if u.target:
                with codes_checked(path, f"line {u.line}"):
                    target = protect_target(src, u.target, markup=self.markup)
            doc.segments.append(ParsedSegment(
                key=u.key, source=src, target=target, status="confirmed" if target is not None else "new",
                note=u.note, context=u.context, meta={"line": u.line, **u.meta}))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        parsed = self.parse(original)
        by_key = {u.key: u for u in parsed.units}
        translations, in_html = self.html_translations(translations, by_key)
        unknown = [k for k in translations if k not in by_key]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for strings the file does not have "
                                        f"(first: {unknown[0]!r})")
        text = parsed.decoded.text
        edits: list[tuple[int, int, str]] = []
        for key, tr in translations.items():
            u = by_key[key]
            new = self.written(tr.target, self.source(u, original), u, parsed) if tr.target else None
            if new is not None:
                edits.append((u.start, u.end, new))
        edits += self.html_edits(in_html, by_key, parsed, original, src_lang)
        edits.sort()
        parts, pos = [], 0
        for a, b, s in edits:
            parts.append(text[pos:a])
            parts.append(s)
            pos = b
        parts.append(text[pos:])
        data = self.encode(parsed, "".join(parts), original)
        with atomic_write(out, "wb") as fh:
            fh.write(data)
