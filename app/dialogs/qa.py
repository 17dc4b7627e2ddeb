"""QA check: tags and placeholders missing or extra, numbers, empty or
untranslated targets, source copied; a click goes to the segment."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout

from engine.qa import Issue, check_segments


class QADialog(QDialog):
    segmentActivated = Signal(int)  # 0-based row in the document

    def __init__(self, parent, segments):
        super().__init__(parent)
        self.setWindowTitle("QA check")
        self.resize(760, 420)
        self.issues: list[Issue] = check_segments(segments)
        errors = sum(1 for i in self.issues if i.severity == "error")
        self.summary = QLabel(f"{len(self.issues)} issue(s): {errors} error(s), "
                              f"{len(self.issues) - errors} warning(s). Click one to go to its segment.", self)
        self.table = QTableWidget(len(self.issues), 4, self)
        self.table.setHorizontalHeaderLabels(["Segment", "Severity", "Check", "Message"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        for r, i in enumerate(self.issues):
            for c, v in enumerate((str(i.idx + 1), i.severity, i.check, i.message)):
                item = QTableWidgetItem(v)
                if c == 1 and i.severity == "error":
                    item.setForeground(Qt.red)
                self.table.setItem(r, c, item)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.resizeColumnsToContents()
        self.table.cellClicked.connect(lambda r, c: self.activate(r))
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.table)
        lay.addWidget(buttons)

    def activate(self, r: int) -> None:
        if 0 <= r < len(self.issues):
            self.segmentActivated.emit(self.issues[r].idx)
