"""Word-level difference of two targets, tags kept whole.

A target is cut into tokens: a word (letters/digits), one whitespace or punctuation
character, or one tag character (:mod:`engine.inline`: a code is one token, never half
deleted).  :func:`diff` gives the :class:`Op` runs that turn the old token list into the new:
``equal``, ``delete`` (old text gone) and ``insert`` (new text), a replacement being a
deletion followed by an insertion, as Trados and Word show it.  difflib's SequenceMatcher
(the standard library's, no parser to hand-write) with autojunk off: a frequent space token
must still match.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

_TOKEN = re.compile(r"[\ue001-\uf8ff]|\w+|\s|[^\w\s]", re.UNICODE)


def tokens(text: str) -> list[str]:
    """``text`` as diff tokens; ``"".join(tokens(t)) == t``."""
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class Op:
    kind: str  # "equal" | "delete" | "insert"
    text: str


def diff(old: str, new: str) -> list[Op]:
    """The runs that turn ``old`` into ``new``: joining the equal and deleted texts gives ``old``,
    the equal and inserted ones ``new``."""
    a, b = tokens(old), tokens(new)
    out: list[Op] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(Op("equal", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(Op("delete", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(Op("insert", "".join(b[j1:j2])))
    return _merged(out)


def _merged(ops: list[Op]) -> list[Op]:
    """Neighbouring runs of one kind as one run."""
    out: list[Op] = []
    for op in ops:
        if out and out[-1].kind == op.kind:
            out[-1] = Op(op.kind, out[-1].text + op.text)
        else:
            out.append(op)
    return out


def old_text(ops: list[Op]) -> str:
    return "".join(o.text for o in ops if o.kind != "insert")


def new_text(ops: list[Op]) -> str:
    return "".join(o.text for o in ops if o.kind != "delete")


def changes(ops: list[Op]) -> list[tuple[int, Op]]:
    """The ops a reviewer accepts or rejects one by one: (index in ``ops``, op)."""
    return [(i, o) for i, o in enumerate(ops) if o.kind != "equal"]


def resolve(ops: list[Op], index: int, accept: bool) -> list[Op]:
    """``ops`` with the change at ``index`` accepted (a deletion drops, an insertion becomes
    plain text) or rejected (a deletion becomes plain text, an insertion drops)."""
    op = ops[index]
    if op.kind == "equal":
        raise IndexError(f"change {index} is not a change")
    keep = (op.kind == "insert") == accept
    rest = ops[:index] + ([Op("equal", op.text)] if keep else []) + ops[index + 1:]
    return _merged(rest)
