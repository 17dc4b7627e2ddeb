"""Reading CSV / TSV / OmegaT glossaries (:func:`read_tabular`), and the rows of any
table, an Excel sheet's too, as entries (:func:`_rows_to_file`).

The header rules are in :mod:`engine.glossary.formats`; the columns a header
names are found by :mod:`engine.glossary.layout`.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Iterator

from engine.errors import FormatError
from engine.formats.textutil import read_decoded
from engine.glossary.cells import OMEGAT_EXTENSIONS, _one_line, _status
from engine.glossary.layout import Layout, layout
from engine.glossary.model import GlossaryEntry, GlossaryFile
from engine.langs import normalize_lang

_YES = {"yes", "y", "true", "1", "x"}
_MULTI = re.compile(r"\s*[;|]\s*")


def _cell(row: list, i: int | None) -> str:
    if i is None or i >= len(row) or row[i] is None:
        return ""
    v = row[i]
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return _one_line(str(v))


def _rows_to_file(path: Path, rows: Iterator[tuple[str, list]], src_lang: str, tgt_lang: str) -> GlossaryFile:
    """Entries from ``rows`` ((place, cells) pairs, comments and blank rows included)."""
    lay: Layout | None = None
    entries: list[GlossaryEntry] = []
    problems: list[str] = []
    for place, row in rows:
        cells = [_cell(row, i) for i in range(len(row))]
        if not any(cells):
            continue
        if lay is None:
            if cells[0].startswith("#"):  # OmegaT's comment lines
                continue
            lay = layout(cells, src_lang, tgt_lang)
            if lay.header:
                if "source" not in lay.cols or "target" not in lay.cols:
                    raise FormatError(path, "the header names no " + ("source" if "source" not in lay.cols
                                      else "target") + " column (source/target or language codes)", place)
                continue
        if not lay.header and cells[0].startswith("#"):
            continue
        c = lay.cols
        source = _cell(cells, c.get("source"))
        target = _cell(cells, c.get("target"))
        forbidden = _cell(cells, c.get("forbidden"))
        if lay.header:
            targets = tuple(t for t in _MULTI.split(target) if t)
            forbid = tuple(t for t in _MULTI.split(forbidden) if t)
        else:
            targets, forbid = ((target,) if target else ()), ()
        if not source:
            problems.append(f"{path.name}, {place}: no source term; skipped")
            continue
        if not targets and not forbid:
            problems.append(f"{path.name}, {place}: no target term for {source!r}; skipped")
            continue
        entries.append(GlossaryEntry(
            source=source, targets=targets, src_lang=normalize_lang(src_lang) or lay.src_lang,
            tgt_lang=normalize_lang(tgt_lang) or lay.tgt_lang, pos=_cell(cells, c.get("pos")),
            note=_cell(cells, c.get("note")), forbidden=forbid,
            status=_status(_cell(cells, c.get("status"))) or "preferred", origin=path.name,
            inflect=_cell(cells, c.get("inflect")).lower() in _YES))
    if lay is None:
        raise FormatError(path, "no glossary entries (the file is empty)")
    src = normalize_lang(src_lang) or lay.src_lang
    tgt = normalize_lang(tgt_lang) or lay.tgt_lang
    return GlossaryFile(tuple(entries), src, tgt, tuple(x for x in (src, tgt) if x), tuple(problems))


def _unquote(field_: str) -> str:
    f = field_.strip()
    if len(f) >= 2 and f[0] == '"' and f[-1] == '"':
        return f[1:-1].replace('""', '"')
    return field_


def read_tabular(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Entries of a CSV / TSV / OmegaT glossary file (see the module doc)."""
    path = Path(path)
    text = read_decoded(path, "no glossary entries (the file is empty)").text
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
    delim = "\t"
    if path.suffix.lower() == ".csv" or "\t" not in first:
        counts = {d: first.count(d) for d in ("\t", ";", ",")}
        delim = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
        if path.suffix.lower() not in (".csv",) and delim != "\t" and "\t" not in first:
            delim = "\t" if path.suffix.lower() in OMEGAT_EXTENSIONS + (".tsv",) else delim

    def tab_rows() -> Iterator[tuple[str, list]]:
        for n, line in enumerate(text.splitlines(), 1):
            yield f"line {n}", [_unquote(f) for f in line.split("\t")]

    def csv_rows() -> Iterator[tuple[str, list]]:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, strict=True)
        line = 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise FormatError(path, f"not valid CSV: {e}", f"line {line}") from None
            yield f"line {line}", row
            line = reader.line_num + 1

    return _rows_to_file(path, tab_rows() if delim == "\t" else csv_rows(), src_lang, tgt_lang)
