"""QA check: the project's checks (tags, numbers, spaces, punctuation, untranslated,
consistency, length, spelling), each on or off for this project; a click on a finding
goes to its segment."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.qa import CHECKS, Issue, check_segments, received_ids


class QADialog(QDialog):
    segmentActivated = Signal(int)  # 0-based row in the document

    def __init__(self, parent, segments, project=None, spelling=None):
        """``project``: where the choice of checks is kept and its glossaries (None: all checks,
        not saved, no glossary); ``spelling``: the target language's SpellChecker, or None."""
        super().__init__(parent)
        self.setWindowTitle("QA check")
        self.resize(820, 520)
        self.segments = list(segments)
        self.project = project
        self.spelling = spelling
        self.options = project.qa_options() if project is not None else None
        self.terms = project.term_index() if project is not None else None
        self.tgt_lang = project.tgt_lang if project is not None else ""
        box = QGroupBox("Checks run for this project", self)
        grid = QGridLayout(box)
        self.boxes: dict[str, QCheckBox] = {}
        for i, c in enumerate(CHECKS):
            cb = QCheckBox(c.title, box)
            cb.setChecked(self.options is None or c.id in self.options.enabled)
            cb.toggled.connect(lambda on, cid=c.id: self._toggle(cid, on))
            grid.addWidget(cb, i // 2, i % 2)
            self.boxes[c.id] = cb
        self.summary = QLabel(self)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Segment", "Severity", "Check", "Message"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.cellClicked.connect(lambda r, c: self.activate(r))
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(box)
        lay.addWidget(self.summary)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.run()

    def _toggle(self, check: str, on: bool) -> None:
        if self.options is not None:
            self.options = self.options.with_check(check, on)
            self.project.set_qa_options(self.options)
        self.run()

    def run(self) -> None:
        self.issues: list[Issue] = check_segments(self.segments, self.options, spelling=self.spelling,
                                                  terms=self.terms, tgt_lang=self.tgt_lang,
                                                  received=received_ids(self.segments))
        errors = sum(1 for i in self.issues if i.severity == "error")
        self.summary.setText(f"{len(self.issues)} finding(s): {errors} error(s), "
                             f"{len(self.issues) - errors} warning(s). Click one to go to its segment.")
        self.table.setRowCount(len(self.issues))
        for r, i in enumerate(self.issues):
            for c, v in enumerate((str(i.idx + 1) if i.idx >= 0 else "—", i.severity, i.check, i.message)):
                item = QTableWidgetItem(v)
                if c == 1 and i.severity == "error":
                    item.setForeground(Qt.red)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()

    def activate(self, r: int) -> None:
        if 0 <= r < len(self.issues) and self.issues[r].idx >= 0:
            self.segmentActivated.emit(self.issues[r].idx)
