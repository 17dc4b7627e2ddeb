"""Help menu: the keyboard shortcuts of the current preset, and About."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout

import engine


class ShortcutsDialog(QDialog):
    def __init__(self, parent, rows: list[tuple[str, str]]):
        """``rows``: (what it does, keys)."""
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(560, 560)
        self.rows = rows
        self.table = QTableWidget(len(rows), 2, self)
        self.table.setHorizontalHeaderLabels(["Action", "Keys"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        for r, (what, keys) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(what))
            self.table.setItem(r, 1, QTableWidgetItem(keys))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("The keys of the current preset (Edit ▸ Settings chooses Trados/memoQ or OmegaT).", self))
        lay.addWidget(self.table)
        lay.addWidget(buttons)


def about_text() -> str:
    return (f"<b>Verso {engine.__version__}</b><br>Computer-aided translation with a translation memory and a "
            "local neural engine that copies from your memory. Nothing leaves your machine.<br><br>"
            "GPL-3.0-or-later.")
