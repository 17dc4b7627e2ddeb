"""The segment grid: the table of segments, drawn by :class:`~app.grid_delegate.ChipDelegate`
(tags as chips) and edited in :class:`~app.target_editor.TargetEditor`, with row heights
that fit the text after a column resize.

Row heights are fitted lazily -- only the rows on screen, again whenever the
view scrolls or a column is resized -- so a 10,000-segment document never
blocks the UI thread measuring rows nobody looks at.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import time
from typing import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QApplication, QAbstractScrollArea, QTableView

from app.grid_delegate import PAD_Y, ChipDelegate
from app.segment_model import COL_SOURCE, COL_TARGET
from app.target_editor import TargetEditor

FIT_BUDGET_S = 0.008  # longest a lazy row-height fit may hold the UI thread before yielding

__all__ = ["ChipDelegate", "SegmentGrid", "TargetEditor"]


class SegmentGrid(QTableView):
    """The table of segments with lazily fitted row heights."""

    def __init__(self, parent=None, reserved: Callable[[], set[str]] | None = None):
        super().__init__(parent)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.ExtendedSelection)  # Shift/Ctrl+click: rows to lock at once
        self.setWordWrap(True)
        self.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                             | QAbstractItemView.AnyKeyPressed)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setMinimumSectionSize(self.fontMetrics().height() + 2 * PAD_Y + 2)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 2 * PAD_Y + 2)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.delegate = ChipDelegate(self, reserved)
        self.setItemDelegateForColumn(COL_SOURCE, self.delegate)
        self.setItemDelegateForColumn(COL_TARGET, self.delegate)
        # With whole rows selected every column is always "selected": bolding the
        # header titles tells nothing and repaints the header on every move.
        self.horizontalHeader().setHighlightSections(False)
        self._fitted: set[int] = set()  # view rows fitted at the current column widths
        self._focus_to_editor = False   # the grid last lost focus to its own target editor
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(30)
        self._fit_timer.timeout.connect(self.fit_visible_rows)
        self._fit_more = QTimer(self)  # the rest of a fit cut short by FIT_BUDGET_S, as soon as idle
        self._fit_more.setSingleShot(True)
        self._fit_more.setInterval(0)
        self._fit_more.timeout.connect(self.fit_visible_rows)
        self.horizontalHeader().sectionResized.connect(lambda *_: self._refit_all())
        self.verticalScrollBar().valueChanged.connect(lambda *_: self._fit_timer.start())

    def selectionCommand(self, index, event=None):  # noqa: N802
        """A move made by the editor (Ctrl+Down, go to a row) selects that row alone, whatever keys
        are held; a click in the grid selects as usual (Shift+click: a range of rows to lock)."""
        if event is None and QApplication.mouseButtons() == Qt.NoButton:
            return QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows
        return super().selectionCommand(index, event)

    def setModel(self, model) -> None:  # noqa: N802
        super().setModel(model)
        self._fitted.clear()
        if model is not None:
            # Any change of which rows the view shows (filter, find, new document) moves
            # rows to other view positions: their heights are measured again.
            for sig in (model.modelReset, model.layoutChanged, model.rowsInserted, model.rowsRemoved,
                        model.rowsMoved):
                sig.connect(lambda *_: self._refit_all())
            model.dataChanged.connect(lambda a, b, *_: self._rows_changed(a.row(), b.row()))
        self._fit_timer.start()

    def _rows_changed(self, first: int, last: int) -> None:
        """Rows whose text changed: those on screen are fitted now, the others when they come
        into view (auto-propagation can change hundreds of rows far down the document at once;
        laying them all out held the UI thread for tens of ms)."""
        changed = range(first, last + 1)
        self._fitted.difference_update(changed)
        vis = self.visible_rows()
        on_screen = [r for r in changed if r in vis]
        if on_screen:
            self.fit_rows(on_screen)

    def _refit_all(self) -> None:
        self._fitted.clear()
        self._fit_timer.start()

    def resizeEvent(self, e):  # noqa: N802
        super().resizeEvent(e)
        self._fit_timer.start()

    def showEvent(self, e):  # noqa: N802
        # The rows on screen are fitted before the first paint, not 30 ms after it: painted at the
        # default height first, every visible row was drawn twice (40 cells, then again fitted).
        super().showEvent(e)
        self.fit_screen()

    def fit_screen(self) -> None:
        """Fit the rows on screen now, top down until the fitted rows fill the viewport (the
        margin of :meth:`visible_rows` follows on the timer, after the paint)."""
        m, h = self.model(), self.viewport().height()
        if m is None or h <= 0 or not self.isVisible():
            return
        r, n = max(0, self.rowAt(0)), m.rowCount()
        while r < n and self.rowViewportPosition(r) < h:
            if r not in self._fitted:
                self.fit_rows([r])
            r += 1

    # -- focus --------------------------------------------------------------------
    # QAbstractItemView repaints its WHOLE viewport on every focus in/out (the
    # selection colours follow focus).  Moving to the next segment closes one
    # target editor and opens another, so focus goes grid -> editor -> grid on
    # every Ctrl+Down/Ctrl+Enter: a full repaint of every visible row (tens of
    # chip documents) for a change that only affects the selected row.  When
    # focus moves between the grid and its own editor, repaint just that row.
    def _is_own_editor(self, w) -> bool:
        return w is not None and w is not self and self.viewport().isAncestorOf(w)

    def focusOutEvent(self, e):  # noqa: N802
        if self._is_own_editor(QApplication.focusWidget()):
            self._focus_to_editor = True
            QAbstractScrollArea.focusOutEvent(self, e)
            self._update_selected_rows()
            return
        self._focus_to_editor = False
        super().focusOutEvent(e)

    def focusInEvent(self, e):  # noqa: N802
        back_from_editor, self._focus_to_editor = self._focus_to_editor, False
        if back_from_editor and self.currentIndex().isValid():
            QAbstractScrollArea.focusInEvent(self, e)
            # What QAbstractItemView.focusInEvent does besides the full repaint:
            self.setAttribute(Qt.WA_InputMethodEnabled, bool(self.currentIndex().flags() & Qt.ItemIsEditable))
            self._update_selected_rows()
            return
        super().focusInEvent(e)

    def _update_selected_rows(self) -> None:
        """Repaint the current and selected rows (their colours depend on focus)."""
        sm = self.selectionModel()
        rows = {self.currentIndex().row()} | ({i.row() for i in sm.selectedIndexes()} if sm else set())
        width = self.viewport().width()
        for r in rows:
            if r >= 0:
                self.viewport().update(0, self.rowViewportPosition(r), width, self.rowHeight(r))

    def visible_rows(self, margin: int = 5) -> range:
        """Rows on screen (plus ``margin``); none while the view has no height yet.

        Never "all rows": on a 10,000-segment document sizing every row takes a minute.
        """
        m = self.model()
        h = self.viewport().height()
        if m is None or not m.rowCount() or h <= 0 or not self.isVisible():
            return range(0)
        top = max(0, self.rowAt(0))
        bottom = self.rowAt(h - 1)
        if bottom < 0:  # the last rows end above the bottom edge, or are not laid out yet
            bottom = top + h // max(1, self.verticalHeader().minimumSectionSize())
        return range(max(0, top - margin), min(m.rowCount(), bottom + margin + 1))

    def reveal(self, index: QModelIndex) -> None:
        """Scroll so the row of ``index`` is on screen.  A row off screen is brought to the
        middle (the segments after it in view too), not just to the edge: moving on from
        the bottom row then scrolls -- and repaints every visible row -- once every half
        screen instead of on every Ctrl+Down."""
        if not index.isValid():
            return
        top = self.rowViewportPosition(index.row())
        if top < 0 or top + self.rowHeight(index.row()) > self.viewport().height():
            self.scrollTo(index, QAbstractItemView.PositionAtCenter)

    def fit_rows(self, rows) -> None:
        """Fit the height of view ``rows`` to their text now (they changed)."""
        for r in rows:
            self.resizeRowToContents(r)
            self._fitted.add(r)
        ed = self.delegate.editor
        if ed is not None and self.currentIndex().isValid():  # the open editor may hold more text
            self.delegate._grow(ed, self.currentIndex())

    def fit_visible_rows(self) -> None:
        """Fit the rows on screen not fitted yet at the current column widths
        (a row fitted once keeps its height until it changes or a column is
        resized); again while fitting brings other rows into view.

        At most about FIT_BUDGET_S at a time (a jump or half-page scroll shows
        many new rows, each a text layout): the rest follows as soon as the
        event loop is idle, so keys and paints get in between.
        """
        deadline = time.perf_counter() + FIT_BUDGET_S
        for _ in range(4):
            rows = [r for r in self.visible_rows() if r not in self._fitted]
            if not rows:
                return
            for r in rows:
                if time.perf_counter() > deadline:
                    self._fit_more.start()
                    return
                self.fit_rows([r])
        if any(r not in self._fitted for r in self.visible_rows()):
            self._fit_more.start()  # fitting keeps bringing rows into view: go on when idle
