"""Glossaries into the project: Glossary ▸ Import Glossary (a TBX, CSV/TSV or XLSX file into the
project's own glossary or another folder, :mod:`app.dialogs.import_glossary`) and Glossary ▸
Attach Glossary Folder (an existing glossary listed, read-only); either way the term index is
built again so the glossary panel shows the new terms of the current segment."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.errors import VersoError
from engine.glossary import Glossary
from engine.langs import pair_text, same_language

from app.controllers.base import Controller

PROJECT_GLOSSARY = "glossary"  # a project's own glossary folder, as Add Term makes it


def listed(project, folder: Path) -> bool:
    here = folder.resolve()
    return any(r.path.resolve() == here for r in project.glossary_refs())


def own_glossary(project) -> Path:
    """The project's writable glossary, or the folder one would be made in (not listed yet)."""
    refs = project.glossary_refs()
    for ref in refs:
        if ref.writable:
            return ref.path
    name, n = PROJECT_GLOSSARY, 1
    while any(r.path.resolve() == (project.folder / name).resolve() for r in refs):
        n += 1
        name = f"{PROJECT_GLOSSARY}{n}"
    return project.folder / name


class GlossaryController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.import_dialog = None   # the open Import Glossary dialog (tests reach it here)

    def import_glossary_dialog(self, path: Path | None = None):
        """Glossary ▸ Import Glossary; with ``path`` the dry run of that file starts at once.
        Returns the dialog (open, window-modal)."""
        from app.dialogs.import_glossary import ImportGlossaryDialog

        project = self.win.project
        if project is None:
            self.say("Open a project first: a glossary is imported into a project.")
            return None
        dlg = ImportGlossaryDialog(self.win, src_lang=project.src_lang, tgt_lang=project.tgt_lang,
                                   folders=[r.path for r in project.glossary_refs()], default=own_glossary(project))
        dlg.imported.connect(lambda folder, res: self._imported(project, folder, res))
        dlg.finished.connect(lambda _: self._closed(dlg))
        self.import_dialog = dlg
        dlg.open()
        if path is not None:
            dlg.set_file(Path(path))
        return dlg

    def _closed(self, dlg) -> None:
        if self.import_dialog is dlg:
            self.import_dialog = None
        dlg.deleteLater()

    def _imported(self, project, folder: Path, res) -> None:
        if self.win.project is not project:
            return
        if not listed(project, folder):
            own = folder.resolve() == own_glossary(project).resolve()
            try:
                rel = folder.resolve().relative_to(project.folder.resolve())
            except ValueError:
                rel = folder
            project.add_glossary_ref(rel, writable=own)
        self.say(f"Glossary {folder.name}: {res.added} added, {res.updated} updated.")
        self.win.memory.load_terms(project)

    def attach_glossary_dialog(self) -> None:
        """Glossary ▸ Attach Glossary Folder: list an existing glossary folder in the project."""
        if self.win.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self.win, "Attach glossary folder")
        if folder:
            self.attach_glossary(Path(folder))

    def attach_glossary(self, folder: Path) -> bool:
        """List ``folder`` (a glossary of the project's pair) among the project's glossaries,
        read-only; one line in a message box when it cannot be."""
        project = self.win.project
        if project is None:
            return False
        why = ""
        if not Glossary.exists(folder):
            why = f"{folder}: not a glossary folder (Glossary ▸ Import Glossary makes one from a file)"
        elif listed(project, folder):
            why = f"{folder.name} is already one of the project's glossaries"
        else:
            try:
                with Glossary(folder) as g:
                    src, tgt, n = g.src_lang, g.tgt_lang, len(g)
            except VersoError as e:
                why = str(e).splitlines()[0]
            else:
                if src and not (same_language(src, project.src_lang) and same_language(tgt, project.tgt_lang)):
                    why = (f"{folder.name} is a {pair_text(src, tgt)} glossary; this project is "
                           f"{pair_text(project.src_lang, project.tgt_lang)}")
        if why:
            QMessageBox.warning(self.win, "Attach glossary", why)
            return False
        project.add_glossary_ref(folder.resolve())
        self.say(f"Attached the glossary {folder.name} ({n} entries).")
        self.win.memory.load_terms(project)
        return True

    def offer_glossary_import(self, path: Path, hint: str) -> bool:
        """An imported workbook that reads as a glossary (``hint``): True when the translator
        takes it to Import Glossary instead of importing it as a document."""
        answer = QMessageBox.question(
            self.win, "Import document", f"{path.name}: {hint.split(':')[0]}.\n\n"
            "Import it as a glossary (its terms shown and checked as you translate) instead of as a document?",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        if answer != QMessageBox.Yes:
            return False
        self.import_glossary_dialog(path)
        return True
