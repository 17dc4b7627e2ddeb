"""Project and documents: new, open and recent projects, importing a document, choosing the
document the grid shows, and the counts in the status bar."""
from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QHeaderView, QMessageBox

from engine.errors import VersoError
from engine.store import Project
from engine.store.first_row import first_open_row

from app.controllers.base import Controller
from app.preferences import preferences
from app.segment_model import COL_NUM, COL_SOURCE, COL_STATUS, COL_TARGET, SegmentTableModel

MAX_RECENT = 8
#: in a document's problems when its first sheet reads as a glossary (engine/formats/glossary_hint.py)
GLOSSARY_HINT = "reads as a glossary"
#: what File ▸ Import Document offers (the reader is chosen by content, then extension)
DOCUMENT_FILTER = ("Documents (*.txt *.xlf *.xliff *.sdlxliff *.mqxliff *.po *.pot *.csv *.tsv *.docx *.docm "
                   "*.pptx *.pptm *.xlsx *.xlsm *.idml *.odt *.ods *.odp *.html *.htm *.xhtml *.md *.markdown "
                   "*.properties *.json *.yml *.yaml *.strings *.stringsdict *.resx *.ts *.xml *.srt *.vtt)")


@dataclass(frozen=True)
class ReadsAsGlossary:
    """A document read but not stored: its first sheet reads as a glossary (``hint``)."""

    document: object   # the ParsedDocument
    hint: str


@dataclass(frozen=True)
class OtherLanguagePair:
    """A document read but not stored: its file declares another language pair (``conflict``)."""

    document: object   # the ParsedDocument
    conflict: str


def freeze_heap(collect: bool) -> None:
    """Keep what was just loaded (a document's segments, a TM's tables) out of Python's
    cyclic garbage collector.  A full collection walks every tracked object: with a
    10,000-segment document and a 100k-unit TM open it held the UI thread 70-120 ms
    at unpredictable moments (mid-navigation, mid-typing).  Frozen objects are still
    freed by reference counting when dropped; only cycles among them wait for the next
    ``collect``: unfreeze everything and collect it once (opening a document) before freezing."""
    if collect:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


class DocumentsController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.recent_menu = None
        self._collect_next = False  # a document was loaded before: collect its cycles with the next
        win.doc_combo.currentIndexChanged.connect(self._on_document_chosen)

    def fill_menu(self, name: str, menu) -> None:
        if name != "recent":
            super().fill_menu(name, menu)
        self.recent_menu = menu.addMenu("Open &Recent")
        self._refresh_recent()

    # ------------------------------------------------------------ project
    def set_project(self, project: Project) -> None:
        win = self.win
        self.close_services()
        if win.project is not None and win.project is not project:
            win.project.close()
        win.project = project
        win.setWindowTitle(f"{project.name} [{project.src_lang} → {project.tgt_lang}] — Verso")
        self._remember_recent(project.folder)
        win.memory.project_opened(project)     # the TM thread first: it resends what a crash left owed
        win.machine.project_opened(project)    # the training notice, the suggestion engine
        # The spelling dictionary (and the QA marks, app/controllers/qa_marks.py) once the first
        # segment's TM matches are on screen: app/opening.py says why.
        win.opening.begin()
        win.opening.after_matches(lambda: win.project is project and win.delivery.project_opened(project))
        combo = win.doc_combo
        combo.blockSignals(True)
        combo.clear()
        for d in project.documents():
            combo.addItem(d.name, d.id)
        combo.blockSignals(False)
        if combo.count():
            combo.setCurrentIndex(0)
            self._on_document_chosen(0)
        else:
            self._clear_document()

    def close_services(self) -> None:
        """Stop the TM thread, the suggestion engine and the spelling of the project that goes."""
        self.win.memory.close_tm()
        self.win.machine.close_nmt()
        if self.win.delivery.spell is not None:
            self.win.delivery.spell.close()  # gives its spelling process back
        self.win.delivery.spell, self.win.delivery.spell_ready = None, False

    def close_project(self) -> None:
        self.win.nav.commit_editor()
        self.close_services()
        if self.win.project is not None:
            self.win.project.close()
            self.win.project = None

    def _remember_recent(self, folder) -> None:
        prefs = preferences()
        here = str(Path(folder).resolve())
        prefs.recent = ([here] + [p for p in prefs.recent if p != here])[:MAX_RECENT]
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        if self.recent_menu is None:
            return
        self.recent_menu.clear()
        for p in preferences().recent:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda *_, p=p: self.open_project(Path(p)))

    def new_project_dialog(self) -> None:
        from app.dialogs.project import NewProjectDialog

        dlg = NewProjectDialog(self.win)
        if dlg.exec():
            try:
                project = dlg.create()
            except VersoError as e:
                QMessageBox.critical(self.win, "Verso", str(e))
                return
            self.set_project(project)

    def open_project_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.win, "Open Verso project")
        if folder:
            self.open_project(Path(folder))

    def open_project(self, folder: Path) -> None:
        try:
            self.set_project(Project.open(folder))
        except VersoError as e:
            QMessageBox.critical(self.win, "Verso", str(e))

    # ------------------------------------------------------------ importing
    def import_document_dialog(self) -> None:
        if self.win.project is None:
            return
        path, _ = QFileDialog.getOpenFileName(self.win, "Import document", "", DOCUMENT_FILTER)
        if path:
            self.import_document(Path(path))

    def import_document(self, path: Path, format: str | None = None):
        """Import ``path`` in the background (reading and parsing can take a while on a
        large file); a progress dialog can cancel it, and a cancelled or failed import
        stores nothing (the store imports a document in one transaction).  Without
        ``format``, a document with tracked changes asks whether to accept or refuse them
        (:mod:`app.dialogs.import_doc`).  A file declaring another language pair is asked
        about once read, and the same read is stored on Yes.
        Returns the :class:`~app.workers.Worker` (tests wait on its signals)."""
        from PySide6.QtWidgets import QProgressDialog

        from app.dialogs.import_doc import CANCELLED, format_for

        win = self.win
        if win.project is None:
            return None
        project = win.project
        format = format or format_for(win, path)
        if format == CANCELLED:
            self.say(f"Import of {path.name} cancelled: nothing was stored.")
            return None

        dlg = QProgressDialog(f"Reading {path.name}…", "Cancel", 0, 0, win)
        dlg.setWindowTitle("Import document")
        dlg.setMinimumDuration(400)
        return self._start_import(dlg, project, path, format)

    def _start_import(self, dlg, project: Project, path: Path, format: str | None, parsed=None,
                      answered: frozenset = frozenset()):
        """The import's job: read (unless ``parsed`` was read already) and store.  A document
        comes back unstored to be asked about (unless ``answered`` has its question): a file of
        another language pair as :class:`OtherLanguagePair`, a workbook that reads as a
        glossary as :class:`ReadsAsGlossary`; the translator's Yes stores that same read."""
        from app.dialogs.import_doc import other_pair_accepted, read_for_import
        from app.workers import Worker, start
        from engine.formats.readprogress import Ticker

        win = self.win

        def job(control, path: Path):
            doc, conflict = parsed, ""
            if doc is None:
                control.progress(text=f"Reading {path.name}…")
                with Ticker(lambda n, secs: control.progress(  # from the watcher thread: a queued signal
                        text=f"Reading {path.name}… {n:,} segments read" if n else f"Reading {path.name}… ({secs:.0f} s)")):
                    doc, conflict = read_for_import(path, project, format)
                control.check()
            if conflict and OtherLanguagePair not in answered:
                return OtherLanguagePair(doc, conflict)
            hint = next((p for p in doc.problems if GLOSSARY_HINT in p), "")
            if hint and ReadsAsGlossary not in answered:
                return ReadsAsGlossary(doc, hint)
            control.progress(text=f"Storing {len(doc.segments)} segments of {path.name}…")
            return project.import_parsed(doc, path)

        def done(out) -> None:
            dlg.reset()
            if isinstance(out, OtherLanguagePair):
                if other_pair_accepted(win, path, out.conflict):
                    self._start_import(dlg, project, path, format, out.document, answered | {OtherLanguagePair})
                else:
                    self.say(f"Import of {path.name} cancelled: nothing was stored.")
            elif not isinstance(out, ReadsAsGlossary):
                self._document_imported(path, out)
            elif not win.glossaries.offer_glossary_import(path, out.hint):
                self._start_import(dlg, project, path, format, out.document, answered | {ReadsAsGlossary})

        w = Worker(job, path)
        w.signals.progress.connect(lambda e: dlg.setLabelText(e.get("text", "")))
        w.signals.result.connect(done)
        w.signals.error.connect(lambda msg: (dlg.reset(), QMessageBox.critical(win, "Verso", msg)))
        w.signals.cancelled.connect(lambda: (dlg.reset(), self.say(
            f"Import of {path.name} cancelled: nothing was stored.")))
        dlg.canceled.connect(w.cancel)
        self._import_worker = start(w)
        return w

    def _document_imported(self, path: Path, doc_id: int) -> None:
        self.win.doc_combo.addItem(path.name, doc_id)
        self.win.doc_combo.setCurrentIndex(self.win.doc_combo.count() - 1)
        self.say(f"Imported {path.name}")

    # ------------------------------------------------------------ the document shown
    def _on_document_chosen(self, i: int) -> None:
        if self.win.project is None or i < 0:
            return
        self.show_document(self.win.doc_combo.itemData(i))

    def show_document(self, document_id: int) -> None:
        win = self.win
        win.flow.look_up_first(document_id, first_open_row(win.project, document_id))  # searched as it loads
        model = win.model = SegmentTableModel(win.project, document_id, win)
        win.flow.set_model(model)
        win.editing.document_shown()  # its steps and propagation belong to this document
        model.segmentChanged.connect(lambda _row: self.update_counts())
        win.proxy.setSourceModel(model)
        grid = win.grid
        if grid.model() is not win.proxy:
            grid.setModel(win.proxy)
            grid.selectionModel().currentRowChanged.connect(win.nav.current_changed)
        hh = grid.horizontalHeader()
        # Fixed widths from font metrics, not ResizeToContents: that re-measures every row
        # of the document on each edit (seconds on a 10,000-segment document).
        fm = grid.fontMetrics()
        pad = 3 * fm.horizontalAdvance(" ")
        hh.setSectionResizeMode(COL_NUM, QHeaderView.Fixed)
        hh.resizeSection(COL_NUM, fm.horizontalAdvance(str(max(99, model.rowCount()))) + pad)
        hh.setSectionResizeMode(COL_SOURCE, QHeaderView.Stretch)
        hh.setSectionResizeMode(COL_TARGET, QHeaderView.Stretch)
        hh.setSectionResizeMode(COL_STATUS, QHeaderView.Interactive)
        hh.resizeSection(COL_STATUS, fm.horizontalAdvance("confirmed (TM 100%)") + pad)
        win.flow.row = None
        first = model.next_unconfirmed(-1)
        win.nav.go_to(first if first is not None else 0)
        grid.fit_visible_rows()
        self.update_counts()
        # The window's first document: nothing of a document before to collect, and the full
        # collection (227-474 ms, 2,000 segments, no model, 2-core VM at load 6) held the
        # interpreter lock just as the first segment's TM lookup began.
        freeze_heap(collect=self._collect_next)
        self._collect_next = True

    def _clear_document(self) -> None:
        """A project without documents shows an empty grid, never the previous project's."""
        win = self.win
        win.nav.commit_editor()
        win.model = None
        win.flow.set_model(None)
        win.proxy.setSourceModel(None)
        win.matches.show_message("Import a document (File ▸ Import Document) to start translating.")
        win.glossary.show_message("")
        win.delegate.set_terms(None, ())
        win.machine.clear_panels()
        win.counts_label.setText("")

    def update_counts(self) -> None:
        if self.win.project is None or self.win.model is None:
            return
        c = self.win.model.status_counts()  # kept in memory: no query per edit
        total = sum(c.values())
        self.win.counts_label.setText(f"{c['confirmed']}/{total} confirmed · {c['draft']} draft · {c['new']} new")
