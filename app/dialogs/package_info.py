"""What an agency's package says, shown once when it is opened: its instructions, due date, the files
that became documents, its TMs and termbases, and what was skipped."""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout


def package_text(opened) -> str:
    """The dialog's text for an :class:`engine.packages.Opened`."""
    lines = []
    if opened.due:
        lines.append(f"Due: {opened.due}")
    for note in opened.instructions:
        lines.append(f"Instructions: {note}")
    lines.append(f"Language pair: {opened.src_lang} → {opened.tgt_lang}")
    lines += [f"Document: {d.member} ({d.segments} segments)" for d in opened.documents]
    lines += [f"Translation memory (read-only): {t.member} ({t.units} units)" for t in opened.tms]
    lines += [f"Termbase: {g.member} ({g.entries} entries)" for g in opened.glossaries]
    lines += [f"Skipped: {s}" for s in opened.skipped]
    return "\n".join(lines)


class PackageInfoDialog(QDialog):
    def __init__(self, name: str, opened, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Package {name}")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel(f"The project was made from {name}. What the package says:"))
        self.text = QPlainTextEdit(package_text(opened))
        self.text.setReadOnly(True)
        lay.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok)
        buttons.accepted.connect(self.accept)
        lay.addWidget(buttons)
        self.resize(640, 360)
