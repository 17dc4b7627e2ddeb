"""The document's edit history: the document steps the Edit menu undoes and redoes by name.

Typing and insertions (a TM match, the machine suggestion, the source) are the target box's
own undo (see :mod:`app.undo`): Ctrl+Z never reaches past the segment being edited.  What
the window does to the document -- Replace all, Replace in one segment, a pre-translation of
the document on screen -- is one **step** here, with every segment's target, status and origin
before and after.  Edit ▸ "Undo Replace all (40 segments)" puts the "before" of the newest step
back (statuses included); redo puts its "after" back.  Qt-free: the window applies the states.

**A step never writes over newer work.**  Not every change of a segment can be a step of this
stack: typing is the box's own undo, auto-propagation fills identical segments on confirm, and
the command line (``verso doc pretranslate``) or another editor of the same project writes the
store directly.  So a step is applied as a compare-and-set, segment by segment
(:func:`plan`): its undo writes a segment's "before" only where the segment is still exactly
its "after" (text, status, origin and score, as stored), its redo the "after" only where the
segment is still its "before"; every other segment is left as it is and counted, and the
window says how many it left alone.  This is how version control reverts a commit whose lines
were edited since -- the rest is applied, the conflicting part is not -- and it keeps the
stack linear and simple: nothing has to know every writer of a segment.  A split or join
step has the same rule in the store (``engine/store/splitjoin.py`` refuses a piece changed since).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence


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
    #: Ctrl+Z / Ctrl+Y in a segment reach it once the box has nothing of its own left (a
    #: pre-translation: it changes only unconfirmed segments, and its undo gives drafts back)
    from_segment: bool = False


def plan(step: Step, now: Mapping[int, TargetState], redo: bool = False
         ) -> tuple[list[tuple[int, TargetState]], list[int]]:
    """Undoing (or redoing) ``step`` over the segments' present states ``now`` (segment id ->
    state; a segment missing is gone): ``(segment id, state to write)`` for each segment still
    as the step left it, and the ids of the others, left alone (see the module doc)."""
    writes, left = [], []
    for e in step.edits:
        expected, wanted = (e.before, e.after) if redo else (e.after, e.before)
        if now.get(e.segment_id) == expected:
            writes.append((e.segment_id, wanted))
        else:
            left.append(e.segment_id)
    return writes, left


class EditHistory:
    """Undo and redo stacks of :class:`Step` (newest last); a new step clears the redo stack."""

    def __init__(self, limit: int = 500):
        self.limit = limit
        self._undo: list[Step] = []
        self._redo: list[Step] = []

    def push(self, label: str, edits: Sequence[Edit], *, from_segment: bool = False) -> None:
        edits = tuple(e for e in edits if e.before != e.after)
        if not edits:
            return
        self._undo.append(Step(label, edits, from_segment=from_segment))
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
