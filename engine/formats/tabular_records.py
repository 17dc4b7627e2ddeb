"""CSV/TSV records: the delimiter sniffed, and a lenient parse that keeps each record's
raw text (so that export copies every byte of a row it does not change).

The dialect rules are in :mod:`engine.formats.tabular`.  Python's :mod:`csv` parses;
only the raw text of each record, which it does not give, is tracked here.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats.textutil import MAX_STRING_CHARS

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_DELIMITERS = (",", "\t", ";", "|")
_QUOTE = '"'


@dataclass
class _Row:
    number: int        # record number in the file, from 1
    line: int          # first line of the record, from 1
    fields: list[str]
    raw: str           # the record's text as in the file, line ending included


def _cell(row: _Row, i: int | None) -> str:
    return row.fields[i] if i is not None and i < len(row.fields) else ""


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
