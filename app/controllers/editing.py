"""Editing, undo and segment status: what goes into the target (the source, the next tag, an
insertion as one undo step), Ctrl+Z in the segment and the document steps of the Edit menu
(``app/undo.py``, ``app/history.py``), confirming (project + TM, tag errors asked about),
auto-propagation to identical segments, and locking (``self.locking``: app/controllers/locking.py),
which every change of the target here asks first."""
from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from engine.errors import VersoError
from engine.inline import accepted
from engine.qa import tag_issues

from app import undo as undoing
from app.controllers.base import Controller
from app.controllers.locking import LockingController
from app.controllers.splitjoin import SplitJoinController
from app.history import EditHistory
from app.preferences import ProjectSettings, preferences
from app.statewrite import tm_meta


class EditingController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.history = EditHistory()   # document steps: Edit ▸ Undo Replace all (app/history.py)
        self.seg_states = undoing.SegmentStates()  # what Ctrl+Z in the box returns to (app/undo.py)
        self.act_doc_propagate: QAction | None = None
        self.locking = LockingController(win)
        self.splitjoin = SplitJoinController(win)   # Split Segment, Join with Next (splitjoin.py)

    def fill_menu(self, name: str, menu) -> None:
        if name != "propagate":
            super().fill_menu(name, menu)
        self.act_doc_propagate = QAction("Auto-propagate in This &Document", self.win)
        self.act_doc_propagate.setCheckable(True)
        self.act_doc_propagate.setChecked(True)
        self.act_doc_propagate.toggled.connect(self._set_doc_propagation)
        menu.addAction(self.act_doc_propagate)

    def document_shown(self) -> None:
        """A document is in the grid: the steps of the last one go, its propagation switch shows."""
        self.history.clear()  # steps name segments of the document they were made in
        undoing.steps_changed(self.win)  # the Edit menu names no step of another document
        self._sync_doc_propagation()

    # --------------------------------------------------------- insertions
    def put_in_editor(self, text: str, *, origin: str, score: float | None) -> None:
        """Replace the target: one step of the box's own undo, apart from the typing around it."""
        if self.win.model is None or self.locking.refuse(self.win.current_row()):
            return
        undoing.put_in_editor(self.win, text, origin=origin, score=score)

    def copy_source(self) -> None:
        if self.win.model is None:
            return
        seg = self.win.model.segment(self.win.current_row())
        self.put_in_editor(seg.source.text, origin="human", score=None)

    def insert_next_tag(self) -> None:
        ed = self.win.editor()
        if ed is not None and self.locking.refuse(self.win.current_row()):
            return
        if ed is not None and not ed.insert_next_tag():
            self.say("Every tag of the source is already in the target.", 3000)

    # --------------------------------------------------------- undo
    def undo(self) -> None:
        """Ctrl+Z: the current segment's own edits (typing, insertions), never another segment's."""
        if not self.locking.refuse(self.win.current_row()):
            undoing.undo_in_segment(self.win)

    def redo(self) -> None:
        if not self.locking.refuse(self.win.current_row()):
            undoing.undo_in_segment(self.win, redo=True)

    def undo_step(self, redo: bool = False) -> None:
        """Edit ▸ Undo/Redo Replace all: the newest document step, by name."""
        undoing.undo_step(self.win, redo)

    # --------------------------------------------------------- confirm
    def confirm_and_next(self) -> None:
        """Ctrl+Enter: save what is typed, confirm (project + writable TM), go to the next unconfirmed."""
        win, nav = self.win, self.win.nav
        model = win.model
        if model is None:
            return
        row = win.current_row()
        if self.locking.refuse(row):
            return
        typed = nav.typed_text(row)
        if typed is None:
            nav.commit_editor()  # an editor elsewhere (or none): save it as before
        else:
            nav.autosave_timer.stop()  # what is typed is confirmed below, in the same single write
        target = model.confirm_target(row, typed)
        if not target.plain().strip() and not target.tag_count:
            if typed is not None:
                nav.commit_editor()  # keep the (empty) edit as a draft, as before
            self.say(f"Segment {row + 1} has no translation to confirm.", 4000)
            return
        source = model.segment(row).source
        tag_errors = tag_issues(0, row, source, target)
        if tag_errors and not self._confirm_despite_tag_errors(row, tag_errors):
            if typed is not None:
                nav.commit_editor()  # what was typed stays, as a draft
            return
        to_tm = None if tag_errors else tm_meta(win)
        entered = model.segment(row)
        was = self.seg_states.entered if self.seg_states.segment_id == entered.id else None
        if was is not None and not (was.status == "confirmed" and was.text != target.text):
            was = None  # only a confirmed translation corrected replaces its TM unit
        replaces = None
        if was is not None and to_tm is not None:  # the TM holds a reviewed target with its changes accepted
            old = self.seg_states.entered_target
            replaces = entered.source.with_text(accepted(old).text if old is not None else was.text)
        try:
            seg = model.confirm(row, typed, tm_meta=to_tm, tm_replaces=replaces)  # the TM write is owed
        except VersoError as e:
            QMessageBox.critical(win, "Verso", str(e))
            return
        self.seg_states.enter(seg, force=True)
        if tag_errors:
            # Confirmed as the translator chose, but a target with broken tags never goes to the
            # TM: it would come back as a 100 % match and break the next file too.
            self.say(f"Segment {row + 1} confirmed with tag errors; it was not added to the TM.", 6000)
        elif to_tm is not None:
            project = win.project
            written = (lambda sid=seg.id: project.tm_written([sid]))
            if replaces is not None:
                # a confirmed translation corrected: its TM unit takes the new target (no second unit)
                win.tm.replace(seg.source, replaces, accepted(seg.target), to_tm, on_written=written)
            else:
                win.tm.add(seg.source, accepted(seg.target), to_tm, on_written=written)
        propagated = self._propagate(row) if self.propagation_on() else 0
        # (the confirmed row was refitted by the grid when the model reported the change)
        nxt = model.next_unconfirmed(row)
        if propagated:
            self.say(f"Propagated to {propagated} identical segment(s) as drafts.")
        if nxt is None:
            self.say("All segments are confirmed.")
            nav.go_to(row, edit=False)
        else:
            nav.go_to(nxt)

    def _confirm_despite_tag_errors(self, row: int, issues) -> bool:
        """Ask whether to confirm a target with tag errors; with the setting *Refuse to confirm
        a segment with tag errors* the answer is always no."""
        lines = "\n".join(f"• {i.message}" for i in issues)
        if preferences().refuse_tag_errors:
            QMessageBox.warning(self.win, "Tag errors", f"Segment {row + 1} is not confirmed: its tags are wrong."
                                f"\n\n{lines}\n\nFix them (F9 inserts a missing tag).")
            return False
        answer = QMessageBox.question(
            self.win, "Tag errors", f"Segment {row + 1} has tag errors:\n\n{lines}\n\nConfirm it anyway? It will "
            "not be added to the TM, and the export will refuse the document until the tags are fixed.",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        return answer == QMessageBox.Yes

    # --------------------------------------------------------- propagation
    def propagation_on(self) -> bool:
        """Auto-propagation: on in Settings (all documents) and not switched off for this document."""
        win = self.win
        if not preferences().propagate or win.project is None or win.model is None:
            return False
        return ProjectSettings(win.project).propagate(win.model.document_id)

    def _set_doc_propagation(self, on: bool) -> None:
        if self.win.project is not None and self.win.model is not None:
            ProjectSettings(self.win.project).set_propagate(self.win.model.document_id, on)

    def _sync_doc_propagation(self) -> None:
        win = self.win
        if win.project is None or win.model is None or self.act_doc_propagate is None:
            return
        self.act_doc_propagate.blockSignals(True)
        self.act_doc_propagate.setChecked(ProjectSettings(win.project).propagate(win.model.document_id))
        self.act_doc_propagate.blockSignals(False)

    def _propagate(self, row: int) -> int:
        model = self.win.model
        seg = model.segment(row)
        rows = [r for r in model.same_source_rows(row)
                if model.segment(r).status == "new" or not model.segment(r).target.text.strip()]
        model.set_targets(rows, seg.target, origin="tm", origin_score=1.0)  # one write for all of them
        return len(rows)
