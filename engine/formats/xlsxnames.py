"""Sheet names in Excel formulas: a renamed sheet written into the references to it."""
from __future__ import annotations

import re

from engine.errors import FormatError

_BAD_NAME = re.compile(r"[\[\]:*?/\\]")
#: a string literal, a quoted sheet name before "!", or an unquoted one (a hand-written tokenizer: no
#: maintained Python library rewrites references in Excel formulas; openpyxl's Tokenizer leaves a
#: reference such as 'My sheet'!A1 one operand token, to be split again by hand)
_REF = re.compile(r""""(?:[^"]|"")*"|'((?:[^']|'')+)'!|(?<![\w.\]'#])([^\W\d][\w.]*)!""")


def _quote(name: str) -> str:
    return "'" + name.replace("'", "''") + "'!"


def rename_refs(formula: str, names: dict[str, str]) -> str:
    """``formula`` with every reference to a sheet of ``names`` (old -> new) naming the new sheet."""
    def rep(m: re.Match) -> str:
        if m.group(1) is not None:
            old = m.group(1).replace("''", "'")
        elif m.group(2) is not None:
            old = m.group(2)
        else:
            return m.group(0)  # a string literal
        return _quote(names[old]) if old in names else m.group(0)
    return _REF.sub(rep, formula)


def check_name(path, new: str, old: str, taken: set[str]) -> None:
    """Refuse ``new`` (the translation of the sheet name ``old``) where Excel would; ``taken``: the
    other sheets' names, lower case."""
    why = ("is empty" if not new.strip() else "is longer than 31 characters" if len(new) > 31
           else "has one of [ ] : * ? / \\" if _BAD_NAME.search(new)
           else "begins or ends with an apostrophe" if new[0] == "'" or new[-1] == "'"
           else "is the name of another sheet" if new.lower() in taken else "")
    if why:
        raise FormatError(path, f"the sheet name {new!r} (translation of {old!r}) {why}: Excel refuses it")
