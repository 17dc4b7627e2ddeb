"""The document's edit history: the document steps the Edit menu undoes and redoes by name.

Typing and insertions (a TM match, the machine suggestion, the source) are the target box's
own undo (see :mod:`app.undo`): Ctrl+Z never reaches past the segment being edited.  What
the window does to the document -- Replace all, Replace in one segment -- is one **step**
here, with every segment's target, status and origin before and after.  Edit ▸ "Undo Replace
all (40 segments)" puts the "before" of the newest step back (statuses included); redo puts
its "after" back.  Qt-free: the window applies the states.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class TargetState:
    """A segment's target as the store has it."""

    text: str
    status: str
    origin: str
    origin_score: float | None

    @classmethod
    def of(cls, seg) -> "TargetState":
        return cls(seg.target.text, seg.status, seg.origin, seg.origin_score)


@dataclass(frozen=True)
class Edit:
    segment_id: int
    before: TargetState
    after: TargetState


@dataclass(frozen=True)
class Step:
    label: str               # "Insert match 1", "Replace all", ...
    edits: tuple[Edit, ...]
    change: object = None    # a split or join (engine.store.splitjoin.Restructure) instead of edits


class EditHistory:
    """Undo and redo stacks of :class:`Step` (newest last); a new step clears the redo stack."""

    def __init__(self, limit: int = 500):
        self.limit = limit
        self._undo: list[Step] = []
        self._redo: list[Step] = []

    def push(self, label: str, edits: Sequence[Edit]) -> None:
        edits = tuple(e for e in edits if e.before != e.after)
        if not edits:
            return
        self._undo.append(Step(label, edits))
        del self._undo[:-self.limit]
        self._redo.clear()

    def push_change(self, label: str, change) -> None:
        """A split or join of segments: one step, undone by putting its rows back."""
        self._undo.append(Step(label, (), change))
        del self._undo[:-self.limit]
        self._redo.clear()

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def peek_undo(self) -> Step | None:
        """The step :meth:`undo` would return (left where it is)."""
        return self._undo[-1] if self._undo else None

    def peek_redo(self) -> Step | None:
        return self._redo[-1] if self._redo else None

    def undo(self) -> Step | None:
        """The step to undo (apply each edit's ``before``), moved to the redo stack."""
        if not self._undo:
            return None
        step = self._undo.pop()
        self._redo.append(step)
        return step

    def redo(self) -> Step | None:
        """The step to redo (apply each edit's ``after``), moved back to the undo stack."""
        if not self._redo:
            return None
        step = self._redo.pop()
        self._undo.append(step)
        return step

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()
