"""File ▸ Import Document: what to ask before a document is read.

A Word document or an OpenDocument text with tracked changes is translated either with the changes accepted (inserted text read, deleted text left out)
or refused (the text as it was before them); never a mix of both.  :func:`format_for` asks
the translator which, with :class:`TrackedChangesDialog`, and returns the name of the engine
format that reads the document so.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

#: :func:`format_for`'s answer when the translator cancelled the import.
CANCELLED = "cancelled"

#: detected format -> (engine module with ``tracked_changes(path)``, format accepting, format refusing)
_RESOLVERS = {
    "docx": ("engine.formats.docx", "docx", "docx-reject"),
    "odf": ("engine.formats.odf", "odf", "odt-reject"),
}


class TrackedChangesDialog(QDialog):
    """Accept or refuse the tracked changes of ``name`` (``counts``: insertions, deletions)."""

    ACCEPT, REFUSE = "accept", "refuse"

    def __init__(self, parent: QWidget | None, name: str, counts: dict[str, int]):
        super().__init__(parent)
        self.setWindowTitle("Tracked changes")
        self.choice: str | None = None
        ins, dels = counts.get("insertions", 0), counts.get("deletions", 0)
        label = QLabel(
            f"<p><b>{_escape(name)}</b> contains tracked changes ({ins} insertion(s), {dels} deletion(s)).</p>"
            "<p>Translate the document <b>with the changes accepted</b> (inserted text is translated, "
            "deleted text left out) or <b>with the changes refused</b> (the text as it was before them)?</p>"
            "<p>The exported translation has the changes resolved the same way in every translated "
            "paragraph.</p>", self)
        label.setWordWrap(True)
        self.accept_button = QPushButton("&Accept the Changes", self)
        self.refuse_button = QPushButton("&Refuse the Changes", self)
        buttons = QDialogButtonBox(QDialogButtonBox.Cancel, self)
        buttons.addButton(self.accept_button, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.refuse_button, QDialogButtonBox.AcceptRole)
        self.accept_button.setDefault(True)
        self.accept_button.clicked.connect(lambda: self._choose(self.ACCEPT))
        self.refuse_button.clicked.connect(lambda: self._choose(self.REFUSE))
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(label)
        lay.addWidget(buttons)

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def format_for(parent: QWidget | None, path: Path) -> str | None:
    """The engine format to read ``path`` with: None to detect it as usual (no tracked
    changes, or a format without them), a format name chosen through
    :class:`TrackedChangesDialog`, or :data:`CANCELLED`.  A file the detection cannot read
    returns None: the import then reports the error as for any other file."""
    import importlib

    from engine.errors import VersoError
    from engine.formats import detect

    try:
        fmt = detect(path)
        resolver = _RESOLVERS.get(fmt.name)
        if resolver is None:
            return None
        module = importlib.import_module(resolver[0])
        counts = module.tracked_changes(path)
    except (VersoError, OSError):
        return None
    if not any(counts.values()):
        return None
    dlg = TrackedChangesDialog(parent, Path(path).name, counts)
    if dlg.exec() != QDialog.Accepted or dlg.choice is None:
        return CANCELLED
    return resolver[1] if dlg.choice == TrackedChangesDialog.ACCEPT else resolver[2]
