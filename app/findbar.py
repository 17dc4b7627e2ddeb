"""Find / replace bar above the grid: the find text filters the grid (in the source, the
target or both; whole word, case, regular expression), replace works on targets only and
never touches a tag."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QWidget

from app.filters import FIND_IN


class FindBar(QWidget):
    findChanged = Signal()
    replaceAllRequested = Signal()
    replaceOneRequested = Signal()
    #: the bar is about to close (the grid still shows the find's rows) / has closed
    closing = Signal()
    closed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.find_edit = QLineEdit(self)
        self.find_edit.setPlaceholderText("Find in source and target")
        self.find_edit.setClearButtonEnabled(True)
        self.replace_edit = QLineEdit(self)
        self.replace_edit.setPlaceholderText("Replace in target with")
        self.where = QComboBox(self)
        for key, label in (("both", "in source and target"), ("source", "in source"), ("target", "in target")):
            self.where.addItem(label, key)
        self.word = QCheckBox("Whole word", self)
        self.case = QCheckBox("Match case", self)
        self.regex = QCheckBox("Regex", self)
        self.replace_one = QPushButton("Replace", self)
        self.replace_all = QPushButton("Replace all", self)
        self.result = QLabel(self)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.addWidget(QLabel("Find:"))
        lay.addWidget(self.find_edit, 2)
        lay.addWidget(self.where)
        lay.addWidget(self.word)
        lay.addWidget(self.case)
        lay.addWidget(self.regex)
        lay.addWidget(QLabel("Replace:"))
        lay.addWidget(self.replace_edit, 2)
        lay.addWidget(self.replace_one)
        lay.addWidget(self.replace_all)
        lay.addWidget(self.result)
        lay.addWidget(close)
        self.find_edit.textChanged.connect(lambda *_: self.findChanged.emit())
        self.where.currentIndexChanged.connect(lambda *_: self.findChanged.emit())
        self.word.toggled.connect(lambda *_: self.findChanged.emit())
        self.case.toggled.connect(lambda *_: self.findChanged.emit())
        self.regex.toggled.connect(lambda *_: self.findChanged.emit())
        self.replace_all.clicked.connect(self.replaceAllRequested.emit)
        self.replace_one.clicked.connect(self.replaceOneRequested.emit)
        close.clicked.connect(self._close)
        # Tab goes through the find options before the replacement, as they are read left to right
        order = (self.find_edit, self.where, self.word, self.case, self.regex, self.replace_edit, self.replace_one,
                 self.replace_all)
        for a, b in zip(order, order[1:]):
            QWidget.setTabOrder(a, b)

    def searched(self) -> tuple[bool, bool]:
        """Where the find text is looked for: (in the source, in the target)."""
        return FIND_IN[self.where.currentData()]

    def open(self, replace: bool = False, text: str = "") -> None:
        self.show()
        if text:
            self.find_edit.setText(text)
        (self.replace_edit if replace and self.find_edit.text() else self.find_edit).setFocus()
        self.find_edit.selectAll()

    def _close(self) -> None:
        self.closing.emit()
        self.find_edit.clear()
        self.hide()
        self.closed.emit()
