"""Bilingual CSV/TSV: one segment per row.

* Dialect: the delimiter (``,`` ``;`` tab ``|``) whose parse gives the most
  consistent number of fields (at least two); ``"`` quotes, doubled to escape.
* Header: the first row is a header when its source and target cells are
  column names (``source``/``target``/``translation``...) or language codes
  (``en``, ``de-DE``...).  Without one, column 0 is the source and column 1
  the target; a header picks the columns by name or by ``src_lang``/``tgt_lang``
  and may name a context (``context``/``key``/``id``) and a note column.
* Key ``r<n>``: the row's record number in the file (the header is ``r1``).
  Rows without source text are not segments but are kept.  Cells outside
  the source/target columns become the context when no column is named so
  (Magento packs: ``module,Magento_Catalog``) and stay in ``meta["extra"]``.
* Placeholders (``%1``, ``{0}``, HTML) are protected.

Export writes the target column of translated rows and copies every other
byte: untranslated rows, other columns, each field's quoting, line endings,
encoding and BOM.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.textutil import MAX_STRING_CHARS, Decoded, codes_checked, protect_like, protect_text, read_decoded, render
from engine.fsutil import atomic_write
from engine.langs import normalize_lang, same_language

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_DELIMITERS = (",", "\t", ";", "|")
_QUOTE = '"'

_SOURCE_NAMES = {"source", "src", "source text", "source_text", "original", "msgid", "string", "text"}
_TARGET_NAMES = {"target", "tgt", "target text", "target_text", "translation", "translated", "msgstr"}
_CONTEXT_NAMES = {"context", "key", "id", "msgctxt", "string id", "name", "resname"}
_NOTE_NAMES = {"note", "notes", "comment", "comments", "description", "developer comment"}
# ISO 639-1 codes: a header cell "de" or "pt-BR" names a language column.
_ISO639_1 = set(
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy "
    "da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu "
    "hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb "
    "lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om "
    "or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw "
    "ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu".split())
_LANG_RE = re.compile(r"^[a-z]{2}(?:[-_][a-z0-9]{2,8})*$", re.I)


@dataclass
class _Row:
    number: int        # record number in the file, from 1
    line: int          # first line of the record, from 1
    fields: list[str]
    raw: str           # the record's text as in the file, line ending included


@dataclass
class _Layout:
    delimiter: str
    header: bool
    source: int
    target: int
    context: int | None = None
    note: int | None = None


@dataclass
class _Parsed:
    decoded: Decoded
    rows: list[_Row]
    layout: _Layout
    problems: list[str]


# ------------------------------------------------------------------- reading
def _records(path: Path, text: str, delimiter: str, problems: list[str]) -> list[_Row]:
    """Parse ``text``, keeping the raw text of each record.

    Parsing is lenient (as spreadsheets are: ``"a\\"b"`` from PHP exports
    reads as text); a record that a strict parse refuses is reported in
    ``problems``, and a quoted field still open at the end of the file
    (a truncated file) is an error.
    """
    lines = _LINE.findall(text)
    consumed: list[str] = []

    def feed():
        for line in lines:
            consumed.append(line)
            yield line

    rows: list[_Row] = []
    line_no = 1
    # A quoted field may span lines: the same bound as a single string of any other reader
    # (Python's default, 128 KiB, refused real-looking files with a message of its own).
    if csv.field_size_limit() != MAX_STRING_CHARS:
        csv.field_size_limit(MAX_STRING_CHARS)
    reader = csv.reader(feed(), delimiter=delimiter, quotechar=_QUOTE, doublequote=True, strict=False)
    try:
        for n, fields in enumerate(reader, 1):
            raw = "".join(consumed)
            consumed.clear()
            if _QUOTE in raw:
                _check_strict(path, raw, delimiter, line_no, problems)
            rows.append(_Row(n, line_no, fields, raw))
            line_no += len(_LINE.findall(raw))
    except csv.Error as e:
        if "field larger than field limit" in str(e):
            raise FormatError(path, "a field longer than 1 MiB: not a document Verso translates",
                              f"line {line_no}") from None
        raise FormatError(path, f"CSV error: {e}", f"line {line_no}") from None
    return rows


def _check_strict(path: Path, raw: str, delimiter: str, line_no: int, problems: list[str]) -> None:
    try:
        list(csv.reader([raw], delimiter=delimiter, quotechar=_QUOTE, doublequote=True, strict=True))
    except csv.Error as e:
        if "unexpected end of data" in str(e):
            raise FormatError(path, "a quoted field is never closed (truncated file?)", f"line {line_no}") from None
        problems.append(f"line {line_no}: irregular quoting ({e}); read as a spreadsheet would")


def _sniff_delimiter(path: Path, text: str) -> str:
    """The delimiter that splits the first rows most consistently into >= 2 fields."""
    sample_lines = _LINE.findall(text[:65536])[:200]
    if len(text) > 65536 and len(sample_lines) > 1:
        sample_lines = sample_lines[:-1]  # the last sampled line may be cut
    sample = "".join(sample_lines)
    preferred = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    best, best_score = preferred, -1.0
    for d in sorted(_DELIMITERS, key=lambda d: d != preferred):
        try:
            counts = [len(r) for r in csv.reader(_LINE.findall(sample), delimiter=d, quotechar=_QUOTE) if r]
        except csv.Error:
            continue
        if not counts:
            continue
        mode = max(set(counts), key=counts.count)
        if mode < 2:
            continue
        score = counts.count(mode) / len(counts)
        if score > best_score + 1e-9:
            best, best_score = d, score
    return best


def _is_lang(cell: str) -> bool:
    c = cell.strip()
    return bool(_LANG_RE.match(c)) and c[:2].lower() in _ISO639_1


def _layout(rows: list[_Row], delimiter: str, src_lang: str, tgt_lang: str) -> _Layout:
    first = next((r for r in rows if r.fields), None)
    if first is None or first.number != 1:
        return _Layout(delimiter, False, 0, 1)
    names = [c.strip().lower() for c in first.fields]

    def find(pred) -> int | None:
        return next((i for i, c in enumerate(names) if pred(c)), None)

    langs = [i for i, c in enumerate(names) if _is_lang(c)]
    src = find(lambda c: c in _SOURCE_NAMES)
    if src is None and src_lang:
        src = find(lambda c: _is_lang(c) and same_language(c, src_lang))
    tgt = find(lambda c: c in _TARGET_NAMES)
    if tgt is None and tgt_lang:
        tgt = find(lambda c: _is_lang(c) and same_language(c, tgt_lang))
    rest = [i for i in langs if i not in (src, tgt)]
    if src is None and rest:
        src = rest.pop(0)
    if tgt is None and rest:
        tgt = rest.pop(0)
    if src is None or tgt is None or src == tgt:
        return _Layout(delimiter, False, 0, 1)
    return _Layout(delimiter, True, src, tgt,
                   find(lambda c: c in _CONTEXT_NAMES), find(lambda c: c in _NOTE_NAMES))


def _chosen_layout(rows: list[_Row], delimiter: str, columns: tuple[int, int]) -> _Layout:
    """The layout of ``columns`` (source, target; from 0) the translator chose: the first row is a
    header when its cells there are column names or language codes."""
    first = next((r for r in rows if r.fields), None)
    src, tgt = columns
    header = False
    if first is not None and first.number == 1:
        cells = [_cell(first, src).strip().lower(), _cell(first, tgt).strip().lower()]
        header = all(c in _SOURCE_NAMES | _TARGET_NAMES or _is_lang(c) for c in cells)
    names = [c.strip().lower() for c in first.fields] if header and first else []

    def find(wanted) -> int | None:
        return next((i for i, c in enumerate(names) if c in wanted and i not in columns), None)

    return _Layout(delimiter, header, src, tgt, find(_CONTEXT_NAMES), find(_NOTE_NAMES))


def ambiguity(rows: list[_Row], layout: _Layout) -> str:
    """Why the rows are no clear bilingual table read as ``layout`` ("" when they are one): without a
    header naming the columns, a third column holding text (not identifiers as a Magento pack's
    ``module,Magento_Catalog``) or a first column of identifiers beside text leave the source and
    the target to guess (quoting a strict parse refuses, as PHP's backslashes, shifts such text
    into further columns: caught the same way)."""
    if layout.header:
        return ""
    body = [r for r in rows if any(f.strip() for f in r.fields)]
    width = max((len(r.fields) for r in body), default=0)
    if width <= 2:
        return ""
    texty = [i for i in range(width) if any(" " in _cell(r, i).strip() for r in body)]
    if any(i >= 2 for i in texty):
        return f"{width} columns without a header, text in columns {', '.join(str(i + 1) for i in texty)}"
    if texty and 0 not in texty:
        return f"{width} columns without a header, and column 1 holds no text"
    return ""


def _parse(path: Path, src_lang: str, tgt_lang: str, columns: tuple[int, int] | None = None) -> _Parsed:
    dec = read_decoded(path, "the file is empty (no rows)")
    delimiter = _sniff_delimiter(path, dec.text)
    problems: list[str] = []
    rows = _records(path, dec.text, delimiter, problems)
    layout = _chosen_layout(rows, delimiter, columns) if columns else _layout(rows, delimiter, src_lang, tgt_lang)
    return _Parsed(dec, rows, layout, problems)


def parse_columns(path: str | Path | None, text: str) -> tuple[int, int]:
    """``--columns`` ``"2,3"`` (source, target; numbered from 1) as indexes from 0."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(p.isdigit() and int(p) >= 1 for p in parts) or parts[0] == parts[1]:
        raise FormatError(path, f"--columns {text!r}: give the source and target column numbers, "
                                "counted from 1 (e.g. --columns 2,3)")
    return int(parts[0]) - 1, int(parts[1]) - 1


def layout_question(path: str | Path) -> dict | None:
    """None when ``path`` reads as a clear bilingual table; else what the translator is to choose
    from: ``{"reason": ..., "columns": [first non-empty cells of each column, ...]}``."""
    path = Path(path)
    p = _parse(path, "", "")
    why = ambiguity(p.rows, p.layout)
    if not why:
        return None
    width = max((len(r.fields) for r in p.rows), default=0)
    samples = [next((_cell(r, i).strip() for r in p.rows if _cell(r, i).strip()), "") for i in range(width)]
    return {"reason": why, "columns": samples}


def _cell(row: _Row, i: int | None) -> str:
    return row.fields[i] if i is not None and i < len(row.fields) else ""


def _segment_rows(p: _Parsed):
    """(row, source cell) of each row that is a segment."""
    for row in p.rows:
        if p.layout.header and row.number == 1:
            continue
        src = _cell(row, p.layout.source)
        if src.strip():
            yield row, src


# ------------------------------------------------------------------- writing
def _raw_fields(body: str, delimiter: str) -> list[str]:
    """The fields of one record as written (quotes included), line end excluded."""
    fields: list[str] = []
    i, n = 0, len(body)
    while True:
        j = i
        if j < n and body[j] == _QUOTE:
            j += 1
            while j < n:
                if body[j] == _QUOTE:
                    if j + 1 < n and body[j + 1] == _QUOTE:
                        j += 2
                        continue
                    j += 1
                    break
                j += 1
        k = body.find(delimiter, j)
        if k < 0:
            fields.append(body[i:])
            return fields
        fields.append(body[i:k])
        i = k + 1


def _quote(value: str, delimiter: str, quoted: bool) -> str:
    if quoted or any(c in value for c in (delimiter, _QUOTE, "\r", "\n")) or value != value.strip(" "):
        return _QUOTE + value.replace(_QUOTE, _QUOTE * 2) + _QUOTE
    return value


def _rewrite(row: _Row, layout: _Layout, value: str) -> str:
    """``row`` as written in the file, with its target cell replaced by ``value``."""
    body = row.raw.rstrip("\r\n")
    ending = row.raw[len(body):]
    d = layout.delimiter
    raw = _raw_fields(body, d)
    try:
        parsed = next(csv.reader([body], delimiter=d, quotechar=_QUOTE), [])
    except csv.Error:
        parsed = None
    if len(raw) != len(row.fields) or parsed != row.fields:
        # Unusual quoting: write the whole row in the dialect's plain form.
        fields = list(row.fields) + [""] * max(0, layout.target + 1 - len(row.fields))
        fields[layout.target] = value
        return d.join(_quote(f, d, False) for f in fields) + (ending or "\n")
    src_quoted = raw[layout.source].startswith(_QUOTE) if layout.source < len(raw) else False
    while len(raw) <= layout.target:
        raw.append("")
    old = raw[layout.target]
    raw[layout.target] = _quote(value, d, old.startswith(_QUOTE) if old else src_quoted)
    return d.join(raw) + ending


# -------------------------------------------------------------------- format
class TabularFormat:
    """Reader/writer for bilingual CSV and TSV files."""

    name = "tabular"
    extensions = (".csv", ".tsv", ".tab")

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def __init__(self, columns: tuple[int, int] | None = None):
        #: source and target column (from 0) the translator chose (``--columns``); the format's name
        #: then records them, so that export writes the same column
        self.columns = columns
        if columns:
            self.name = f"tabular:{columns[0] + 1},{columns[1] + 1}"

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "",
             columns: tuple[int, int] | None = None) -> ParsedDocument:
        """Read ``path``; a table whose layout is not clear (see :func:`ambiguity`) is refused unless
        ``columns`` (source, target; from 0) say which columns to read."""
        if columns and columns != self.columns:
            return TabularFormat(columns).read(path, src_lang=src_lang, tgt_lang=tgt_lang)
        path = Path(path)
        p = _parse(path, src_lang, tgt_lang, self.columns)
        lay = p.layout
        if not self.columns:
            why = ambiguity(p.rows, lay)
            if why:
                raise FormatError(path, f"not a clear bilingual table ({why}): say which columns are the "
                                        "source and the translation, e.g. --columns 1,2")
        header = p.rows[0].fields if lay.header else []
        declared = [normalize_lang(header[i]) if header and i < len(header) and _is_lang(header[i]) else ""
                    for i in (lay.source, lay.target)]
        doc = ParsedDocument(
            path=str(path), format=self.name,
            src_lang=declared[0] or src_lang, tgt_lang=declared[1] or tgt_lang,
            meta={"encoding": p.decoded.encoding, "bom": bool(p.decoded.bom), "delimiter": lay.delimiter,
                  "header": header, "source_column": lay.source, "target_column": lay.target,
                  "declared_languages": declared},
            problems=p.problems,
        )
        named = {lay.source, lay.target, lay.context, lay.note}
        for row, src_text in _segment_rows(p):
            tgt_text = _cell(row, lay.target)
            with codes_checked(path, f"line {row.line}"):
                source = protect_text(src_text)
                target = protect_like(source, tgt_text) if tgt_text else None
            extra = [c for i, c in enumerate(row.fields) if i not in named]
            context = _cell(row, lay.context) if lay.context is not None else ", ".join(c for c in extra if c)
            doc.segments.append(ParsedSegment(
                key=f"r{row.number}", source=source, target=target,
                status="confirmed" if target is not None else "new",
                note=_cell(row, lay.note), context=context,
                meta={"row": row.number, "line": row.line, "extra": extra}))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        """Write ``original`` with ``translations`` in its target column (chosen
        as when reading: pass the same languages for a multilingual header)."""
        original = Path(original)
        p = _parse(original, src_lang, tgt_lang, self.columns)
        sources = {f"r{row.number}": (row, src) for row, src in _segment_rows(p)}
        unknown = [k for k in translations if k not in sources]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for rows the file does not have "
                                        f"(first: {unknown[0]!r})")
        out_rows = []
        for row in p.rows:
            tr = translations.get(f"r{row.number}")
            if tr is None:
                out_rows.append(row.raw)
                continue
            value = render(tr.target, protect_text(sources[f"r{row.number}"][1])) if tr.target else ""
            unchanged = value == _cell(row, p.layout.target)
            out_rows.append(row.raw if unchanged else _rewrite(row, p.layout, value))
        text = "".join(out_rows)
        try:
            data = p.decoded.encode(text)
        except UnicodeEncodeError as e:
            raise FormatError(original, f"the translation cannot be written in {p.decoded.encoding}: "
                                        f"{e.reason}") from None
        with atomic_write(out, "wb") as fh:
            fh.write(data)


FORMAT = TabularFormat()
