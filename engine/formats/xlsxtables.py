"""Excel tables (list objects): a translated header cell renames its table column.

Excel requires a table's column names (``tableColumn name`` in ``xl/tables/``) to be the text of
its header cells, and refuses (repairs) a workbook where they differ; formulas name columns in
structured references (``Sales[Product]``, ``[@Product]``, ``Sales[[#This Row],[Product]]``).  A
translated header cell renames its column in the table part and in those references: in formulas
naming the table, and in formulas on the table's own sheet (``[@Product]`` names no table).
"""
from __future__ import annotations

import re

from engine.errors import FormatError
from engine.formats.opc import rels
from engine.formats.package import Package
from engine.formats.partsplice import Splices

S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#: a string literal, or a bracketed column name (``@`` for this row); ``'`` escapes ``[ ] # '``
_COLUMN = re.compile(r""""(?:[^"]|"")*"|\[(@?)((?:'.|[^\[\]'])+)\]""")
_CELL = re.compile(r"\$?([A-Z]+)\$?(\d+)")
_FORMULAS = {"f", "formula", "formula1", "formula2", "calculatedColumnFormula", "totalsRowFormula"}


def _unescape(name: str) -> str:
    return re.sub(r"'(.)", r"\1", name)


def _escape(name: str) -> str:
    return re.sub(r"([\[\]#'])", r"'\1", name)


def rename_columns(formula: str, names: dict[str, str]) -> str:
    """``formula`` with every bracketed column of ``names`` (old -> new) naming the new column."""
    def rep(m: re.Match) -> str:
        if m.group(2) is None:
            return m.group(0)  # a string literal
        old = _unescape(m.group(2))
        return f"[{m.group(1)}{_escape(names[old])}]" if old in names else m.group(0)
    return _COLUMN.sub(rep, formula)


def _letters(n: int) -> str:
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def _number(letters: str) -> int:
    return sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(letters)))


def rename_tables(pkg: Package, sheets: list[str], trees: dict, cell_texts: dict[tuple[str, str], str],
                  changed: set[str], replaced: dict, parse, splices: Splices) -> None:
    """Rename the columns whose header cell has a new text (``cell_texts``: (sheet part, cell) -> text).
    ``trees``: the sheets' parsed parts (formulas rewritten there, ``changed`` told); ``parse``: how a
    workbook part is parsed (bounded); ``splices``: where each edit is named, to write it into the
    part's original bytes."""
    for sheet in sheets:
        for typ, part in rels(pkg, sheet).values():
            if typ != "table" or not pkg.has(part):
                continue
            tree = parse(pkg, part)
            root = tree.getroot()
            m = _CELL.match(root.get("ref", ""))
            if not m or root.get("headerRowCount") == "0":
                continue
            col, row = _number(m.group(1)), m.group(2)
            columns = root.findall(f"{{{S}}}tableColumns/{{{S}}}tableColumn")
            names: dict[str, str] = {}
            for i, tc in enumerate(columns):
                new = cell_texts.get((sheet, f"{_letters(col + i)}{row}"))
                if new is not None and new != tc.get("name"):
                    names[tc.get("name", "")] = new
            if not names:
                continue
            taken = [names.get(tc.get("name", ""), tc.get("name", "")).lower() for tc in columns]
            for old, new in names.items():
                if taken.count(new.lower()) > 1:
                    raise FormatError(pkg.path, f"the header {new!r} (translation of {old!r}) is the name of another "
                                                f"column of the table {root.get('displayName', '')!r}: Excel "
                                                "refuses two columns of one name", f"member {part!r}")
            splice = splices.of(part, tree)
            for tc in columns:
                if tc.get("name") in names:
                    splice.edit_attrs(tc)
                    tc.set("name", names[tc.get("name")])
            for el in root.iter():
                if el.tag.rsplit("}", 1)[-1] in _FORMULAS and el.text:
                    splice.edit(el)
                    el.text = rename_columns(el.text, names)
            replaced[part] = splice.data()
            table = (root.get("displayName") or root.get("name") or "").lower() + "["
            for other, stree in trees.items():
                for el in stree.getroot().iter():
                    text = el.text
                    if (el.tag.rsplit("}", 1)[-1] in _FORMULAS and text and "[" in text
                            and (table in text.lower() or other == sheet)):
                        new_text = rename_columns(text, names)
                        if new_text != text:
                            splices.of(other, stree).edit(el)
                            el.text = new_text
                            changed.add(other)
