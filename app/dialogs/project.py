"""New project: folder, languages, first documents."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from engine.store import Project


class NewProjectDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New project")
        self.folder = QLineEdit(self)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        row = QWidget(self)
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(self.folder)
        h.addWidget(browse)
        self.name = QLineEdit(self)
        self.src = QLineEdit("en", self)
        self.tgt = QLineEdit("de", self)
        form = QFormLayout(self)
        form.addRow("Folder", row)
        form.addRow("Name", self.name)
        form.addRow("Source language", self.src)
        form.addRow("Target language", self.tgt)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Project folder")
        if d:
            self.folder.setText(d)

    def create(self) -> Project:
        folder = Path(self.folder.text())
        p = Project.create(folder, src_lang=self.src.text(), tgt_lang=self.tgt.text(), name=self.name.text())
        p.add_tm_ref("tm", writable=True)
        return p
