"""Add Term (Ctrl+Shift+G): a source term and its target, prefilled from what is selected,
with a note and forbidden variants, written to the project's writable glossary (made as
``PROJECT/glossary`` when the project has none)."""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout

from engine.glossary import Glossary, GlossaryEntry

PROJECT_GLOSSARY = "glossary"  # the folder, relative to the project, of a project's own glossary

_SPLIT = re.compile(r"[;,]")


def split_terms(text: str) -> tuple[str, ...]:
    """``"Datei; Dateien"`` -> ``("Datei", "Dateien")`` (``;`` or ``,`` between terms)."""
    return tuple(t.strip() for t in _SPLIT.split(text) if t.strip())


def writable_glossary(project) -> Path:
    """The folder of the project's writable glossary; one is listed (``PROJECT/glossary``,
    first) when the project has none."""
    for ref in project.glossary_refs():
        if ref.writable:
            return ref.path
    listed = {ref.path.resolve() for ref in project.glossary_refs()}
    name, n = PROJECT_GLOSSARY, 1
    while (project.folder / name).resolve() in listed:   # a read-only one already has that folder
        n += 1
        name = f"{PROJECT_GLOSSARY}{n}"
    return project.add_glossary_ref(name, writable=True).path


def save_term(project, entry: GlossaryEntry) -> GlossaryEntry:
    """Store ``entry`` in the project's writable glossary (created when missing); the stored
    entry.  Raises :class:`engine.glossary.GlossaryError` (another language pair, ...)."""
    with Glossary(writable_glossary(project), create=True) as g:
        return g.add(entry)


class AddTermDialog(QDialog):
    """Fields ``source``, ``target``, ``note``, ``forbidden`` (QLineEdit); :meth:`entry` the
    :class:`GlossaryEntry` they make.  OK needs a source and a target term."""

    def __init__(self, parent=None, *, source: str = "", target: str = "", src_lang: str = "",
                 tgt_lang: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Add Term to Glossary")
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.source = QLineEdit(" ".join(source.split()), self)
        self.target = QLineEdit(" ".join(target.split()), self)
        self.target.setPlaceholderText("preferred term first; others after ;")
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("context, definition, client…")
        self.forbidden = QLineEdit(self)
        self.forbidden.setPlaceholderText("variants not to use, separated by ;")
        form = QFormLayout()
        form.addRow(f"&Source term ({src_lang}):" if src_lang else "&Source term:", self.source)
        form.addRow(f"&Target term ({tgt_lang}):" if tgt_lang else "&Target term:", self.target)
        form.addRow("&Note:", self.note)
        form.addRow("&Forbidden:", self.forbidden)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.hint = QLabel("The term goes to the project's own glossary.", self)
        self.hint.setStyleSheet("color: #666")
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.hint)
        lay.addWidget(self.buttons)
        for w in (self.source, self.target):
            w.textChanged.connect(self._update_ok)
        self._update_ok()
        (self.target if self.source.text() and not self.target.text() else self.source).setFocus()
        self.resize(460, self.sizeHint().height())

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(self.complete())

    def complete(self) -> bool:
        return bool(self.source.text().strip() and split_terms(self.target.text()))

    def accept(self) -> None:
        if self.complete():
            super().accept()

    def entry(self) -> GlossaryEntry:
        return GlossaryEntry(source=" ".join(self.source.text().split()), targets=split_terms(self.target.text()),
                             src_lang=self.src_lang, tgt_lang=self.tgt_lang, note=self.note.text().strip(),
                             forbidden=split_terms(self.forbidden.text()), origin="editor")
