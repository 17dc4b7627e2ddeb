"""A CSV/TSV record written back with a new target cell: every other field keeps its
bytes and quoting, the record its line ending (a record of unusual quoting is written
whole in the dialect's plain form)."""
from __future__ import annotations

import csv

from engine.formats.tabular_layout import _Layout
from engine.formats.tabular_records import _QUOTE, _Row

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
