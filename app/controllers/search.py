"""Find, replace and filters: the find bar above the grid (its text filters the grid), Replace
and Replace all (``app/replace.py``: one document step), and the filters of the toolbar and
the View menu (``app/filters.py``: status, tag errors, QA findings, repetitions, origin), two at
once ("Fuzzy / draft" and "From the TM")."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolBar, QWidget

from engine.store.qa_ignore import IgnoreList

from app import replace as replacing
from app.controllers.base import Controller
from app.filters import CHECKED, FILTERS, compile_find, flagged_ids
from app.segment_model import COL_TARGET, replace_in_target

#: The second filter box: nothing more, or any filter but "All segments".
SECOND_FILTERS = {"all": "—", **{k: v for k, v in FILTERS.items() if k != "all"}}


class _FilterKeys(QObject):
    """In the filter boxes: Enter or Escape goes back to the target box; Tab goes from the first
    box to the second, Shift+Tab back."""

    def __init__(self, win, first, second):
        super().__init__(win)
        self.win, self.first, self.second = win, first, second

    def eventFilter(self, obj, e):  # noqa: N802
        if e.type() != QEvent.KeyPress:
            return False
        if e.key() in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Escape):
            self.win.nav.go_to(self.win.current_row())
            return True
        if e.key() == Qt.Key_Tab and obj is self.first and not e.modifiers() & ~Qt.KeypadModifier:
            self.second.setFocus(Qt.TabFocusReason)
            return True
        if e.key() == Qt.Key_Backtab and obj is self.second:
            self.first.setFocus(Qt.BacktabFocusReason)
            return True
        return False


class SearchController(Controller):
    #: the filters in force: their keys joined by "+" ("fuzzy+tm"; "all" when none is); tests wait
    #: on it (a checked filter answers off the UI thread)
    filterApplied = Signal(str)

    def __init__(self, win):
        super().__init__(win)
        self._check_generation = 0  # a document check asked for an older choice is dropped
        self.first, self.second = "all", "all"  # the toolbar's two filter boxes: a segment passes both
        bar = win.findbar
        bar.findChanged.connect(self._apply_find)
        bar.replaceAllRequested.connect(lambda: self.replace_all())
        bar.replaceOneRequested.connect(self.replace_current)
        # the segment the translator is on, taken before the find's filter is lifted
        bar.closing.connect(lambda: setattr(self, "_row_at_close", win.current_row()))
        bar.closed.connect(lambda: win.nav.go_to(getattr(self, "_row_at_close", win.current_row())))
        for key, label in FILTERS.items():
            win.filter_combo.addItem(label, key)
        win.filter_combo.currentIndexChanged.connect(lambda i: self.set_filter(win.filter_combo.itemData(i)))
        # the second box, "and": placed beside the first once the window has built its toolbar
        self.and_box = QWidget()  # no parent (so not drawn) until the toolbar takes it
        lay = QHBoxLayout(self.and_box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel(" and ", self.and_box))
        self.and_combo = QComboBox(self.and_box)
        self.and_combo.setToolTip("A second filter: the grid shows the segments that pass both "
                                  "(Ctrl+Shift+F, then Tab)")
        for key, label in SECOND_FILTERS.items():
            self.and_combo.addItem(label, key)
        self.and_combo.currentIndexChanged.connect(
            lambda i: self.set_second_filter(self.and_combo.itemData(i)))
        lay.addWidget(self.and_combo)
        keys = _FilterKeys(win, win.filter_combo, self.and_combo)
        win.filter_combo.installEventFilter(keys)
        self.and_combo.installEventFilter(keys)
        QTimer.singleShot(0, self._place_and_box)

    def _place_and_box(self) -> None:
        """Put the second filter box right after the first in the toolbar (once)."""
        combo, box = self.win.filter_combo, self.and_box
        tb = combo.parentWidget()
        if not isinstance(tb, QToolBar) or box.parentWidget() is tb:
            return
        acts = tb.actions()
        at = next((i for i, a in enumerate(acts) if tb.widgetForAction(a) is combo), None)
        if at is None:
            return
        if at + 1 < len(acts):
            tb.insertWidget(acts[at + 1], box)
        else:
            tb.addWidget(box)

    def fill_menu(self, name: str, menu) -> None:
        if name != "filters":
            super().fill_menu(name, menu)
        fm = menu.addMenu("&Filter")
        for key, label in FILTERS.items():
            act = fm.addAction(label)
            act.triggered.connect(lambda *_, key=key: self.set_filter(key))
        am = menu.addMenu("And &Also")
        for key, label in SECOND_FILTERS.items():
            act = am.addAction(label)
            act.triggered.connect(lambda *_, key=key: self.set_second_filter(key))

    # --------------------------------------------------------- filters
    def choose_filter(self) -> None:
        """Ctrl+Shift+F: the toolbar's filter box takes the keys (Up/Down choose, Tab goes to the
        second box, Enter goes back)."""
        self._place_and_box()
        self.win.filter_combo.setFocus(Qt.ShortcutFocusReason)

    def set_filter(self, mode: str, clear_find: bool = False) -> None:
        """Show the rows of filter ``mode`` (a key of :data:`app.filters.FILTERS`) and of the second
        box's filter; "all" shows every row (both boxes cleared).  A filter that needs a document
        check shows its rows when the check, off the UI thread, answers."""
        win = self.win
        win.nav.commit_editor()
        find_edit = win.findbar.find_edit
        if clear_find and find_edit.text():
            find_edit.blockSignals(True)
            find_edit.clear()
            find_edit.blockSignals(False)
            win.proxy.set_find("")
        self.first = mode
        if mode == "all":
            self.second = "all"
        self._apply()

    def set_second_filter(self, mode: str) -> None:
        """The second box: the rows shown must pass ``mode`` too ("all": no second filter)."""
        self.win.nav.commit_editor()
        self.second = mode
        self._apply()

    def _apply(self) -> None:
        self._check_generation += 1
        modes = tuple(dict.fromkeys(m for m in (self.first, self.second) if m != "all"))
        checked = [m for m in modes if m in CHECKED]
        if checked and self.win.model is not None:
            self._check_document(modes, checked)
        else:
            self._show_filtered(modes)

    def _check_document(self, modes: tuple[str, ...], checked: list[str]) -> None:
        from app.workers import Worker, start

        win, gen = self.win, self._check_generation
        segments, options, model = win.model.segments(), win.project.qa_options(), win.model
        ignored = IgnoreList(win.project).keys() if "qa" in checked else set()
        self.say(f"Checking {len(segments)} segments…", 3000)

        def job(control):
            ids = flagged_ids(segments, checked[0], options, ignored)
            for mode in checked[1:]:
                ids &= flagged_ids(segments, mode, options, ignored)
            return ids

        w = Worker(job)
        w.signals.result.connect(
            lambda ids: self._show_filtered(modes, ids) if gen == self._check_generation and win.model is model
            else None)
        w.signals.error.connect(lambda msg: self.say(f"The check failed: {msg}", 8000))
        self._check_worker = start(w)

    def _show_filtered(self, modes: tuple[str, ...], flagged: frozenset[int] = frozenset()) -> None:
        win = self.win
        keep = win.current_row() if win.model else 0
        win.proxy.set_modes(modes, flagged)
        for combo, mode in ((win.filter_combo, self.first), (self.and_combo, self.second)):
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
        if modes:
            n = win.proxy.rowCount()
            self.say(f"{' and '.join(FILTERS[m] for m in modes)}: {n} segment{'s' if n != 1 else ''}.")
        self.filterApplied.emit("+".join(modes) or "all")

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
