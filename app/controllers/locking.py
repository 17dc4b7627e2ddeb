"""Locked segments in the editor: Segment ▸ Lock/Unlock Segment (the current segment, or every
row selected) and Lock 100 % Matches, the project's locks (``engine/store/locks.py``); a locked
segment's target box is read-only and one line in the status bar says why when something tries
to change it.  Owned by the editing controller (``win.editing.locking``)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence

from engine.errors import VersoError

from app.controllers.base import Controller
from app.segment_model import COL_TARGET

#: Keys that would change a target's text (typing aside): refused in a locked segment's box.
_EDIT_KEYS = frozenset((Qt.Key_Backspace, Qt.Key_Delete, Qt.Key_Tab))


class LockingController(Controller):
    def __init__(self, win):
        super().__init__(win)
        win.delegate.editorCreated.connect(self._editor_created)

    # --------------------------------------------------------- actions
    def toggle_lock(self) -> None:
        """Lock the current segment (or the rows selected); when all of them are locked, unlock them."""
        win, model = self.win, self.win.model
        if model is None or not model.rowCount():
            return
        win.nav.commit_editor()  # what is typed is kept before the target freezes
        rows = self.selected_rows()
        lock = not all(model.segment(r).locked for r in rows)
        try:
            model.set_locked(rows, lock)
        except VersoError as e:
            self.say(str(e), 6000)
            return
        what = f"Segment {rows[0] + 1}" if len(rows) == 1 else f"{len(rows)} segments"
        if lock:
            self.say(f"{what} locked: the target cannot change until unlocked ({self._keys()}).")
        else:
            self.say(f"{what} unlocked.")

    def lock_exact_matches(self) -> None:
        """Segment ▸ Lock 100 % Matches: every target of the document that is a 100 % TM match."""
        win = self.win
        if win.model is None:
            return
        win.nav.commit_editor()
        try:
            rows = win.model.lock_exact_matches()
        except VersoError as e:
            self.say(str(e), 6000)
            return
        self.say(f"Locked {len(rows)} segment(s) with a 100 % TM match." if rows
                 else "No unlocked segment of this document holds a 100 % TM match.")

    def selected_rows(self) -> list[int]:
        """The document rows selected in the grid, in order; the current row when none is."""
        win = self.win
        sm = win.grid.selectionModel()
        rows = sorted({win.proxy.mapToSource(i).row() for i in sm.selectedRows()}) if sm is not None else []
        return [r for r in rows if r >= 0] or [win.current_row()]

    # --------------------------------------------------------- refusing
    def refuse(self, row: int) -> bool:
        """True (and the reason in the status bar) when ``row``'s segment is locked."""
        model = self.win.model
        if model is None or not (0 <= row < model.rowCount()) or not model.segment(row).locked:
            return False
        self.say(self.locked_line(row), 6000)
        return True

    def locked_line(self, row: int) -> str:
        return f"Segment {row + 1} is locked: its target cannot change (unlock it with {self._keys()})."

    def _keys(self) -> str:
        a = self.win.actions_by_id.get("lock")
        keys = a.shortcut().toString(QKeySequence.NativeText) if a is not None else ""
        return keys or "Segment ▸ Lock/Unlock Segment"

    # --------------------------------------------------------- the read-only box
    def _editor_created(self, ed) -> None:
        ed.installEventFilter(self)
        ed.textChanged.connect(lambda ed=ed: QTimer.singleShot(0, lambda: self._keep_target(ed)))
        model, row = self.win.model, self.win.current_row()
        if model is not None and 0 <= row < model.rowCount() and model.segment(row).locked:
            self.say(self.locked_line(row), 6000)

    def eventFilter(self, obj: QObject, e: QEvent) -> bool:  # noqa: N802
        if e.type() == QEvent.KeyPress and getattr(obj, "isReadOnly", lambda: False)() and _edits(e):
            self.say(self.locked_line(self.win.current_row()), 6000)
            return True
        return False

    def _keep_target(self, ed) -> None:
        """Something wrote into a locked segment's box (a term, a drop): it shows the target again."""
        win = self.win
        try:
            if not ed.isReadOnly() or win.model is None or win.editor() is not ed:
                return
        except RuntimeError:  # the box is gone
            return
        row = win.current_row()
        if ed.segment_text() != win.model.segment(row).target.text:
            win.delegate.setEditorData(ed, win.proxy.mapFromSource(win.model.index(row, COL_TARGET)))
            self.say(self.locked_line(row), 6000)


def _edits(e) -> bool:
    """Whether a key press would change the text of a box that took it."""
    if e.matches(QKeySequence.Paste) or e.matches(QKeySequence.Cut) or e.key() in _EDIT_KEYS:
        return True
    if e.modifiers() & Qt.AltModifier and Qt.Key_1 <= e.key() <= Qt.Key_9:
        return True  # a tag by number
    text = e.text()
    return bool(text) and text.isprintable() and not e.modifiers() & Qt.ControlModifier
