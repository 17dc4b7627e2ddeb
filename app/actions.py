"""The editor's actions as data: which menu, what it says, which controller method it calls, and
its keys.  The window builds its menus, the grid's and the target box's right-click menus
and Help ▸ Keyboard Shortcuts from this one table; the keyboard presets (``app/keymap.py``)
bind keys to the ids they name, and ``keys`` are the fixed keys of the others.

Each action names the controller (``app/controllers/``) whose method it calls: the window
only makes the QActions.  A menu's entries are :class:`ActionSpec`, :data:`SEPARATOR`, or a
:class:`Placeholder` that its owner fills (recent projects, filters, a checkable setting) or
the window itself (the nine TM matches, the nine glossary terms, panel toggles).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActionSpec:
    id: str                       # unique; keymap presets name it
    text: str                     # menu text (& marks the mnemonic)
    slot: str                     # "controller.method" it calls (app/controllers/), or a window method ...
    args: tuple = ()              # ... with these arguments
    keys: tuple[str, ...] = ()    # fixed keys when no preset names ``id`` ("Quit": the platform's)
    grid_menu: bool = False       # also in the grid's right-click menu
    editor_menu: bool = False     # also at the bottom of the target box's right-click menu


@dataclass(frozen=True)
class Placeholder:
    name: str
    owner: str   # the controller that fills it (``fill_menu``); "" for the window itself


SEPARATOR = None

MENUS: tuple[tuple[str, tuple], ...] = (
    ("&File", (
        ActionSpec("new_project", "&New Project…", "documents.new_project_dialog"),
        ActionSpec("open_project", "&Open Project…", "documents.open_project_dialog"),
        ActionSpec("open_package", "Open &Package…", "packages.open_package_dialog"),
        Placeholder("recent", "documents"),
        SEPARATOR,
        ActionSpec("import_document", "&Import Document…", "documents.import_document_dialog", keys=("Ctrl+Shift+O",)),
        ActionSpec("export_document", "&Export Translated Document…", "delivery.export_document_dialog",
                   keys=("Ctrl+Shift+E",)),
        ActionSpec("preview", "Pre&view Translated Document", "delivery.preview_document"),
        ActionSpec("return_package", "Create &Return Package…", "packages.return_package_dialog"),
        SEPARATOR,
        ActionSpec("import_tm", "Import &TMX / TM File…", "memory.import_tm_dialog", keys=("Ctrl+Shift+T",)),
        ActionSpec("export_tm", "Export TM as TM&X…", "memory.export_tm_dialog"),
        ActionSpec("align_documents", "&Align Documents…", "aligning.align_documents_dialog"),
        SEPARATOR,
        ActionSpec("quit", "&Quit", "close", keys=("Quit",)),
    )),
    ("&Edit", (
        ActionSpec("undo", "&Undo", "editing.undo"),
        ActionSpec("redo", "&Redo", "editing.redo"),
        # Document steps, named by what they undo ("Undo Replace all (3 segments)"; app/undo.py)
        ActionSpec("undo_step", "Undo Replace All", "editing.undo_step"),
        ActionSpec("redo_step", "Redo Replace All", "editing.undo_step", (True,)),
        SEPARATOR,
        ActionSpec("find", "&Find…", "search.open_find", (False,)),
        ActionSpec("replace", "Find and &Replace…", "search.open_find", (True,)),
        SEPARATOR,
        ActionSpec("settings", "&Settings…", "help.settings_dialog"),
    )),
    ("&Segment", (
        ActionSpec("confirm", "&Confirm and Go to Next Unconfirmed", "editing.confirm_and_next", grid_menu=True,
                   editor_menu=True),
        ActionSpec("prev", "&Previous Segment", "nav.step", (-1,), grid_menu=True),
        ActionSpec("next", "&Next Segment", "nav.step", (+1,), grid_menu=True),
        ActionSpec("next_unconfirmed", "Next &Unconfirmed Segment", "nav.go_next_unconfirmed"),
        SEPARATOR,
        ActionSpec("copy_source", "Copy &Source to Target", "editing.copy_source", grid_menu=True, editor_menu=True),
        ActionSpec("next_tag", "Insert Next Missing &Tag", "editing.insert_next_tag", editor_menu=True),
        ActionSpec("insert_suggestion", "Insert &Machine Suggestion", "machine.insert_suggestion", grid_menu=True,
                   editor_menu=True),
        ActionSpec("insert_completion", "Use the Machine's &Completion of What I Typed", "machine.insert_completion"),
        Placeholder("matches", ""),
        Placeholder("terms", ""),
        SEPARATOR,
        ActionSpec("lock", "&Lock/Unlock Segment", "editing.locking.toggle_lock", grid_menu=True, editor_menu=True),
        ActionSpec("lock_matches", "Lock 100 % &Matches", "editing.locking.lock_exact_matches"),
        SEPARATOR,
        ActionSpec("add_comment", "Add C&omment…", "comments.add_comment", grid_menu=True, editor_menu=True),
        ActionSpec("resolve_comment", "Resolve/Reopen Comm&ent", "comments.resolve_comment"),
        SEPARATOR,
        ActionSpec("split_segment", "Split Se&gment…", "editing.splitjoin.split_segment", grid_menu=True),
        ActionSpec("join_segment", "&Join with Next Segment", "editing.splitjoin.join_segment", grid_menu=True),
        SEPARATOR,
        Placeholder("propagate", "editing"),
    )),
    ("&View", (
        ActionSpec("choose_filter", "Choose &Filter", "search.choose_filter"),
        Placeholder("filters", "search"),
        SEPARATOR,
        Placeholder("panels", ""),
    )),
    ("&Tools", (
        ActionSpec("concordance", "&Concordance…", "memory.open_concordance", grid_menu=True, editor_menu=True),
        ActionSpec("tm_editor", "TM &Editor…", "memory.tm_editor_dialog"),
        ActionSpec("add_term", "Add &Term to Glossary…", "memory.add_term_dialog", editor_menu=True),
        ActionSpec("pretranslate", "&Pre-translate…", "pretranslation.pretranslate_dialog"),
        ActionSpec("statistics", "&Statistics…", "delivery.statistics_dialog"),
        ActionSpec("qa", "&QA Check…", "delivery.qa_dialog", keys=("F8",)),
        SEPARATOR,
        ActionSpec("train_model", "&Train a Model for This Project…", "machine.training_dialog"),
        ActionSpec("models", "&Models…", "machine.models_dialog"),
    )),
    ("&Review", (
        ActionSpec("track_changes", "&Track Changes", "review.toggle_track_changes", keys=("Ctrl+Alt+Shift+T",)),
        ActionSpec("accept_changes", "&Accept Segment Changes", "review.accept_segment", keys=("Ctrl+Alt+Shift+A",),
                   grid_menu=True),
        ActionSpec("reject_changes", "&Reject Segment Changes", "review.reject_segment", keys=("Ctrl+Alt+Shift+R",),
                   grid_menu=True),
        ActionSpec("segment_changes", "Segment &Changes…", "review.segment_changes", keys=("Ctrl+Alt+Shift+H",)),
        ActionSpec("accept_all_changes", "Accept All Changes in &Document", "review.accept_document"),
        ActionSpec("reject_all_changes", "Reject All Changes in D&ocument", "review.reject_document"),
        SEPARATOR,
        ActionSpec("add_lqa_error", "Add &LQA Error…", "review.add_lqa_error", keys=("Ctrl+Alt+Shift+Q",),
                   editor_menu=True),
        ActionSpec("quality_report", "&Quality Report…", "review.quality_report"),
    )),
    ("&Glossary", (
        ActionSpec("import_glossary", "&Import Glossary…", "glossaries.import_glossary_dialog"),
        ActionSpec("attach_glossary", "&Attach Glossary Folder…", "glossaries.attach_glossary_dialog"),
    )),
    ("&Help", (
        ActionSpec("shortcuts", "&Keyboard Shortcuts", "help.shortcuts_dialog", keys=("HelpContents",)),
        ActionSpec("about", "&About Verso", "help.about_dialog"),
    )),
)

#: The TM-match actions of the Segment menu: ``match_1`` .. ``match_9`` (Ctrl+1..9 in both presets).
MATCH_ACTIONS = tuple(ActionSpec(f"match_{n}", f"Match {n}", "memory.insert_match", (n - 1,)) for n in range(1, 10))

#: The glossary-term actions of the Segment menu: ``term_1`` .. ``term_9`` (Ctrl+Alt+1..9 in both
#: presets) insert the preferred target term of the glossary panel's term N at the cursor.
TERM_ACTIONS = tuple(ActionSpec(f"term_{n}", f"Term {n}", "memory.insert_term", (n - 1,)) for n in range(1, 10))


def specs() -> list[ActionSpec]:
    """Every action of the table, in menu order."""
    out = [e for _, entries in MENUS for e in entries if isinstance(e, ActionSpec)]
    return out + list(MATCH_ACTIONS) + list(TERM_ACTIONS)
