"""The main window: the segment grid of one document, the dockable panels
(TM matches, glossary terms, suggestion, alignment, concordance), menus and dialogs.

Nothing slow runs on the UI thread: TM calls go to :class:`~app.tmservice.TMService`
(one TM thread, in order), translations to :class:`~app.suggest.NMTService`
(one NMT thread, stale answers dropped).
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import gc
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from engine.errors import VersoError
from engine.inline import revision
from engine.store import Project

from app import keymap
from app.findbar import FindBar
from app.grid import SegmentGrid, TargetEditor
from app.panels.alignment import AlignmentPanel
from app.panels.concordance import ConcordancePanel
from app.panels.glossary import GlossaryPanel
from app.panels.matches import MatchesPanel
from app.panels.suggestion import SuggestionPanel
from app.segment_model import (
    COL_NUM,
    COL_SOURCE,
    COL_STATUS,
    COL_TARGET,
    FILTERS,
    SegmentFilter,
    SegmentTableModel,
    compile_find,
    replace_in_target,
)
from app.suggest import NMTService
from engine.qa import TAG_CHECKS, check_segments, received_ids, tag_issues
from engine.resources import default_model_dir
from engine.training.models import serves as model_serves
from app.actions import MATCH_ACTIONS, MENUS, TERM_ACTIONS, SEPARATOR, ActionSpec, Placeholder, specs
from app.history import EditHistory
from app import replace as replacing, undo as undoing
from app.segment_flow import SegmentFlow
from app.preferences import MEMORY_PAIRS, preferences, settings  # noqa: F401  (settings, MEMORY_PAIRS: for tests and scripts)
from app.tmservice import TMService, adapt_tags

AUTOSAVE_MS = 1500
COMPLETE_MS = 400  # typing pause before the suggestion completes the typed prefix
MAX_RECENT = 8


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


class MainWindow(QMainWindow):
    #: Emitted when the panels have been filled for a row: (row, what) with what in
    #: "matches", "suggestion", "forced".  Tests and the latency benchmark wait on it.
    panelUpdated = Signal(int, str)

    def __init__(self, project: Project | None = None, *, nmt: bool = True):
        super().__init__()
        self.project: Project | None = None
        self.model: SegmentTableModel | None = None
        self.proxy = SegmentFilter(self)
        self.tm: TMService | None = None
        self.nmt: NMTService | None = None
        self.use_nmt = nmt
        self.actions_by_id: dict[str, QAction] = {}
        self.history = EditHistory()   # document steps: Edit ▸ Undo Replace all (app/history.py)
        self.seg_states = undoing.SegmentStates()  # what Ctrl+Z in the box returns to (app/undo.py)
        self.spell = None              # the target language's SpellChecker once loaded (None: none)
        self._terms_generation = 0     # a term index built for an older request is dropped
        self.spell_ready = self.terms_ready = False   # the background loads have answered (tests wait on them)
        self.flow = SegmentFlow(self._typed_now, self)   # enter row → TM → suggestion → completion
        self.shown_for: dict[str, int] = {}  # panel -> row it last showed (tests, benchmark)
        self.panelUpdated.connect(lambda row, what: self.shown_for.__setitem__(what, row))
        self.resize(1280, 800)
        self.setDockNestingEnabled(True)

        self.grid = SegmentGrid(self, reserved=self.reserved_shortcuts)
        self.delegate = self.grid.delegate
        self.table = self.grid  # the first window's name, kept for tests and scripts
        self.delegate.editorCreated.connect(self._editor_created)
        self.findbar = FindBar(self)
        self.findbar.hide()
        self.findbar.findChanged.connect(self._apply_find)
        self.findbar.replaceAllRequested.connect(lambda: self.replace_all())
        self.findbar.replaceOneRequested.connect(self.replace_current)
        self.findbar.closed.connect(lambda: self.go_to(self.current_row()))
        central = QWidget(self)
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.findbar)
        lay.addWidget(self.grid)
        self.setCentralWidget(central)

        self.doc_combo = QComboBox(self)
        self.doc_combo.currentIndexChanged.connect(self._on_document_chosen)
        self.filter_combo = QComboBox(self)
        for key, label in FILTERS.items():
            self.filter_combo.addItem(label, key)
        self.filter_combo.currentIndexChanged.connect(
            lambda i: self.set_filter(self.filter_combo.itemData(i)))
        self.counts_label = QLabel(self)
        self.statusBar().addPermanentWidget(self.counts_label)

        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(AUTOSAVE_MS)
        self._autosave.timeout.connect(self.autosave)
        self._complete_timer = QTimer(self)   # interactive translation: complete after a typing pause
        self._complete_timer.setSingleShot(True)
        self._complete_timer.setInterval(COMPLETE_MS)
        self._complete_timer.timeout.connect(self._request_completion)

        self._build_panels()
        self._connect_flow()
        self._build_actions()
        self.apply_preset(str(preferences().preset))
        if project is not None:
            self.set_project(project)
        else:
            self.setWindowTitle("Verso")

    # ------------------------------------------------------------ panels
    def _dock(self, title: str, widget: QWidget, area, name: str) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(name)
        d.setWidget(widget)
        self.addDockWidget(area, d)
        return d

    def _build_panels(self) -> None:
        self.matches = MatchesPanel(self)
        self.matches.insertRequested.connect(self.insert_match)
        self.glossary = GlossaryPanel(self)
        self.glossary.insertRequested.connect(self.insert_term)
        self.suggestion = SuggestionPanel(self)
        self.suggestion.insertRequested.connect(self.insert_suggestion)
        self.suggestion.completionRequested.connect(self.insert_completion)
        self.alignment = AlignmentPanel(self)
        self.alignment.wordClicked.connect(self._alignment_clicked)
        self.alignment.choice.currentIndexChanged.connect(lambda i: i == 1 and self.flow.score_own_target())
        self.concordance = ConcordancePanel(self)
        self.concordance.searchRequested.connect(self._concordance_search)
        self.dock_matches = self._dock("TM matches", self.matches, Qt.RightDockWidgetArea, "dockMatches")
        self.dock_glossary = self._dock("Glossary", self.glossary, Qt.RightDockWidgetArea, "dockGlossary")
        self.dock_suggestion = self._dock("Suggestion", self.suggestion, Qt.RightDockWidgetArea, "dockSuggestion")
        self.dock_alignment = self._dock("Alignment", self.alignment, Qt.BottomDockWidgetArea, "dockAlignment")
        self.dock_concordance = self._dock("Concordance", self.concordance, Qt.BottomDockWidgetArea,
                                           "dockConcordance")
        self.tabifyDockWidget(self.dock_alignment, self.dock_concordance)
        self.dock_alignment.raise_()
        self.resizeDocks([self.dock_matches, self.dock_suggestion], [420, 420], Qt.Horizontal)
        self.resizeDocks([self.dock_matches, self.dock_glossary, self.dock_suggestion], [320, 160, 320], Qt.Vertical)
        self.resizeDocks([self.dock_alignment], [230], Qt.Vertical)

    # ------------------------------------------------------------ actions
    def _action(self, spec: ActionSpec, menu=None) -> QAction:
        """The QAction of one row of the action table (``app/actions.py``)."""
        a = QAction(spec.text, self)
        a.setShortcutContext(Qt.WindowShortcut)
        slot, args = getattr(self, spec.slot), spec.args
        a.triggered.connect(lambda *_: slot(*args))
        if menu is not None:
            menu.addAction(a)
        self.addAction(a)
        self.actions_by_id[spec.id] = a
        self._specs[spec.id] = spec
        return a

    def _fixed_keys(self, spec: ActionSpec) -> list[QKeySequence]:
        return [QKeySequence(getattr(QKeySequence.StandardKey, k)) if hasattr(QKeySequence.StandardKey, k)
                else QKeySequence(k) for k in spec.keys]

    def _build_actions(self) -> None:
        self._specs: dict[str, ActionSpec] = {}
        mb = self.menuBar()
        for title, entries in MENUS:
            menu = mb.addMenu(title)
            for entry in entries:
                if entry is SEPARATOR:
                    menu.addSeparator()
                elif isinstance(entry, Placeholder):
                    self._fill_placeholder(entry.name, menu)
                else:
                    self._action(entry, menu)
        a = self.actions_by_id
        self.act_confirm, self.act_prev, self.act_next = a["confirm"], a["prev"], a["next"]
        self.act_copy_source, self.act_next_tag = a["copy_source"], a["next_tag"]
        self.act_insert_suggestion, self.act_concordance = a["insert_suggestion"], a["concordance"]
        # Right-click in the grid: the segment actions the table marks for it.
        self.grid.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for spec in specs():
            if spec.grid_menu:
                self.grid.addAction(a[spec.id])

        tb = QToolBar("Document", self)
        tb.setObjectName("documentToolbar")
        tb.addWidget(QLabel(" Document: "))
        tb.addWidget(self.doc_combo)
        tb.addSeparator()
        tb.addWidget(QLabel(" Show: "))
        tb.addWidget(self.filter_combo)
        tb.addSeparator()
        tb.addAction(self.act_confirm)
        self.addToolBar(tb)

    def editor_menu_actions(self) -> list[QAction]:
        """The window's actions at the bottom of the target box's right-click menu."""
        return [self.actions_by_id[s.id] for s in specs() if s.editor_menu]

    def _fill_placeholder(self, name: str, menu) -> None:
        if name == "recent":
            self.recent_menu = menu.addMenu("Open &Recent")
            self._refresh_recent()
        elif name == "matches":
            mm = menu.addMenu("Insert TM &Match")
            for spec in MATCH_ACTIONS:
                self._action(spec, mm)
        elif name == "terms":
            gm = menu.addMenu("Insert &Glossary Term")
            for spec in TERM_ACTIONS:
                self._action(spec, gm)
        elif name == "propagate":
            self.act_doc_propagate = QAction("Auto-propagate in This &Document", self)
            self.act_doc_propagate.setCheckable(True)
            self.act_doc_propagate.setChecked(True)
            self.act_doc_propagate.toggled.connect(self._set_doc_propagation)
            menu.addAction(self.act_doc_propagate)
        elif name == "filters":
            fm = menu.addMenu("&Filter")
            for key, label in FILTERS.items():
                act = fm.addAction(label)
                act.triggered.connect(lambda *_, key=key: self.set_filter(key))
        elif name == "panels":
            for d in (self.dock_matches, self.dock_glossary, self.dock_suggestion, self.dock_alignment,
                      self.dock_concordance):
                menu.addAction(d.toggleViewAction())

    def apply_preset(self, preset: str) -> None:
        """Bind every action to the shortcuts of ``preset`` (``trados`` or ``omegat``); menus show them."""
        self.preset = preset if preset in keymap.PRESETS else keymap.DEFAULT_PRESET
        for aid, act in self.actions_by_id.items():
            keys = keymap.shortcuts(self.preset, aid)
            act.setShortcuts([QKeySequence(k) for k in keys] if keys else self._fixed_keys(self._specs[aid]))

    def reserved_shortcuts(self) -> set[str]:
        """Shortcuts the target editor must let through to the window's actions."""
        out = set()
        for aid, act in self.actions_by_id.items():
            if aid in ("undo", "redo"):
                continue  # the editor's own undo comes first
            out.update(k.toString() for k in act.shortcuts())
        return out

    # ------------------------------------------------------------ project
    def set_project(self, project: Project) -> None:
        self._close_services()
        if self.project is not None and self.project is not project:
            self.project.close()
        self.project = project
        self.setWindowTitle(f"{project.name} [{project.src_lang} → {project.tgt_lang}] — Verso")
        self._remember_recent(project.folder)
        self.tm = TMService(project, self)
        self.flow.set_tm(self.tm)
        self.flow.set_terms(None)  # the last project's terms go; this one's load below
        self.tm.lookups.failed.connect(lambda key, msg: self.matches.show_message(f"TM search failed: {msg}"))
        self.tm.concordances.ready.connect(lambda key, hits: self.concordance.show_hits(hits))
        self.tm.failed.connect(lambda msg: self.statusBar().showMessage(f"TM: {msg}", 8000))
        self.tm.opened.connect(lambda n: freeze_heap(collect=False))  # the TMs' long-lived objects
        self.tm.opened.connect(lambda n: self._segment_entered(self.current_row()) if self.model else None)
        self.tm.indexing.connect(lambda msg: self.statusBar().showMessage(msg, 3000) if msg else None)
        resent = self.tm.send_pending(project)  # queued after the TMs open, before any lookup
        if resent:
            self.statusBar().showMessage(f"{resent} confirmed segment(s) the last session did not finish "
                                         "writing are being added to the TM.", 8000)
        if not self.tm.infos:
            self.matches.show_message("No TM attached to this project (File ▸ Import TMX adds one).")
        self._load_spelling(project)
        self._load_terms(project)
        self._training_notice(project)
        if self.use_nmt:
            self._start_nmt(default_model_dir(project))
        else:
            self.suggestion.show_message("Machine suggestions are off.")
        self.doc_combo.blockSignals(True)
        self.doc_combo.clear()
        for d in project.documents():
            self.doc_combo.addItem(d.name, d.id)
        self.doc_combo.blockSignals(False)
        if self.doc_combo.count():
            self.doc_combo.setCurrentIndex(0)
            self._on_document_chosen(0)
        else:
            self._clear_document()

    def _clear_document(self) -> None:
        """A project without documents shows an empty grid, never the previous project's."""
        self.commit_editor()
        self.model = None
        self.flow.set_model(None)
        self.proxy.setSourceModel(None)
        self.matches.show_message("Import a document (File ▸ Import Document) to start translating.")
        self.glossary.show_message("")
        self.delegate.set_terms(None, ())
        if self.nmt is None:
            self.suggestion.show_message("")
        else:
            self.suggestion.working()
            self.suggestion.status.setText("")
        self.alignment.set_suggestion(None)
        self.alignment.set_forced(None)
        self.counts_label.setText("")

    def _load_spelling(self, project: Project) -> None:
        """Load the target language's hunspell dictionary off the UI thread (German: ~3 s);
        until then, and without a dictionary, nothing is underlined."""
        from app.workers import Worker, start

        self.spell = None
        self.spell_ready = False

        def job(control, project=project):
            return project.spell_checker()

        def done(checker, project=project):
            if self.project is not project:
                return  # another project was opened meanwhile
            self.spell, self.spell_ready = checker, True
            ed = self.editor()
            if ed is not None:
                ed.set_spell_checker(checker, self._add_to_dictionary)

        w = Worker(job)
        w.signals.result.connect(done)
        w.signals.error.connect(lambda msg: done(None))  # no checker: nothing underlined
        self._spell_worker = start(w)

    def _load_terms(self, project: Project) -> None:
        """Build the project's term index (every glossary's source terms, stemmed) off the UI
        thread, when the project opens and after a term is added; until it is ready the
        glossary panel says so.  Looking a segment up in it then costs well under a millisecond."""
        from app.workers import Worker, start

        from engine.glossary import load_term_index

        self._terms_generation += 1
        gen = self._terms_generation
        refs, lang = project.glossary_refs(), project.src_lang  # read here: the project is the UI thread's
        if self.flow.terms is None:
            self.glossary.show_message("Loading the glossaries…" if refs else self._no_glossary_text())

        def job(control):
            return load_term_index([r.path for r in refs], lang)

        def done(index):
            if self.project is project and gen == self._terms_generation:  # not another project, not stale
                self.terms_ready = True
                self.flow.set_terms(index)

        def failed(msg):
            if self.project is project and gen == self._terms_generation:
                self.terms_ready = True
                self.glossary.show_message(f"The glossaries could not be read: {msg}")

        self.terms_ready = False
        w = Worker(job)
        w.signals.result.connect(done)
        w.signals.error.connect(failed)
        self._terms_worker = start(w)

    @staticmethod
    def _no_glossary_text() -> str:
        return "This project has no glossary (Tools ▸ Add Term to Glossary, Ctrl+Shift+G, starts one)."

    def _add_to_dictionary(self, word: str) -> None:
        """A word the translator added from the right-click menu: kept in the project dictionary."""
        from engine.spelling import ProjectDictionary

        if self.project is not None:
            ProjectDictionary(self.project.dictionary_path()).add(word)
            self.grid.viewport().update()

    def _close_services(self) -> None:
        self.flow.set_tm(None)
        self.flow.set_nmt(None)
        if self.tm is not None:
            self.tm.close()
            self.tm.deleteLater()
            self.tm = None
        if self.nmt is not None:
            self.nmt.close()
            self.nmt.deleteLater()
            self.nmt = None

    def _on_document_chosen(self, i: int) -> None:
        if self.project is None or i < 0:
            return
        self.show_document(self.doc_combo.itemData(i))

    def show_document(self, document_id: int) -> None:
        self.model = SegmentTableModel(self.project, document_id, self)
        self.flow.set_model(self.model)
        self.history.clear()  # steps name segments of the document they were made in
        undoing.steps_changed(self)  # the Edit menu names no step of another document
        self.model.segmentChanged.connect(lambda _row: self._update_counts())
        self._sync_doc_propagation()
        self.proxy.setSourceModel(self.model)
        if self.grid.model() is not self.proxy:
            self.grid.setModel(self.proxy)
            self.grid.selectionModel().currentRowChanged.connect(self._current_changed)
        hh = self.grid.horizontalHeader()
        # Fixed widths from font metrics, not ResizeToContents: that re-measures every row
        # of the document on each edit (seconds on a 10,000-segment document).
        fm = self.grid.fontMetrics()
        pad = 3 * fm.horizontalAdvance(" ")
        hh.setSectionResizeMode(COL_NUM, QHeaderView.Fixed)
        hh.resizeSection(COL_NUM, fm.horizontalAdvance(str(max(99, self.model.rowCount()))) + pad)
        hh.setSectionResizeMode(COL_SOURCE, QHeaderView.Stretch)
        hh.setSectionResizeMode(COL_TARGET, QHeaderView.Stretch)
        hh.setSectionResizeMode(COL_STATUS, QHeaderView.Interactive)
        hh.resizeSection(COL_STATUS, fm.horizontalAdvance("confirmed (TM 100%)") + pad)
        self._row = None
        first = self.model.next_unconfirmed(-1)
        self.go_to(first if first is not None else 0)
        self.grid.fit_visible_rows()
        self._update_counts()
        freeze_heap(collect=True)

    def _sync_doc_propagation(self) -> None:
        if self.project is None or self.model is None:
            return
        self.act_doc_propagate.blockSignals(True)
        self.act_doc_propagate.setChecked(
            self.project.setting(f"propagate/{self.model.document_id}", "true") == "true")
        self.act_doc_propagate.blockSignals(False)

    def _update_counts(self) -> None:
        if self.project is None or self.model is None:
            return
        c = self.model.status_counts()  # kept in memory: no query per edit
        total = sum(c.values())
        self.counts_label.setText(f"{c['confirmed']}/{total} confirmed · {c['draft']} draft · {c['new']} new")

    # --------------------------------------------------------- navigation
    def current_row(self) -> int:
        """The current segment's row in the document (not in the filtered view)."""
        idx = self.grid.currentIndex()
        if not idx.isValid():
            return self._row or 0
        return self.proxy.mapToSource(idx).row()

    def go_to(self, row: int, edit: bool = True) -> None:
        if self.model is None or not self.model.rowCount():
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        pidx = self.proxy.mapFromSource(self.model.index(row, COL_TARGET))
        if not pidx.isValid():  # filtered out: show everything again
            self.set_filter("all", clear_find=True)
            pidx = self.proxy.mapFromSource(self.model.index(row, COL_TARGET))
        self.grid.reveal(pidx)  # before the move: the move's own scrolling then has nothing to do
        self.grid.setCurrentIndex(pidx)
        self.grid.scrollTo(pidx)
        if edit:
            self.grid.edit(pidx)
        if self._row != row:
            self._segment_entered(row)

    def step(self, delta: int) -> None:
        """Previous/next segment among the rows the filter shows."""
        self.commit_editor()
        idx = self.grid.currentIndex()
        prow = (idx.row() if idx.isValid() else 0) + delta
        if 0 <= prow < self.proxy.rowCount():
            self.go_to(self.proxy.mapToSource(self.proxy.index(prow, COL_TARGET)).row())

    def go_next_unconfirmed(self) -> None:
        self.commit_editor()
        if self.model is not None:
            nxt = self.model.next_unconfirmed(self.current_row())
            if nxt is not None:
                self.go_to(nxt)

    def _current_changed(self, cur, prev) -> None:
        if cur.isValid():
            row = self.proxy.mapToSource(cur).row()
            if row != self._row:
                self._segment_entered(row)

    def editor(self) -> TargetEditor | None:
        return self.delegate.editor

    def _typed_now(self) -> str | None:
        """What the open target box holds (None when none is open)."""
        ed = self.editor()
        return ed.segment_text() if ed is not None else None

    def _typed_text(self, row: int) -> str | None:
        """The text in the target editor open on document ``row``; None when no editor is open there."""
        if self.model is None:
            return None
        pidx = self.proxy.mapFromSource(self.model.index(row, COL_TARGET))
        ed = self.grid.indexWidget(pidx) if pidx.isValid() else None
        return ed.segment_text() if isinstance(ed, TargetEditor) and ed.loaded else None

    def commit_editor(self) -> None:
        self._autosave.stop()
        self.delegate.commit_open_editor()

    def _editor_created(self, ed: TargetEditor) -> None:
        ed.textChanged.connect(self._autosave.start)
        ed.textChanged.connect(self._complete_timer.start)
        ed.set_spell_checker(self.spell, self._add_to_dictionary)
        ed.menu_actions = self.editor_menu_actions()

    def autosave(self) -> None:
        """Write what is typed to the project as a draft (also done on every move)."""
        self.delegate.commit_open_editor()

    # --------------------------------------------------------- segment entered
    @property
    def _row(self) -> int | None:
        """The row whose panels are shown (the flow's current row)."""
        return self.flow.row

    @_row.setter
    def _row(self, row: int | None) -> None:
        self.flow.row = row

    def _context(self, row: int) -> list[str]:
        return self.flow.context(row)

    def _segment_entered(self, row: int) -> None:
        if self.model is None or not (0 <= row < self.model.rowCount()):
            return
        self.seg_states.enter(self.model.segment(row))
        self.shown_for.clear()
        self.grid.delegate.set_highlight(None, ())
        if any(revision(t) for t in self.model.segment(row).target.tags):
            self.statusBar().showMessage(
                f"Segment {row + 1} holds tracked changes from another tool (struck through: deleted, underlined: "
                "inserted). They stay as they are; editing the segment accepts them, as memoQ and Trados do.", 8000)
        self.flow.enter(row)

    def _connect_flow(self) -> None:
        """The panels follow the segment flow (app/segment_flow.py)."""
        f = self.flow
        f.translating.connect(lambda row: self.suggestion.working())
        f.searching.connect(lambda row: self.matches.searching())
        f.matchesReady.connect(self._show_matches)
        f.suggestionReady.connect(self._show_suggestion)
        f.completionReady.connect(self._show_completion)
        f.forcedReady.connect(self._show_forced)
        f.termsReady.connect(self._show_terms)

    def _show_matches(self, row: int, source, found) -> None:
        self.matches.show_matches(source, found)
        self.panelUpdated.emit(row, "matches")

    def _show_suggestion(self, row: int, view, tags) -> None:
        self.suggestion.show_view(view, tags)
        self.alignment.set_suggestion(view)
        self.panelUpdated.emit(row, "suggestion")

    def _show_completion(self, row: int, view, tags) -> None:
        self.suggestion.show_completion(view, tags)
        self.panelUpdated.emit(row, "completion")

    def _show_forced(self, row: int, view) -> None:
        self.alignment.set_forced(view)
        self.panelUpdated.emit(row, "forced")

    def _show_terms(self, row: int, hits) -> None:
        source = self.model.segment(row).source.text if self.model is not None else None
        self.delegate.set_terms(source, [(h.start, h.end) for h in hits])
        if self.flow.terms is not None:
            self.glossary.show_hits(hits)
        elif getattr(self, "terms_ready", False):
            self.glossary.show_message(self._no_glossary_text())
        self.panelUpdated.emit(row, "terms")

    def _request_completion(self) -> None:
        self.flow.complete(self.suggestion.current)

    def _alignment_clicked(self, i: int, src_idx: list) -> None:
        view = self.alignment.heat.view
        if view is None:
            return
        words = [view.src_words[j] for j in src_idx if j < len(view.src_words)]
        self.statusBar().showMessage(f"“{view.words[i]}” ← " + ", ".join(f"“{w}”" for w in words), 6000)
        if self._row is not None:
            self.grid.delegate.set_highlight(self.model.segment(self._row).source.text, words)

    # --------------------------------------------------------- editing actions
    def _put_in_editor(self, text: str, *, origin: str, score: float | None, label: str = "Insert") -> None:
        """Replace the target: one step of the box's own undo, apart from the typing around it."""
        undoing.put_in_editor(self, text, origin=origin, score=score)

    def _refresh_editor(self, row: int) -> None:
        ed = self.editor()
        if ed is not None and self.current_row() == row:
            seg = self.model.segment(row)
            ed.set_segment_text(seg.target.text, seg.source.tags)

    def insert_match(self, n: int) -> None:
        """Ctrl+N: put TM match N (0-based here) into the target."""
        if self.model is None or not (0 <= n < len(self.matches.matches)):
            self.statusBar().showMessage(f"There is no match {n + 1}.", 3000)
            return
        fm = self.matches.matches[n]
        seg = self.model.segment(self.current_row())
        self._put_in_editor(adapt_tags(fm.match, seg.source), origin="tm", score=fm.match.score,
                            label=f"Insert match {n + 1}")
        self.tm.record_use(fm.match.entry.id, fm.tm)

    def insert_term(self, n: int) -> None:
        """Ctrl+Alt+N: the preferred target term of glossary term N (0-based here) at the cursor
        of the target box, as one undo step of the box."""
        entries = self.glossary.entries
        if self.model is None or not (0 <= n < len(entries)) or not entries[n].target:
            self.statusBar().showMessage(f"There is no glossary term {n + 1}.", 3000)
            return
        ed = self.editor()
        if ed is None:
            self.go_to(self.current_row())
            ed = self.editor()
        if ed is None:
            return
        cur = ed.textCursor()
        cur.beginEditBlock()
        cur.insertText(entries[n].target)
        cur.endEditBlock()
        # Qt merges an insertion and the typing right after it into one undo command;
        # an unmodified document starts a new one, so Ctrl+Z takes the term alone.
        ed.document().setModified(False)
        ed.setTextCursor(cur)
        ed.setFocus()

    def add_term_dialog(self):
        """Ctrl+Shift+G: a term for the project's glossary, the target prefilled from the text
        selected in the target box, the source from the source words highlighted in the grid
        (a word clicked in the alignment panel).  Returns the dialog (open, window-modal)."""
        from app.dialogs.add_term import AddTermDialog

        if self.project is None:
            return None
        ed = self.editor()
        target = ed.textCursor().selectedText().replace("\u2029", " ") if ed is not None else ""
        target = "".join(ch for ch in target if not 0xE000 <= ord(ch) <= 0xF8FF)  # no tag chips in a term
        source = ""
        hl = self.delegate.highlight
        if hl is not None and self.model is not None and self._row is not None \
                and hl[0] == self.model.segment(self._row).source.text:
            source = " ".join(hl[1])
        dlg = AddTermDialog(self, source=source, target=target, src_lang=self.project.src_lang,
                            tgt_lang=self.project.tgt_lang)
        dlg.accepted.connect(lambda: self.add_term(dlg.entry()))
        dlg.open()
        return dlg

    def add_term(self, entry) -> bool:
        """Write ``entry`` (a GlossaryEntry) to the project's writable glossary and rebuild the
        term index, so the glossary panel shows it at once."""
        from app.dialogs.add_term import save_term

        if self.project is None:
            return False
        try:
            stored = save_term(self.project, entry)
        except VersoError as e:
            QMessageBox.critical(self, "Verso", f"The term was not added: {e}")
            return False
        self.statusBar().showMessage(f"Added to the glossary: {stored.source} → {stored.target}", 5000)
        self._load_terms(self.project)
        return True

    def insert_suggestion(self) -> None:
        """Ctrl+0: the machine suggestion for this segment's source (never a completion)."""
        view = self.suggestion.current
        if self.model is None or view is None \
                or view.source != self.model.segment(self.current_row()).source.text:
            self.statusBar().showMessage("No machine suggestion for this segment yet.", 3000)
            return
        self._put_in_editor(view.text, origin="mt", score=None, label="Insert machine suggestion")

    def insert_completion(self) -> None:
        """Ctrl+Shift+0: what was typed plus the engine's completion of it."""
        view = self.suggestion.completion
        ed = self.editor()
        if self.model is None or view is None or ed is None or not view.text.startswith(ed.segment_text()):
            self.statusBar().showMessage("No completion of what you typed yet.", 3000)
            return
        self._put_in_editor(view.text, origin="mt", score=None, label="Use completion")

    def copy_source(self) -> None:
        if self.model is None:
            return
        seg = self.model.segment(self.current_row())
        self._put_in_editor(seg.source.text, origin="human", score=None, label="Copy source")

    def insert_next_tag(self) -> None:
        ed = self.editor()
        if ed is not None and not ed.insert_next_tag():
            self.statusBar().showMessage("Every tag of the source is already in the target.", 3000)

    def undo(self) -> None:
        """Ctrl+Z: the current segment's own edits (typing, insertions), never another segment's."""
        undoing.undo_in_segment(self)

    def redo(self) -> None:
        undoing.undo_in_segment(self, redo=True)

    def undo_step(self, redo: bool = False) -> None:
        """Edit ▸ Undo/Redo Replace all: the newest document step, by name."""
        undoing.undo_step(self, redo)

    def confirm_and_next(self) -> None:
        """Ctrl+Enter: save what is typed, confirm (project + writable TM), go to the next unconfirmed."""
        if self.model is None:
            return
        row = self.current_row()
        typed = self._typed_text(row)
        if typed is None:
            self.commit_editor()  # an editor elsewhere (or none): save it as before
        else:
            self._autosave.stop()  # what is typed is confirmed below, in the same single write
        target = self.model.confirm_target(row, typed)
        if not target.plain().strip() and not target.tag_count:
            if typed is not None:
                self.commit_editor()  # keep the (empty) edit as a draft, as before
            self.statusBar().showMessage(f"Segment {row + 1} has no translation to confirm.", 4000)
            return
        source = self.model.segment(row).source
        tag_errors = tag_issues(0, row, source, target)
        if tag_errors and not self._confirm_despite_tag_errors(row, tag_errors):
            if typed is not None:
                self.commit_editor()  # what was typed stays, as a draft
            return
        to_tm = None if tag_errors else replacing.tm_meta(self)
        entered = self.model.segment(row)
        was = self.seg_states.entered if self.seg_states.segment_id == entered.id else None
        if was is not None and not (was.status == "confirmed" and was.text != target.text):
            was = None  # only a confirmed translation corrected replaces its TM unit
        replaces = entered.source.with_text(was.text) if was is not None and to_tm is not None else None
        try:
            seg = self.model.confirm(row, typed, tm_meta=to_tm, tm_replaces=replaces)  # the TM write is owed
        except VersoError as e:
            QMessageBox.critical(self, "Verso", str(e))
            return
        self.seg_states.enter(seg, force=True)
        if tag_errors:
            # Confirmed as the translator chose, but a target with broken tags never goes to the
            # TM: it would come back as a 100 % match and break the next file too.
            self.statusBar().showMessage(f"Segment {row + 1} confirmed with tag errors; it was not added "
                                         "to the TM.", 6000)
        elif to_tm is not None:
            project = self.project
            written = (lambda sid=seg.id: project.tm_written([sid]))
            if replaces is not None:
                # a confirmed translation corrected: its TM unit takes the new target (no second unit)
                self.tm.replace(seg.source, replaces, seg.target, to_tm, on_written=written)
            else:
                self.tm.add(seg.source, seg.target, to_tm, on_written=written)
        propagated = self._propagate(row) if self.propagation_on() else 0
        # (the confirmed row was refitted by the grid when the model reported the change)
        nxt = self.model.next_unconfirmed(row)
        if propagated:
            self.statusBar().showMessage(f"Propagated to {propagated} identical segment(s) as drafts.", 5000)
        if nxt is None:
            self.statusBar().showMessage("All segments are confirmed.", 5000)
            self.go_to(row, edit=False)
        else:
            self.go_to(nxt)

    def propagation_on(self) -> bool:
        """Auto-propagation: on in Settings (all documents) and not switched off for this document."""
        if not preferences().propagate or self.project is None or self.model is None:
            return False
        return self.project.setting(f"propagate/{self.model.document_id}", "true") == "true"

    def _set_doc_propagation(self, on: bool) -> None:
        if self.project is not None and self.model is not None:
            self.project.set_setting(f"propagate/{self.model.document_id}", "true" if on else "false")

    def _propagate(self, row: int) -> int:
        seg = self.model.segment(row)
        rows = [r for r in self.model.same_source_rows(row)
                if self.model.segment(r).status == "new" or not self.model.segment(r).target.text.strip()]
        self.model.set_targets(rows, seg.target, origin="tm", origin_score=1.0)  # one write for all of them
        return len(rows)

    # --------------------------------------------------------- filter, find, replace
    def set_filter(self, mode: str, clear_find: bool = False) -> None:
        self.commit_editor()
        keep = self.current_row() if self.model else 0
        if clear_find and self.findbar.find_edit.text():
            self.findbar.find_edit.blockSignals(True)
            self.findbar.find_edit.clear()
            self.findbar.find_edit.blockSignals(False)
            self.proxy.set_find("")
        self.proxy.set_mode(mode)
        i = self.filter_combo.findData(mode)
        if i >= 0 and self.filter_combo.currentIndex() != i:
            self.filter_combo.blockSignals(True)
            self.filter_combo.setCurrentIndex(i)
            self.filter_combo.blockSignals(False)
        self.grid.fit_visible_rows()
        if self.model is not None and self.proxy.rowCount():
            pidx = self.proxy.mapFromSource(self.model.index(keep, COL_TARGET))
            if pidx.isValid():
                self.grid.setCurrentIndex(pidx)
            else:
                self.grid.setCurrentIndex(self.proxy.index(0, COL_TARGET))

    def open_find(self, replace: bool) -> None:
        ed = self.editor()
        sel = ed.textCursor().selectedText() if ed is not None else ""
        self.findbar.open(replace, sel)

    def _find_pattern(self):
        text = self.findbar.find_edit.text()
        return compile_find(text, case=self.findbar.case.isChecked(), regex=self.findbar.regex.isChecked()) \
            if text else None

    def _apply_find(self) -> None:
        self.commit_editor()
        self.proxy.set_find(self.findbar.find_edit.text(), case=self.findbar.case.isChecked(),
                            regex=self.findbar.regex.isChecked())
        self.delegate.set_find(self._find_pattern())
        n = self.proxy.rowCount()
        self.findbar.result.setText(f"{n} segment{'s' if n != 1 else ''}" if self.findbar.find_edit.text() else "")
        self.grid.fit_visible_rows()
        if n:
            self.grid.setCurrentIndex(self.proxy.index(0, COL_TARGET))

    def replace_plan(self) -> list[tuple[int, str]]:
        """(row, new target text) of every target the find bar's replacement would change."""
        pat = self._find_pattern()
        if pat is None or self.model is None:
            return []
        rep = self.findbar.replace_edit.text()
        out = []
        for r in range(self.model.rowCount()):
            new = replace_in_target(self.model.segment(r), pat, rep, regex=self.findbar.regex.isChecked())
            if new is not None:
                out.append((r, new))
        return out

    def replace_all(self, *, ask: bool = True, keep_confirmed: bool = True) -> int:
        """Replace in every target after a preview; one named document step (app/replace.py)."""
        return replacing.replace_all(self, ask=ask, keep_confirmed=keep_confirmed)

    def replace_current(self) -> None:
        replacing.replace_current(self)

    # --------------------------------------------------------- concordance
    def open_concordance(self) -> None:
        ed = self.editor()
        sel = ed.textCursor().selectedText().strip() if ed is not None else ""
        self.dock_concordance.show()
        self.dock_concordance.raise_()
        self.concordance.edit.setFocus()
        if sel:
            self.concordance.search(sel)

    def _concordance_search(self, phrase: str, side: str) -> None:
        if self.tm is None or not self.tm.infos:
            self.concordance.show_hits([])
            return
        self.tm.concordance(phrase, phrase, side)

    # ------------------------------------------------------------ dialogs
    def _remember_recent(self, folder) -> None:
        prefs = preferences()
        here = str(Path(folder).resolve())
        prefs.recent = ([here] + [p for p in prefs.recent if p != here])[:MAX_RECENT]
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        if not hasattr(self, "recent_menu"):
            return
        self.recent_menu.clear()
        for p in preferences().recent:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda *_, p=p: self.open_project(Path(p)))

    def new_project_dialog(self) -> None:
        from app.dialogs.project import NewProjectDialog

        dlg = NewProjectDialog(self)
        if dlg.exec():
            try:
                project = dlg.create()
            except VersoError as e:
                QMessageBox.critical(self, "Verso", str(e))
                return
            self.set_project(project)

    def open_project_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open Verso project")
        if folder:
            self.open_project(Path(folder))

    def open_project(self, folder: Path) -> None:
        try:
            self.set_project(Project.open(folder))
        except VersoError as e:
            QMessageBox.critical(self, "Verso", str(e))

    def import_document_dialog(self) -> None:
        if self.project is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Import document", "", "Documents (*.txt *.xlf *.xliff *.sdlxliff *.mqxliff *.po *.pot *.csv *.tsv *.docx *.docm *.odt *.ods *.odp *.html *.htm *.xhtml *.md *.markdown)")
        if path:
            self.import_document(Path(path))

    def import_document(self, path: Path, format: str | None = None):
        """Import ``path`` in the background (reading and parsing can take a while on a
        large file); a progress dialog can cancel it, and a cancelled or failed import
        stores nothing (the store imports a document in one transaction).  Without
        ``format``, a document with tracked changes asks whether to accept or refuse them
        (:mod:`app.dialogs.import_doc`).
        Returns the :class:`~app.workers.Worker` (tests wait on its signals)."""
        from PySide6.QtWidgets import QProgressDialog

        from app.dialogs.import_doc import CANCELLED, format_for
        from app.workers import Worker, start

        if self.project is None:
            return None
        project = self.project
        format = format or format_for(self, path)
        if format == CANCELLED:
            self.statusBar().showMessage(f"Import of {path.name} cancelled: nothing was stored.", 5000)
            return None

        def job(control, path: Path) -> int:
            from engine.formats import read_document

            control.progress(text=f"Reading {path.name}…")
            parsed = read_document(path, src_lang=project.src_lang, tgt_lang=project.tgt_lang, format=format)
            control.check()
            control.progress(text=f"Storing {len(parsed.segments)} segments of {path.name}…")
            return project.import_parsed(parsed, path)

        dlg = QProgressDialog(f"Reading {path.name}…", "Cancel", 0, 0, self)
        dlg.setWindowTitle("Import document")
        dlg.setMinimumDuration(400)
        w = Worker(job, path)
        w.signals.progress.connect(lambda e: dlg.setLabelText(e.get("text", "")))
        w.signals.result.connect(lambda doc_id: (dlg.reset(), self._document_imported(path, doc_id)))
        w.signals.error.connect(lambda msg: (dlg.reset(), QMessageBox.critical(self, "Verso", msg)))
        w.signals.cancelled.connect(lambda: (dlg.reset(), self.statusBar().showMessage(
            f"Import of {path.name} cancelled: nothing was stored.", 5000)))
        dlg.canceled.connect(w.cancel)
        self._import_worker = start(w)
        return w

    def _document_imported(self, path: Path, doc_id: int) -> None:
        self.doc_combo.addItem(path.name, doc_id)
        self.doc_combo.setCurrentIndex(self.doc_combo.count() - 1)
        self.statusBar().showMessage(f"Imported {path.name}", 5000)

    def _confirm_despite_tag_errors(self, row: int, issues) -> bool:
        """Ask whether to confirm a target with tag errors; with the setting *Refuse to confirm
        a segment with tag errors* the answer is always no."""
        lines = "\n".join(f"• {i.message}" for i in issues)
        if preferences().refuse_tag_errors:
            QMessageBox.warning(self, "Tag errors", f"Segment {row + 1} is not confirmed: its tags are wrong.\n\n"
                                f"{lines}\n\nFix them (F9 inserts a missing tag).")
            return False
        answer = QMessageBox.question(
            self, "Tag errors", f"Segment {row + 1} has tag errors:\n\n{lines}\n\nConfirm it anyway? It will "
            "not be added to the TM, and the export will refuse the document until the tags are fixed.",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        return answer == QMessageBox.Yes

    def export_path_for(self, document_id: int) -> Path:
        """The path the export dialog proposes: beside the last export of this project, else the
        project's exports folder; the original's name with the target language (guide.de.xlf)."""
        default = self.project.default_export_path(document_id)
        last = self.project.setting("export/last_folder")
        return Path(last) / default.name if last and Path(last).is_dir() else default

    def export_document_dialog(self) -> None:
        """Run the QA first and show what it found; tag errors stop the export (the client's
        tool would reject the file), other findings are the translator's call."""
        if self.project is None or self.model is None:
            return
        self.commit_editor()
        info = self.project.document(self.model.document_id)
        segs = self.model.segments()
        issues = check_segments(segs, self.project.qa_options(), spelling=None, received=received_ids(segs))
        issues = [i for i in issues if i.check != "no-dictionary"]
        errors = [i for i in issues if i.check in TAG_CHECKS and i.severity == "error"]
        force = False
        if errors:
            if not self._export_despite_tag_errors(info.name, errors):
                self.qa_dialog()
                return
            force = True
            issues = [i for i in issues if i not in errors]
        if issues and not force:
            answer = QMessageBox.question(self, "Export", f"The QA check found {len(issues)} thing(s) to look at "
                                          "(numbers, spaces, punctuation, consistency…). Export anyway?",
                                          QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
            if answer != QMessageBox.Yes:
                self.qa_dialog()
                return
        proposed = self.export_path_for(info.id)
        proposed.parent.mkdir(parents=True, exist_ok=True)
        path, _ = QFileDialog.getSaveFileName(self, "Export translated document", str(proposed))
        if path:
            self.export_to(info.id, Path(path), force=force)

    def _export_despite_tag_errors(self, name: str, errors) -> bool:
        """Ask whether to export a document whose targets (written or confirmed here) have tag
        errors, naming the segments; True for Export anyway."""
        rows = ", ".join(sorted({str(i.idx + 1) for i in errors}, key=int))
        box = QMessageBox(QMessageBox.Warning, "Export",
                          f"Tag errors in segment(s) {rows} of {name}: the client's tool may reject the file. "
                          "Show them to fix them first, or export anyway.", parent=self)
        box.setDetailedText("\n".join(f"segment {i.idx + 1}: {i.message}" for i in errors))
        show = box.addButton("Show them", QMessageBox.RejectRole)
        box.addButton("Export anyway", QMessageBox.AcceptRole)
        box.setDefaultButton(show)
        box.exec()
        return box.clickedButton() is not show

    def export_to(self, document_id: int, path: Path, *, force: bool = False) -> bool:
        try:
            self.project.export_document(document_id, path, force=force)
        except VersoError as e:
            QMessageBox.critical(self, "Verso", str(e))
            return False
        self.project.set_setting("export/last_folder", str(path.parent))
        self.statusBar().showMessage(f"Exported to {path}", 5000)
        return True

    def preview_document(self):
        """File ▸ Preview (see :mod:`app.preview`); returns the export's worker or None."""
        from app.preview import Previewer

        if getattr(self, "previewer", None) is None:
            self.previewer = Previewer(self)
        return self.previewer.preview()

    def import_tm_dialog(self):
        from app.dialogs.import_tm import ImportTMDialog

        if self.project is None:
            return None
        dlg = ImportTMDialog(self, self.project, self.tm)
        dlg.show()
        return dlg

    def export_tm_dialog(self) -> None:
        from app.dialogs.export_tm import export_tm

        if self.tm is None or self.tm.writable_info() is None:
            QMessageBox.information(self, "Verso", "This project has no writable TM to export.")
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export TM as TMX", "memory.tmx", "TMX (*.tmx)")
        if path:
            export_tm(self, self.tm, Path(path))

    def statistics_dialog(self):
        from app.dialogs.stats import StatisticsDialog

        if self.project is None:
            return None
        dlg = StatisticsDialog(self, self.project, self.tm)
        dlg.show()
        return dlg

    def qa_dialog(self):
        from app.dialogs.qa import QADialog

        if self.model is None:
            return None
        self.commit_editor()
        dlg = QADialog(self, self.model.segments(), self.project, self.spell)
        dlg.segmentActivated.connect(lambda idx: self.go_to(idx))
        dlg.show()
        return dlg

    def training_dialog(self):
        """Tools ▸ Train a Model: a new model for the pair or fine-tuning the current one; attaches to
        the project's run when one is going on or waits for a decision."""
        from app.dialogs.training import TrainingDialog
        from app.training import RUN_SETTING, TrainingRun

        if self.project is None:
            return None
        current = default_model_dir(self.project)
        folder = self.project.setting(RUN_SETTING) or ""
        run = TrainingRun(folder) if folder and Path(folder).is_dir() else None
        dlg = TrainingDialog(self, self.project, current, current_pair=model_serves(current, self.project.src_lang, self.project.tgt_lang),
                             threads=preferences().threads, run=run)
        dlg.modelChosen.connect(self.use_model)
        dlg.runStarted.connect(lambda f: self.project and self.project.set_setting(RUN_SETTING, f))
        dlg.runDismissed.connect(lambda f: self.project and self.project.set_setting(RUN_SETTING, ""))
        dlg.show()
        return dlg

    def models_dialog(self):
        """Tools ▸ Models: the models of the project's pair; use, delete, export, import."""
        from app.dialogs.models import ModelsDialog

        if self.project is None:
            return None
        dlg = ModelsDialog(self, self.project, default_model_dir(self.project))
        dlg.modelChosen.connect(self.use_model)
        dlg.show()
        return dlg

    def _training_notice(self, project: Project) -> None:
        from app.training import notice

        text = notice(project)
        if text:
            self.statusBar().showMessage(text, 15000)

    def use_model(self, folder: str) -> None:
        """Make ``folder`` the project's model and reload the suggestion engine."""
        if self.project is None:
            return
        self.project.set_setting("model", str(folder))
        if self.use_nmt:
            self._start_nmt(Path(folder))
            self._row = None

    def _start_nmt(self, model_dir: Path | None) -> None:
        if self.nmt is not None:
            self.nmt.close()
            self.nmt.deleteLater()
        prefs = preferences()
        self.nmt = NMTService(model_dir, self, beam=prefs.beam, threads=prefs.threads, quantize=prefs.quantize,
                              terms_mode=prefs.glossary_terms, memory_mode=prefs.memory_mode)
        if model_dir is None and self.project is not None:  # none of the project's pair (the line it shows)
            from app.panels.suggestion import no_model_message
            self.nmt.error = no_model_message(self.project.src_lang, self.project.tgt_lang)
        self.flow.set_nmt(self.nmt)
        self.nmt.unavailable.connect(self.suggestion.show_message)
        self.nmt.failed.connect(lambda key, msg: self.suggestion.show_message(f"Translation failed: {msg}"))
        self.nmt.loaded.connect(self._nmt_loaded)

    def _nmt_loaded(self, folder: str) -> None:
        in_use = self.nmt.memory_in_use() if self.nmt is not None else ""
        self.suggestion.show_message(f"Model loaded: {Path(folder).name}" + (f" ({in_use})" if in_use else ""))
        if self.model is not None:
            self._row = None
            self._segment_entered(self.current_row())

    def shortcuts_dialog(self):
        """Help ▸ Keyboard Shortcuts: every action with its keys in the current preset."""
        from app.dialogs.help import ShortcutsDialog

        rows = [(a.text().replace("&", "").rstrip("…"), a.shortcut().toString(QKeySequence.NativeText))
                for a in self.actions_by_id.values() if not a.shortcut().isEmpty()]
        rows += [("Insert the source's n-th tag", "Alt+1 … Alt+9"),
                 ("Copy / cut / paste in the target (tags kept)", "Ctrl+C / Ctrl+X / Ctrl+V")]
        dlg = ShortcutsDialog(self, rows)
        dlg.show()
        return dlg

    def about_dialog(self):
        from app.dialogs.help import about_text

        box = QMessageBox(QMessageBox.Information, "About Verso", about_text(), QMessageBox.Ok, self)
        box.setTextFormat(Qt.RichText)
        box.show()
        return box

    def settings_dialog(self):
        from app.dialogs.settings import SettingsDialog

        dlg = SettingsDialog(self, self.nmt.memory_in_use() if self.nmt is not None else "")
        if dlg.exec():
            prefs = preferences()
            self.apply_preset(str(prefs.preset))
            if self.nmt is not None:
                self.nmt.set_modes(memory_mode=prefs.memory_mode, terms_mode=prefs.glossary_terms)
        return dlg

    def closeEvent(self, event) -> None:  # noqa: N802
        self.commit_editor()
        self._close_services()
        if self.project is not None:
            self.project.close()
            self.project = None
        super().closeEvent(event)


__all__ = ["MainWindow", "settings", "MEMORY_PAIRS"]
