"""File ▸ Import Document: what to ask before a document is read, and after.

A Word document or an OpenDocument text with tracked changes is translated either with the changes accepted (inserted text read, deleted text left out)
or refused (the text as it was before them); never a mix of both.  :func:`format_for` asks
the translator which, with :class:`TrackedChangesDialog`, and returns the name of the engine
format that reads the document so.

A file that declares another language pair than the project's (XLIFF, PO, Qt TS, a CSV with
language columns) is asked about once it is read: :func:`read_for_import` reads it for the
import, on the import's worker thread, and says from that same read how its pair conflicts
with the project's; :func:`other_pair_accepted` asks the translator (default No).  Asking
before the import meant reading the file twice, once on the UI thread: with a large XLIFF the
window froze for the first read.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from engine.formats.revmarks import TrackedChanges

#: :func:`format_for`'s answer when the translator cancelled the import.
CANCELLED = "cancelled"

#: detected format -> (engine module with ``tracked_changes(path)``, format accepting, format refusing)
_RESOLVERS = {
    "docx": ("engine.formats.docx", "docx", "docx-reject"),
    "odf": ("engine.formats.odf", "odf", "odt-reject"),
}


class TrackedChangesDialog(QDialog):
    """Accept or refuse the tracked changes of ``name``."""

    ACCEPT, REFUSE = "accept", "refuse"

    def __init__(self, parent: QWidget | None, name: str, counts: TrackedChanges):
        super().__init__(parent)
        self.setWindowTitle("Tracked changes")
        self.choice: str | None = None
        ins, dels = counts.insertions, counts.deletions
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
    :class:`TrackedChangesDialog` or the column choice of an ambiguous CSV, or :data:`CANCELLED`
    (the translator took a TMX to the Import TMX dialog instead).  A file the detection cannot read returns None:
    the import then reports the error as for any other file."""
    import importlib

    from engine.errors import UnsupportedFormatError, VersoError
    from engine.formats import detect

    try:
        fmt = detect(path)
    except UnsupportedFormatError as e:
        return CANCELLED if _offer_tm_import(parent, path, e) else None
    except (VersoError, OSError):
        return None
    chosen: str | None = None
    if fmt.name == "tabular":
        chosen = _columns_for(parent, path)
        if chosen == CANCELLED:
            return CANCELLED
    try:
        resolver = _RESOLVERS.get(fmt.name)
        if resolver is None:
            return chosen
        module = importlib.import_module(resolver[0])
        counts = module.tracked_changes(path)
    except (VersoError, OSError):
        return None
    if not counts:
        return None
    dlg = TrackedChangesDialog(parent, Path(path).name, counts)
    if dlg.exec() != QDialog.Accepted or dlg.choice is None:
        return CANCELLED
    return resolver[1] if dlg.choice == TrackedChangesDialog.ACCEPT else resolver[2]


def _offer_tm_import(parent, path: Path, error) -> bool:
    """A TMX given as a document: offer the Import TMX dialog instead (True when it was opened).
    A TBX is refused by the import with the command that takes it."""
    from PySide6.QtWidgets import QMessageBox

    memory = getattr(parent, "memory", None)  # the window's TM controller (app/controllers/memory.py)
    if "TMX" not in str(error) or memory is None:
        return False
    answer = QMessageBox.question(
        parent, "Import document", f"{Path(path).name} is a TMX translation memory, not a document.\n\n"
        "Import it into a translation memory instead?", QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
    if answer != QMessageBox.Yes:
        return True  # nothing to import as a document either
    dlg = memory.import_tm_dialog()
    if dlg is not None:
        dlg.set_file(Path(path))
    return True


def _columns_for(parent, path: Path) -> str | None:
    """``tabular:S,T`` chosen by the translator for a CSV that is no clear bilingual table, None for
    a clear one, :data:`CANCELLED` when the translator cancelled."""
    from PySide6.QtWidgets import QInputDialog

    from engine.errors import VersoError
    from engine.formats.tabular import layout_question

    try:
        q = layout_question(path)
    except (VersoError, OSError):
        return None
    if q is None:
        return None
    items = [f"{i + 1}: {sample[:40]}" for i, sample in enumerate(q.columns)]
    picked = []
    for role in ("source", "translation"):
        item, ok = QInputDialog.getItem(
            parent, "Which columns?", f"{Path(path).name} is not a clear bilingual table ({q.reason}).\n"
            f"Which column is the {role}?", items, len(picked), False)
        if not ok:
            return CANCELLED
        picked.append(items.index(item) + 1)
    if picked[0] == picked[1]:
        return CANCELLED
    return f"tabular:{picked[0]},{picked[1]}"


def read_for_import(path: Path, project, format: str | None):
    """``path`` read for ``project`` (:func:`engine.formats.read_document`, once) and the conflict
    between the pair the file declares and the project's (:func:`engine.formats.language_conflict`),
    ``""`` when there is none.  Runs on the import's worker thread."""
    from engine.formats import language_conflict, read_declared
    from engine.store.segrules import read_document  # with the project's sentence rules

    doc = read_document(project, path, src_lang=project.src_lang, tgt_lang=project.tgt_lang, format=format)
    if doc.format == "qt-ts":  # read for the project, the reader keeps no trace of the file's languages
        _, declared = read_declared(path, src_lang=project.src_lang, tgt_lang=project.tgt_lang, format=format)
    else:
        declared = _declared(doc)
    return doc, language_conflict(declared, project.src_lang, project.tgt_lang, what="this project")


def _declared(doc) -> tuple[str, str]:
    """The pair a document read for the project says its file declares; ``""`` for a side it leaves
    open.  An XLIFF reader takes the file's languages over the project's, so a side the file
    leaves open reads as the project's, which is no conflict either."""
    from engine.langs import normalize_lang

    if doc.format in ("xliff12", "xliff20"):
        return doc.src_lang, doc.tgt_lang
    if doc.format == "po":
        return "", normalize_lang((doc.meta.get("header") or {}).get("Language", ""))
    declared = doc.meta.get("declared_languages") or ("", "")  # a CSV's language columns
    return declared[0] or "", declared[1] or ""


def other_pair_accepted(parent, path: Path, conflict: str) -> bool:
    """True when the translator answers Yes to importing ``path``, which declares another language
    pair (``conflict``, :func:`read_for_import`), into the project anyway (the default is No)."""
    from PySide6.QtWidgets import QMessageBox

    answer = QMessageBox.question(
        parent, "Another language pair",
        f"{Path(path).name}: {conflict}.\n\nImport it into this project anyway?",
        QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
    return answer == QMessageBox.Yes
