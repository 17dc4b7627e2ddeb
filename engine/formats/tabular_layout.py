"""CSV/TSV layout: which columns are the source, the target, the context and the note.

A header is recognised by column names or language codes (:func:`_layout`), or the
translator's ``--columns`` choice is taken (:func:`_chosen_layout`, :func:`parse_columns`);
:func:`ambiguity` says why a table without a header is no clear bilingual table.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.errors import FormatError
from engine.formats.tabular_records import _cell, _Row
from engine.langs import same_language

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
class _Layout:
    delimiter: str
    header: bool
    source: int
    target: int
    context: int | None = None
    note: int | None = None


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


def parse_columns(path: str | Path | None, text: str) -> tuple[int, int]:
    """``--columns`` ``"2,3"`` (source, target; numbered from 1) as indexes from 0."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(p.isdigit() and int(p) >= 1 for p in parts) or parts[0] == parts[1]:
        raise FormatError(path, f"--columns {text!r}: give the source and target column numbers, "
                                "counted from 1 (e.g. --columns 2,3)")
    return int(parts[0]) - 1, int(parts[1]) - 1
