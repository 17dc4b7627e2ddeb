"""Find, replace and filters: the find bar above the grid (its text filters the grid), Replace
and Replace all (``app/replace.py``: one document step), and the filters of the toolbar and
the View menu (``app/filters.py``: status, tag errors, QA findings, repetitions, origin)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal

from app import replace as replacing
from app.controllers.base import Controller
from app.filters import CHECKED, FILTERS, compile_find, flagged_ids
from app.segment_model import COL_TARGET, replace_in_target


class _BackToTarget(QObject):
    """Enter or Escape in the filter box goes back to the target box."""

    def __init__(self, win):
        super().__init__(win)
        self.win = win

    def eventFilter(self, obj, e):  # noqa: N802
        if e.type() == QEvent.KeyPress and e.key() in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Escape):
            self.win.nav.go_to(self.win.current_row())
            return True
        return False


class SearchController(Controller):
    #: a filter is in force: its key (tests wait on it; a checked filter answers off the UI thread)
    filterApplied = Signal(str)

    def __init__(self, win):
        super().__init__(win)
        self._check_generation = 0  # a document check asked for an older choice is dropped
        bar = win.findbar
        bar.findChanged.connect(self._apply_find)
        bar.replaceAllRequested.connect(lambda: self.replace_all())
        bar.replaceOneRequested.connect(self.replace_current)
        bar.closed.connect(lambda: win.nav.go_to(win.current_row()))
        for key, label in FILTERS.items():
            win.filter_combo.addItem(label, key)
        win.filter_combo.currentIndexChanged.connect(lambda i: self.set_filter(win.filter_combo.itemData(i)))
        win.filter_combo.installEventFilter(_BackToTarget(win))

    def fill_menu(self, name: str, menu) -> None:
        if name != "filters":
            super().fill_menu(name, menu)
        fm = menu.addMenu("&Filter")
        for key, label in FILTERS.items():
            act = fm.addAction(label)
            act.triggered.connect(lambda *_, key=key: self.set_filter(key))

    # --------------------------------------------------------- filters
    def choose_filter(self) -> None:
        """Ctrl+Shift+F: the toolbar's filter box takes the keys (Up/Down choose, Enter goes back)."""
        self.win.filter_combo.setFocus(Qt.ShortcutFocusReason)

    def set_filter(self, mode: str, clear_find: bool = False) -> None:
        """Show the rows of filter ``mode`` (a key of :data:`app.filters.FILTERS`); a filter that
        needs a document check shows its rows when the check, off the UI thread, answers."""
        win = self.win
        win.nav.commit_editor()
        find_edit = win.findbar.find_edit
        if clear_find and find_edit.text():
            find_edit.blockSignals(True)
            find_edit.clear()
            find_edit.blockSignals(False)
            win.proxy.set_find("")
        self._check_generation += 1
        if mode in CHECKED and win.model is not None:
            self._check_document(mode)
        else:
            self._show_filtered(mode)

    def _check_document(self, mode: str) -> None:
        from app.workers import Worker, start

        win, gen = self.win, self._check_generation
        segments, options, model = win.model.segments(), win.project.qa_options(), win.model
        self.say(f"Checking {len(segments)} segments…", 3000)
        w = Worker(lambda control: flagged_ids(segments, mode, options))
        w.signals.result.connect(
            lambda ids: self._show_filtered(mode, ids) if gen == self._check_generation and win.model is model
            else None)
        w.signals.error.connect(lambda msg: self.say(f"The check failed: {msg}", 8000))
        self._check_worker = start(w)

    def _show_filtered(self, mode: str, flagged: frozenset[int] = frozenset()) -> None:
        win = self.win
        keep = win.current_row() if win.model else 0
        win.proxy.set_mode(mode, flagged)
        combo = win.filter_combo
        i = combo.findData(mode)
        if i >= 0 and combo.currentIndex() != i:
            combo.blockSignals(True)
            combo.setCurrentIndex(i)
            combo.blockSignals(False)
        win.grid.fit_visible_rows()
        if win.model is not None and win.proxy.rowCount():
            pidx = win.proxy.mapFromSource(win.model.index(keep, COL_TARGET))
            if pidx.isValid():
                win.grid.setCurrentIndex(pidx)
            else:
                win.grid.setCurrentIndex(win.proxy.index(0, COL_TARGET))
        if mode != "all":
            n = win.proxy.rowCount()
            self.say(f"{FILTERS[mode]}: {n} segment{'s' if n != 1 else ''}.")
        self.filterApplied.emit(mode)

    # --------------------------------------------------------- find
    def open_find(self, replace: bool) -> None:
        ed = self.win.editor()
        sel = ed.textCursor().selectedText() if ed is not None else ""
        self.win.findbar.open(replace, sel)

    def find_pattern(self):
        """The find bar's pattern (None when it is empty)."""
        bar = self.win.findbar
        text = bar.find_edit.text()
        return compile_find(text, case=bar.case.isChecked(), regex=bar.regex.isChecked(),
                            word=bar.word.isChecked()) if text else None

    def _apply_find(self) -> None:
        win, bar = self.win, self.win.findbar
        win.nav.commit_editor()
        source, target = bar.searched()
        win.proxy.set_find(bar.find_edit.text(), case=bar.case.isChecked(), regex=bar.regex.isChecked(),
                           word=bar.word.isChecked(), source=source, target=target)
        win.delegate.set_find(self.find_pattern())
        n = win.proxy.rowCount()
        bar.result.setText(f"{n} segment{'s' if n != 1 else ''}" if bar.find_edit.text() else "")
        win.grid.fit_visible_rows()
        if n:
            win.grid.setCurrentIndex(win.proxy.index(0, COL_TARGET))

    # --------------------------------------------------------- replace
    def replace_plan(self) -> list[tuple[int, str]]:
        """(row, new target text) of every target the find bar's replacement would change."""
        pat = self.find_pattern()
        model = self.win.model
        if pat is None or model is None:
            return []
        bar = self.win.findbar
        rep = bar.replace_edit.text()
        out = []
        for r in range(model.rowCount()):
            new = replace_in_target(model.segment(r), pat, rep, regex=bar.regex.isChecked())
            if new is not None:
                out.append((r, new))
        return out

    def replace_all(self, *, ask: bool = True, keep_confirmed: bool = True) -> int:
        """Replace in every target after a preview; one named document step (app/replace.py)."""
        return replacing.replace_all(self.win, ask=ask, keep_confirmed=keep_confirmed)

    def replace_current(self) -> None:
        replacing.replace_current(self.win)
