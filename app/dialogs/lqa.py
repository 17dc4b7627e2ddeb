"""Review ▸ Add LQA Error…: the category, severity and comment of an error on the selected span of
the target (keyboard: the first letter of a category or severity picks it, Enter adds)."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit

from engine.review.lqa import CATEGORIES, SEVERITIES


class LqaErrorDialog(QDialog):
    def __init__(self, parent=None, span: str = "", weights: dict | None = None):
        super().__init__(parent)
        self.setWindowTitle("Add LQA Error")
        form = QFormLayout(self)
        form.addRow("Text", QLabel(span or "(the whole target)", self))
        self.category = QComboBox(self)
        self.category.addItems([c.replace("-", " ").capitalize() for c in CATEGORIES])
        form.addRow("&Category", self.category)
        self.severity = QComboBox(self)
        w = weights or {}
        self.severity.addItems([f"{s.capitalize()} ({w[s]:g})" if s in w else s.capitalize() for s in SEVERITIES])
        form.addRow("&Severity", self.severity)
        self.comment = QLineEdit(self)
        form.addRow("C&omment", self.comment)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.category.setFocus()

    def values(self) -> tuple[str, str, str]:
        return (CATEGORIES[self.category.currentIndex()], SEVERITIES[self.severity.currentIndex()],
                self.comment.text().strip())
