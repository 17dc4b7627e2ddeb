"""Moving between segments and the open target box: go to a row, previous / next, the next
unconfirmed; what the box holds, saving it (on every move and after a typing pause), and
entering a segment, which starts the segment flow (``app/segment_flow.py``)."""
from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

from engine.inline import revision

from app.controllers.base import Controller
from app.grid import TargetEditor
from app.segment_model import COL_TARGET

AUTOSAVE_MS = 1500
COMPLETE_MS = 400  # typing pause before the suggestion completes the typed prefix


class NavigationController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.complete_timer = QTimer(self)   # interactive translation: complete after a typing pause
        self.complete_timer.setSingleShot(True)
        self.complete_timer.setInterval(COMPLETE_MS)
        self.complete_timer.timeout.connect(lambda: win.machine.request_completion())
        win.delegate.editorCreated.connect(self._editor_created)

    # --------------------------------------------------------- moving
    def go_to(self, row: int, edit: bool = True) -> None:
        win = self.win
        if win.model is None or not win.model.rowCount():
            return
        row = max(0, min(row, win.model.rowCount() - 1))
        pidx = win.proxy.mapFromSource(win.model.index(row, COL_TARGET))
        if not pidx.isValid():  # filtered out: show everything again
            win.search.set_filter("all", clear_find=True)
            pidx = win.proxy.mapFromSource(win.model.index(row, COL_TARGET))
        win.grid.reveal(pidx)  # before the move: the move's own scrolling then has nothing to do
        win.grid.setCurrentIndex(pidx)
        win.grid.scrollTo(pidx)
        if edit:
            win.grid.edit(pidx)
        if win.flow.row != row:
            self.segment_entered(row)

    def step(self, delta: int) -> None:
        """Previous/next segment among the rows the filter shows."""
        self.commit_editor()
        proxy = self.win.proxy
        idx = self.win.grid.currentIndex()
        prow = (idx.row() if idx.isValid() else 0) + delta
        if 0 <= prow < proxy.rowCount():
            self.go_to(proxy.mapToSource(proxy.index(prow, COL_TARGET)).row())

    def go_next_unconfirmed(self) -> None:
        self.commit_editor()
        if self.win.model is not None:
            nxt = self.win.model.next_unconfirmed(self.win.current_row())
            if nxt is not None:
                self.go_to(nxt)

    def current_changed(self, cur, prev) -> None:
        """The grid's current row changed (a click, the keys of the grid itself)."""
        if cur.isValid():
            row = self.win.proxy.mapToSource(cur).row()
            if row != self.win.flow.row:
                self.segment_entered(row)

    def segment_entered(self, row: int) -> None:
        win = self.win
        if win.model is None or not (0 <= row < win.model.rowCount()):
            return
        # What the TM searches and suggestions made so far (decoded postings, results) leaves the
        # cyclic collector: a full collection walked it all with the interpreter lock held, on
        # the TM thread, 44-109 ms four or five times in 40 Ctrl+Down (benchmarks/RESULTS.md,
        # issue 46 item 1).  Acyclic garbage is still freed at once; cycles wait for the next
        # document's freeze_heap(collect=True) (app/controllers/documents.py).
        gc.freeze()
        seg = win.model.segment(row)
        win.editing.seg_states.enter(seg)
        win.shown_for.clear()
        win.delegate.set_highlight(None, ())
        if any(revision(t) for t in seg.target.tags):
            self.say(f"Segment {row + 1} holds tracked changes from another tool (struck through: deleted, "
                     "underlined: inserted). They stay as they are; editing the segment accepts them, as memoQ "
                     "and Trados do.", 8000)
        win.flow.enter(row)

    def reenter(self) -> None:
        """Fill the panels of the current row again (a TM opened, a model loaded)."""
        if self.win.model is not None:
            self.win.flow.row = None
            self.segment_entered(self.win.current_row())

    # --------------------------------------------------------- the target box
    def typed_now(self) -> str | None:
        """What the open target box holds (None when none is open)."""
        ed = self.win.editor()
        return ed.segment_text() if ed is not None else None

    def typed_text(self, row: int) -> str | None:
        """The text in the target editor open on document ``row``; None when no editor is open there."""
        win = self.win
        if win.model is None:
            return None
        pidx = win.proxy.mapFromSource(win.model.index(row, COL_TARGET))
        ed = win.grid.indexWidget(pidx) if pidx.isValid() else None
        return ed.segment_text() if isinstance(ed, TargetEditor) and ed.loaded else None

    def refresh_editor(self, row: int) -> None:
        """The box open on ``row`` shows the segment's stored target again."""
        ed = self.win.editor()
        if ed is not None and self.win.current_row() == row:
            seg = self.win.model.segment(row)
            ed.set_segment_text(seg.target.text, seg.source.tags)

    def commit_editor(self) -> None:
        self.autosave_timer.stop()
        self.win.delegate.commit_open_editor()

    def autosave(self) -> None:
        """Write what is typed to the project as a draft (also done on every move)."""
        self.win.delegate.commit_open_editor()

    def _editor_created(self, ed: TargetEditor) -> None:
        ed.textChanged.connect(self.autosave_timer.start)
        ed.textChanged.connect(self.complete_timer.start)
        ed.set_spell_checker(self.win.delivery.spell, self.win.delivery.add_to_dictionary)
        ed.menu_actions = self.win.editor_menu_actions()
