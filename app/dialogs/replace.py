"""Replace all, previewed: every change listed (segment, before, after, status), each one can
be left out, and the translator chooses whether confirmed segments stay confirmed."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.inline import TaggedText


class ReplacePreviewDialog(QDialog):
    def __init__(self, parent, plan, skipped: int = 0):
        """``plan``: (row, segment, new target text) of each change; ``skipped``: locked segments
        the replacement would have changed, left out."""
        super().__init__(parent)
        self.setWindowTitle("Replace all")
        self.resize(900, 460)
        self.plan = list(plan)
        confirmed = sum(1 for _, seg, _ in self.plan if seg.status == "confirmed")
        self.skipped = skipped
        locked = f"{skipped} locked segment(s) skipped. " if skipped else ""
        self.summary = QLabel(f"{len(self.plan)} segment(s) will change. {locked}Untick a row to leave it as it is. "
                              "Edit ▸ Undo Replace all takes the whole replacement back "
                              "(Ctrl+Z stays in the segment you edit).", self)
        self.table = QTableWidget(len(self.plan), 4, self)
        self.table.setHorizontalHeaderLabels(["Segment", "Before", "After", "Status"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        for i, (row, seg, new) in enumerate(self.plan):
            num = QTableWidgetItem(str(row + 1))
            num.setFlags(num.flags() | Qt.ItemIsUserCheckable)
            num.setCheckState(Qt.Checked)
            self.table.setItem(i, 0, num)
            self.table.setItem(i, 1, QTableWidgetItem(seg.target.display()))
            self.table.setItem(i, 2, QTableWidgetItem(TaggedText(new, seg.target.tags or seg.source.tags).display()))
            self.table.setItem(i, 3, QTableWidgetItem(seg.status))
        header = self.table.horizontalHeader()  # Before and After share the width: both always in view
        for col, mode in enumerate((QHeaderView.ResizeToContents, QHeaderView.Stretch, QHeaderView.Stretch,
                                    QHeaderView.ResizeToContents)):
            header.setSectionResizeMode(col, mode)
        self.table.setWordWrap(True)
        self.keep = QCheckBox(f"Confirmed segments stay confirmed ({confirmed} of them)", self)
        self.keep.setChecked(True)
        self.keep.setEnabled(confirmed > 0)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.button(QDialogButtonBox.Ok).setText("Replace")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.keep)
        lay.addWidget(buttons)

    def chosen(self) -> list[tuple[int, str]]:
        """(row, new text) of the rows left ticked."""
        return [(row, new) for i, (row, _, new) in enumerate(self.plan)
                if self.table.item(i, 0).checkState() == Qt.Checked]

    def keep_confirmed(self) -> bool:
        return self.keep.isChecked()
