"""Segment ▸ Split Segment and Join with Next Segment (``engine/store/splitjoin.py``): the split
falls at the cursor placed in the source (``app/dialogs/split_segment.py``); the target is cut
at the target box's cursor when it is inside the text, else the whole target goes to the first
piece.  Join merges the current segment with the next: the pieces of a split, or the next
sentence of the same paragraph.  Each is a document step of the Edit menu ("Undo Split (segment 3)"), and Ctrl+Z in the
segment takes it back while the box has no typing of its own to undo.  Owned by the editing
controller (``win.editing.splitjoin``)."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog

from engine.errors import VersoError
from engine.store.splitjoin import SplitJoin

from app import undo as undoing
from app.controllers.base import Controller
from app.dialogs.split_segment import SplitSegmentDialog, middle


class SplitJoinController(Controller):
    # --------------------------------------------------------- actions
    def split_segment(self) -> None:
        """Split the current segment at a cursor placed in its source."""
        win, model = self.win, self.win.model
        if model is None or not model.rowCount():
            return
        row = win.current_row()
        if win.editing.locking.refuse(row):
            return
        win.nav.commit_editor()
        seg = model.segment(row)
        ed = win.editor()
        target_at = None
        if ed is not None and win.nav.typed_text(row) is not None:
            pos = ed.textCursor().position()
            target_at = pos if 0 < pos < len(seg.target.text) else None
        dlg = SplitSegmentDialog(row + 1, seg.source, middle(seg.source.text), win)
        if dlg.exec() != QDialog.Accepted:
            return
        at = dlg.position()
        if self._change(row, lambda sj: sj.split(seg.id, at, target_at)):
            self.say(f"Segment {row + 1} split in two; Ctrl+Z joins them again.", 6000)

    def join_segment(self) -> None:
        """Join the current segment with the next one (a split's pieces, or the paragraph's next sentence)."""
        win, model = self.win, self.win.model
        if model is None or not model.rowCount():
            return
        row = win.current_row()
        win.nav.commit_editor()
        seg = model.segment(row)
        if self._change(row, lambda sj: sj.join(seg.id)):
            self.say(f"Segments {row + 1} and {row + 2} joined; Ctrl+Z splits them again.", 6000)

    # --------------------------------------------------------- undo
    def apply_step(self, step, redo: bool) -> bool:
        """Undo (or redo) a split or join step of the Edit menu; False when the store refused
        (a piece changed since): the step stays where it was."""
        change = step.change
        rows = self.win.model.rows_by_id()
        now = change.before if redo else change.after
        if now[0].id not in rows:
            self.say("That step belongs to segments no longer shown.", 6000)
            return False
        row = rows[now[0].id]
        try:
            sj = SplitJoin(self.win.project)
            new = sj.redo(change) if redo else sj.undo(change)
        except VersoError as e:
            self.say(str(e), 8000)
            return False
        self._show(row, len(now), new)
        return True

    # --------------------------------------------------------- internal
    def _change(self, row: int, fn) -> bool:
        try:
            change = fn(SplitJoin(self.win.project))
        except VersoError as e:
            self.say(str(e), 8000)
            return False
        self._show(row, len(change.before), list(change.after))
        self.win.editing.history.push_change(change.label, change)
        undoing.steps_changed(self.win)
        return True

    def _show(self, row: int, removed: int, segments: list) -> None:
        """The grid's rows ``row``.. become ``segments``; the translator stays on ``row``."""
        win = self.win
        ed = win.editor()
        if ed is not None:
            win.delegate.closeEditor.emit(ed)
        win.model.restructure(row, removed, segments)
        win.proxy.pin(range(row, row + len(segments)))
        win.proxy.refilter()
        win.flow.row = None
        win.nav.go_to(row)
        win.editing.seg_states.enter(win.model.segment(row), force=True)
