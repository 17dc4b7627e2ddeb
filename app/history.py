"""The document's edit history: what Ctrl+Z and Ctrl+Y undo and redo past the open editor.

Typing in the target box is undone by the box itself (Qt's own undo, character runs merged);
everything the window does to a target -- inserting a TM match or the machine suggestion,
copying the source, replacing in many segments at once -- is one **step** here, each with
every segment's target, status and origin before and after.  Undo puts the "before" of the
newest step back (a Replace all over 40 segments is one step, statuses included); redo
puts its "after" back.  Qt-free: the window applies the states.
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

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

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
