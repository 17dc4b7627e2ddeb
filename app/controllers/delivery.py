"""QA, preview and export: the target language's spelling (underlines, the project dictionary),
the QA and statistics dialogs, the grid's QA marks (``qa_marks.py``), File ▸ Preview
(``app/preview.py``) and File ▸ Export, which runs the QA first and stops at tag errors unless
the translator says otherwise."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.errors import VersoError
from engine.qa import TAG_CHECKS, check_segments, received_ids
from engine.store import Project
from engine.store.qa_ignore import IgnoreList

from app.controllers.base import Controller
from app.controllers.qa_marks import QAMarks
from app.preferences import ProjectSettings


#: The export question names this many findings; the QA check lists them all.
SHOWN_FINDINGS = 8

_spell_pool = None


def spell_pool():
    """The threads that wait for a spelling process's dictionary (German: ~3 s, tens of seconds on a
    busy machine), apart from the shared pool: two such waits (a project opened after another) held
    both of its threads on a 2-core machine, and the QA marks waited for the dictionaries."""
    global _spell_pool
    if _spell_pool is None:
        from PySide6.QtCore import QThreadPool

        _spell_pool = QThreadPool()
        _spell_pool.setMaxThreadCount(2)
    return _spell_pool


def findings_text(issues) -> str:
    """What the export's QA found, one line a finding (segment, check, message), the first
    :data:`SHOWN_FINDINGS` of them and how many more."""
    lines = [f"segment {i.idx + 1}: {i.message} ({i.check})" if i.idx >= 0 else f"{i.message} ({i.check})"
             for i in issues[:SHOWN_FINDINGS]]
    more = len(issues) - SHOWN_FINDINGS
    tail = [f"… and {more} more (QA Check, F8, lists them all; ignore there the ones that are fine)"] if more > 0 else []
    return f"The QA check found {len(issues)} finding(s):\n" + "\n".join(lines + tail)

class DeliveryController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.spell = None          # the target language's SpellChecker once loaded (None: none)
        self.spell_ready = False   # the background load has answered (tests wait on it)
        self.previewer = None
        self.marks = QAMarks(win)  # the grid's QA marks, checked off the UI thread

    # --------------------------------------------------------- spelling
    def project_opened(self, project: Project) -> None:
        """Load the target language's hunspell dictionary off the UI thread (German: ~3 s);
        until then, and without a dictionary, nothing is underlined."""
        from app.workers import Worker, start

        if self.spell is not None:
            self.spell.close()
        self.spell = None
        self.spell_ready = False

        # In a process of its own: spylls is Python, and reading German here held the
        # interpreter lock for over half of an opening, stalling the UI up to 140 ms a time.
        build = project.spell_checker_builder(process=True)

        def job(control):
            return build()

        def done(checker, project=project):
            if self.win.project is not project:
                if checker is not None:
                    checker.close()
                return  # another project was opened meanwhile
            self.spell, self.spell_ready = checker, True
            ed = self.win.editor()
            if ed is not None:
                ed.set_spell_checker(checker, self.add_to_dictionary)

        w = Worker(job)
        w.signals.result.connect(done)
        w.signals.error.connect(lambda msg: done(None))  # no checker: nothing underlined
        self._spell_worker = start(w, spell_pool())

    def add_to_dictionary(self, word: str) -> None:
        """A word the translator added from the right-click menu: kept in the project dictionary."""
        from engine.spelling import ProjectDictionary

        if self.win.project is not None:
            ProjectDictionary(self.win.project.dictionary_path()).add(word)
            self.win.grid.viewport().update()

    # --------------------------------------------------------- QA and statistics
    def qa_dialog(self):
        from app.dialogs.qa import QADialog

        win = self.win
        if win.model is None:
            return None
        win.nav.commit_editor()
        dlg = QADialog(win, win.model.segments(), win.project, self.spell)
        dlg.segmentActivated.connect(lambda idx: win.nav.go_to(idx))
        dlg.findingsChanged.connect(self.marks.refresh)
        dlg.show()
        return dlg

    def statistics_dialog(self):
        from app.dialogs.stats import StatisticsDialog

        if self.win.project is None:
            return None
        dlg = StatisticsDialog(self.win, self.win.project, self.win.tm)
        dlg.show()
        return dlg

    # --------------------------------------------------------- preview
    def preview_document(self):
        """File ▸ Preview (see :mod:`app.preview`); returns the export's worker or None."""
        from app.preview import Previewer

        if self.previewer is None:
            self.previewer = Previewer(self.win)
        return self.previewer.preview()

    # --------------------------------------------------------- export
    def export_path_for(self, document_id: int) -> Path:
        """The path the export dialog proposes: beside the last export of this project, else the
        project's exports folder; the original's name with the target language (guide.de.xlf)."""
        project = self.win.project
        default = project.default_export_path(document_id)
        last = ProjectSettings(project).export_folder
        return Path(last) / default.name if last and Path(last).is_dir() else default

    def export_document_dialog(self) -> None:
        """Run the QA first and show what it found; tag errors stop the export (the client's
        tool would reject the file), other findings are the translator's call."""
        win = self.win
        if win.project is None or win.model is None:
            return
        win.nav.commit_editor()
        info = win.project.document(win.model.document_id)
        segs = win.model.segments()
        issues = check_segments(segs, win.project.qa_options(), spelling=None, received=received_ids(segs))
        issues = [i for i in issues if i.check != "no-dictionary"]
        errors = [i for i in issues if i.check in TAG_CHECKS and i.severity == "error"]
        force = False
        if errors:
            if not self._export_despite_tag_errors(info.name, errors):
                self.qa_dialog()
                return
            force = True
            issues = [i for i in issues if i not in errors]
        issues, _ = IgnoreList(win.project).split(issues)  # what the translator judged fine stays quiet
        if issues and not force:
            answer = QMessageBox.question(win, "Export", findings_text(issues) + "\n\nExport anyway?",
                                          QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
            if answer != QMessageBox.Yes:
                self.qa_dialog()
                return
        proposed = self.export_path_for(info.id)
        proposed.parent.mkdir(parents=True, exist_ok=True)
        path, _ = QFileDialog.getSaveFileName(win, "Export translated document", str(proposed))
        if path:
            self.export_to(info.id, Path(path), force=force)

    def _export_despite_tag_errors(self, name: str, errors) -> bool:
        """Ask whether to export a document whose targets (written or confirmed here) have tag
        errors, naming the segments; True for Export anyway."""
        rows = ", ".join(sorted({str(i.idx + 1) for i in errors}, key=int))
        box = QMessageBox(QMessageBox.Warning, "Export",
                          f"Tag errors in segment(s) {rows} of {name}: the client's tool may reject the file. "
                          "Show them to fix them first, or export anyway.", parent=self.win)
        box.setDetailedText("\n".join(f"segment {i.idx + 1}: {i.message}" for i in errors))
        show = box.addButton("Show them", QMessageBox.RejectRole)
        box.addButton("Export anyway", QMessageBox.AcceptRole)
        box.setDefaultButton(show)
        box.exec()
        return box.clickedButton() is not show

    def export_to(self, document_id: int, path: Path, *, force: bool = False) -> bool:
        try:
            self.win.project.export_document(document_id, path, force=force)
        except VersoError as e:
            QMessageBox.critical(self.win, "Verso", str(e))
            return False
        ProjectSettings(self.win.project).export_folder = str(path.parent)
        from engine.review.export import note

        line = note(self.win.project, self.win.project.document(document_id))  # changes the format cannot hold
        self.say(f"Exported to {path}" + (f". {line}" if line else ""), 10000 if line else 5000)
        return True
