"""Tools ▸ TM Editor: the units of one of the project's TMs (local or shared), searched by
text in the source and/or target (a phrase or a regular expression), by who changed them
and by the days they were changed; edited in place (F2 or double-click, Enter writes),
deleted with the Delete key; Ctrl+Z takes the last edit or delete back, Ctrl+Y (or Ctrl+Shift+Z)
makes it again.  The view only:
:class:`app.controllers.tm_editor.TMEditorController` reads and writes the TM."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
)

from engine.tm.units import UnitFilter

from app.dialogs.tm_units import AUTHOR, DATE, SOURCE, TARGET, UnitTableModel

#: Milliseconds after the last keystroke in a search field before the search runs.
SEARCH_DELAY_MS = 250
SIDES = (("Source and target", "both"), ("Source", "source"), ("Target", "target"))


class TMEditorDialog(QDialog):
    #: a new search: the filter the fields say
    searchChanged = Signal(object)
    #: another TM chosen (its index in the project's list)
    tmChosen = Signal(int)
    #: the Delete key on the selected rows: their unit ids
    deleteRequested = Signal(list)
    #: Ctrl+Z outside a cell being edited
    undoRequested = Signal()
    #: Ctrl+Y or Ctrl+Shift+Z outside a cell being edited
    redoRequested = Signal()

    def __init__(self, parent, tm_names: list[str]):
        super().__init__(parent)
        self.setWindowTitle("TM Editor")
        self.resize(1000, 560)
        self.model = UnitTableModel(self)

        self.tm_combo = QComboBox(self)
        self.tm_combo.addItems(tm_names)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find in the units…")
        self.search.setClearButtonEnabled(True)
        self.side = QComboBox(self)
        for label, side in SIDES:
            self.side.addItem(label, side)
        self.regex = QCheckBox("&Regular expression", self)
        self.case = QCheckBox("&Match case", self)
        self.author = QLineEdit(self)
        self.author.setPlaceholderText("Changed by…")
        self.since = QLineEdit(self)
        self.since.setPlaceholderText("From YYYY-MM-DD")
        self.until = QLineEdit(self)
        self.until.setPlaceholderText("To YYYY-MM-DD")

        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(SOURCE, QHeaderView.Stretch)
        header.setSectionResizeMode(TARGET, QHeaderView.Stretch)
        header.setSectionResizeMode(AUTHOR, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(DATE, QHeaderView.ResizeToContents)
        self.status = QLabel(self)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.undo_action = QAction("Undo", self)
        self.undo_action.setShortcut(QKeySequence.Undo)
        self.undo_action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
        self.undo_action.triggered.connect(self.undoRequested)
        self.addAction(self.undo_action)
        self.redo_action = QAction("Redo", self)
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Y"), QKeySequence("Ctrl+Shift+Z")])
        self.redo_action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
        self.redo_action.triggered.connect(self.redoRequested)
        self.addAction(self.redo_action)
        self.delete_action = QAction("Delete Unit", self)
        self.delete_action.setShortcut(QKeySequence.Delete)
        self.delete_action.setShortcutContext(Qt.WidgetShortcut)
        self.delete_action.triggered.connect(self._delete_selected)
        self.table.addAction(self.delete_action)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(lambda: self.searchChanged.emit(self.unit_filter()))
        for edit in (self.search, self.author, self.since, self.until):
            edit.textChanged.connect(self._timer.start)
            edit.returnPressed.connect(self._search_now)
        for box in (self.regex, self.case):
            box.toggled.connect(self._search_now)
        self.side.currentIndexChanged.connect(self._search_now)
        self.tm_combo.currentIndexChanged.connect(self.tmChosen)

        top = QHBoxLayout()
        top.addWidget(QLabel("&TM:", self, buddy=self.tm_combo))
        top.addWidget(self.tm_combo)
        top.addWidget(self.search, 1)
        top.addWidget(self.side)
        top.addWidget(self.regex)
        top.addWidget(self.case)
        who = QHBoxLayout()
        who.addWidget(self.author, 1)
        who.addWidget(self.since)
        who.addWidget(self.until)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(who)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.status)
        self.search.setFocus()

    def unit_filter(self) -> UnitFilter:
        return UnitFilter(text=self.search.text(), side=self.side.currentData(), regex=self.regex.isChecked(),
                          case=self.case.isChecked(), author=self.author.text(), since=self.since.text(),
                          until=self.until.text())

    def say(self, text: str) -> None:
        """One line under the table (the first line of ``text``: never a traceback)."""
        self.status.setText((text.strip().splitlines() or [""])[0])

    def select_unit(self, uid: int) -> None:
        row = self.model.row_of(uid)
        if row >= 0:
            self.table.selectRow(row)
            self.table.scrollTo(self.model.index(row, TARGET))

    def _search_now(self) -> None:
        self._timer.stop()
        self.searchChanged.emit(self.unit_filter())

    def _delete_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        if not rows and self.table.currentIndex().isValid():
            rows = [self.table.currentIndex().row()]
        if rows:
            self.deleteRequested.emit([self.model.entries[r].id for r in rows])


__all__ = ["TMEditorDialog", "SEARCH_DELAY_MS"]
