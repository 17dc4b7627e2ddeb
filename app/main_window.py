"""The main window: it lays out the segment grid of one document, the find bar, the
dockable panels (TM matches, glossary terms, suggestion, alignment, concordance), the
toolbar and the menus, and hands every action of the action table (``app/actions.py``) to
the controller that owns it (``app/controllers/``).  It holds what they share -- the
project, the document's model, the TM and NMT services, the segment flow -- and answers
two questions about the grid: the current row and the open target box.

Nothing slow runs on the UI thread: TM calls go to :class:`~app.tmservice.TMService`
(one TM thread, in order), translations to :class:`~app.suggest.NMTService`
(one NMT thread, stale answers dropped).
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QDockWidget, QLabel, QMainWindow, QToolBar, QVBoxLayout, QWidget

from engine.store import Project

from app import keymap, torch_preload
from app.actions import MATCH_ACTIONS, MENUS, SEPARATOR, TERM_ACTIONS, ActionSpec, Placeholder, specs
from app.controllers.align import AlignController
from app.controllers.comments import CommentsController
from app.controllers.delivery import DeliveryController
from app.controllers.documents import DocumentsController
from app.controllers.editing import EditingController
from app.controllers.glossary import GlossaryController
from app.controllers.help import HelpController
from app.controllers.machine import MachineController
from app.controllers.memory import MemoryController
from app.controllers.navigation import NavigationController
from app.controllers.package import PackageController
from app.controllers.pretranslate import PretranslateController
from app.controllers.review import ReviewController
from app.controllers.search import SearchController
from app.findbar import FindBar
from app.grid import SegmentGrid, TargetEditor
from app.panels.alignment import AlignmentPanel
from app.panels.comments import CommentsPanel
from app.panels.concordance import ConcordancePanel
from app.panels.glossary import GlossaryPanel
from app.panels.matches import MatchesPanel
from app.panels.suggestion import SuggestionPanel
from app.preferences import MEMORY_PAIRS, preferences, settings  # noqa: F401  (settings, MEMORY_PAIRS: for tests and scripts)
from app.segment_flow import SegmentFlow
from app.filters import SegmentFilter
from app.opening import Opening
from app.segment_model import SegmentTableModel
from app.suggest import NMTService
from app.tmservice import TMService


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
        self._specs: dict[str, ActionSpec] = {}
        self.shown_for: dict[str, int] = {}  # panel -> row it last showed (tests, benchmark)
        self.panelUpdated.connect(lambda row, what: self.shown_for.__setitem__(what, row))
        self.resize(1280, 800)
        self.setDockNestingEnabled(True)

        self.grid = SegmentGrid(self, reserved=self.reserved_shortcuts)
        self.delegate = self.grid.delegate
        self.findbar = FindBar(self)
        self.findbar.hide()
        central = QWidget(self)
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.findbar)
        lay.addWidget(self.grid)
        self.setCentralWidget(central)
        self.doc_combo = QComboBox(self)
        self.filter_combo = QComboBox(self)
        self.counts_label = QLabel(self)
        self.statusBar().addPermanentWidget(self.counts_label)
        self._build_panels()

        self.opening = Opening(self)  # what a project's opening starts only once its first matches show
        torch_preload.install()       # an import torch here (pre-translation): libtorch loaded without the GIL
        # the controllers: each owns one job and the actions that name it (app/controllers/)
        self.nav = NavigationController(self)
        self.flow = SegmentFlow(self.nav.typed_now, self)   # enter row → TM → suggestion → completion
        self.documents = DocumentsController(self)
        self.editing = EditingController(self)
        self.search = SearchController(self)
        self.memory = MemoryController(self)
        self.glossaries = GlossaryController(self)
        self.delivery = DeliveryController(self)
        self.machine = MachineController(self)
        self.pretranslation = PretranslateController(self)
        self.help = HelpController(self)
        self.comments = CommentsController(self)
        self.packages = PackageController(self)
        self.review = ReviewController(self)
        self.aligning = AlignController(self)

        self._build_actions()
        self.apply_preset(str(preferences().preset))
        if project is not None:
            self.documents.set_project(project)
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
        self.glossary = GlossaryPanel(self)
        self.suggestion = SuggestionPanel(self)
        self.alignment = AlignmentPanel(self)
        self.concordance = ConcordancePanel(self)
        self.comments_panel = CommentsPanel(self)
        self.dock_matches = self._dock("TM matches", self.matches, Qt.RightDockWidgetArea, "dockMatches")
        self.dock_glossary = self._dock("Glossary", self.glossary, Qt.RightDockWidgetArea, "dockGlossary")
        self.dock_suggestion = self._dock("Suggestion", self.suggestion, Qt.RightDockWidgetArea, "dockSuggestion")
        self.dock_alignment = self._dock("Alignment", self.alignment, Qt.BottomDockWidgetArea, "dockAlignment")
        self.dock_concordance = self._dock("Concordance", self.concordance, Qt.BottomDockWidgetArea,
                                           "dockConcordance")
        self.dock_comments = self._dock("Comments", self.comments_panel, Qt.BottomDockWidgetArea, "dockComments")
        self.tabifyDockWidget(self.dock_alignment, self.dock_concordance)
        self.tabifyDockWidget(self.dock_concordance, self.dock_comments)
        self.dock_alignment.raise_()
        self.resizeDocks([self.dock_matches, self.dock_suggestion], [420, 420], Qt.Horizontal)
        self.resizeDocks([self.dock_matches, self.dock_glossary, self.dock_suggestion], [320, 160, 320], Qt.Vertical)
        self.resizeDocks([self.dock_alignment], [230], Qt.Vertical)

    # ------------------------------------------------------------ actions
    def _slot(self, path: str):
        """The callable an action names: ``"controller.method"`` or a window method."""
        obj = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def _action(self, spec: ActionSpec, menu=None) -> QAction:
        """The QAction of one row of the action table (``app/actions.py``)."""
        a = QAction(spec.text, self)
        a.setShortcutContext(Qt.WindowShortcut)
        slot, args = self._slot(spec.slot), spec.args
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
        mb = self.menuBar()
        for title, entries in MENUS:
            menu = mb.addMenu(title)
            for entry in entries:
                if entry is SEPARATOR:
                    menu.addSeparator()
                elif isinstance(entry, Placeholder):
                    if entry.owner:
                        getattr(self, entry.owner).fill_menu(entry.name, menu)
                    else:
                        self._fill_placeholder(entry.name, menu)
                else:
                    self._action(entry, menu)
        a = self.actions_by_id
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
        tb.addAction(a["confirm"])
        self.addToolBar(tb)

    def _fill_placeholder(self, name: str, menu) -> None:
        if name == "matches":
            mm = menu.addMenu("Insert TM &Match")
            for spec in MATCH_ACTIONS:
                self._action(spec, mm)
        elif name == "terms":
            gm = menu.addMenu("Insert &Glossary Term")
            for spec in TERM_ACTIONS:
                self._action(spec, gm)
        elif name == "panels":
            for d in (self.dock_matches, self.dock_glossary, self.dock_suggestion, self.dock_alignment,
                      self.dock_concordance, self.dock_comments):
                menu.addAction(d.toggleViewAction())
        else:
            raise KeyError(f"no menu placeholder {name!r}")

    def editor_menu_actions(self) -> list[QAction]:
        """The window's actions at the bottom of the target box's right-click menu."""
        return [self.actions_by_id[s.id] for s in specs() if s.editor_menu]

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

    # ------------------------------------------------------------ the grid
    def current_row(self) -> int:
        """The current segment's row in the document (not in the filtered view)."""
        idx = self.grid.currentIndex()
        if not idx.isValid():
            return self.flow.row or 0
        return self.proxy.mapToSource(idx).row()

    def editor(self) -> TargetEditor | None:
        """The target box open in the grid (None when none is)."""
        return self.delegate.editor

    def closeEvent(self, event) -> None:  # noqa: N802
        self.documents.close_project()
        super().closeEvent(event)


__all__ = ["MainWindow", "settings", "MEMORY_PAIRS"]
