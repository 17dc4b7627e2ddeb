"""Keyboard presets.  Every editor action has an id; a preset maps ids to
shortcuts.  The choice is kept in QSettings (``keys/preset``)."""
from __future__ import annotations

DEFAULT_PRESET = "trados"

PRESETS: dict[str, dict[str, list[str]]] = {
    # Trados Studio / memoQ conventions.
    "trados": {
        "new_project": ["Ctrl+N"],
        "open_project": ["Ctrl+O"],
        "confirm": ["Ctrl+Return", "Ctrl+Enter"],
        "prev": ["Ctrl+Up"],
        "next": ["Ctrl+Down"],
        "next_unconfirmed": ["Ctrl+Shift+Down"],
        "copy_source": ["Ctrl+Insert"],
        "insert_suggestion": ["Ctrl+0"],
        "insert_completion": ["Ctrl+Shift+0"],
        # the grey completion after the cursor (the target box's own keys, taken only while it is shown:
        # at the end of the text Trados/memoQ's word-right moves nowhere, and Tab leaves the box)
        "accept_ghost_word": ["Ctrl+Right"],
        "accept_ghost_rest": ["Tab"],
        "concordance": ["Ctrl+K"],
        "next_tag": ["F9"],
        "find": ["Ctrl+F"],
        "replace": ["Ctrl+H"],
        "undo": ["Ctrl+Z"],
        "redo": ["Ctrl+Y"],
        **{f"match_{n}": [f"Ctrl+{n}"] for n in range(1, 10)},
        **{f"term_{n}": [f"Ctrl+Alt+{n}"] for n in range(1, 10)},
        "add_term": ["Ctrl+Shift+G"],
        "choose_filter": ["Ctrl+Shift+F"],
        "lock": ["Ctrl+Shift+L"],
        "pretranslate": ["Ctrl+Shift+P"],
        "add_comment": ["Ctrl+Shift+N"],   # Trados Studio's own
        "split_segment": ["Ctrl+T"],   # memoQ's own
        "join_segment": ["Ctrl+J"],    # memoQ's own
    },
    # OmegaT conventions.
    "omegat": {
        "new_project": ["Ctrl+Shift+N"],
        "open_project": ["Ctrl+O"],
        "confirm": ["Ctrl+U"],
        "prev": ["Ctrl+P"],
        "next": ["Ctrl+N"],
        "next_unconfirmed": ["Ctrl+Shift+U"],
        "copy_source": ["Ctrl+Shift+R"],
        "insert_suggestion": ["Ctrl+M"],
        "insert_completion": ["Ctrl+Shift+M"],
        "accept_ghost_word": ["Ctrl+Right"],   # OmegaT binds neither
        "accept_ghost_rest": ["Tab"],
        "concordance": ["Ctrl+Shift+K"],
        "next_tag": ["Ctrl+T"],  # OmegaT's own; Ctrl+Shift+T is Import TMX here
        "find": ["Ctrl+F"],
        "replace": ["Ctrl+Shift+H"],
        "undo": ["Ctrl+Z"],
        "redo": ["Ctrl+Y"],
        **{f"match_{n}": [f"Ctrl+{n}"] for n in range(1, 10)},
        **{f"term_{n}": [f"Ctrl+Alt+{n}"] for n in range(1, 10)},
        "add_term": ["Ctrl+Shift+G"],
        "choose_filter": ["Ctrl+Shift+F"],
        "lock": ["Ctrl+Shift+L"],
        "pretranslate": ["Ctrl+Shift+P"],
        "add_comment": ["Ctrl+Shift+C"],   # OmegaT has none; Ctrl+Shift+N is New Project here
        "split_segment": ["Ctrl+Alt+Shift+S"],   # Ctrl+T is Insert Next Missing Tag here
        "join_segment": ["Ctrl+Alt+Shift+J"],
    },
}
#: the target box's own keys (not window actions): what each does, for Help ▸ Keyboard Shortcuts
EDITOR_KEYS = {"accept_ghost_word": "Take the next word of the grey completion",
               "accept_ghost_rest": "Take the rest of the grey completion"}
PRESET_NAMES = {"trados": "Trados Studio / memoQ", "omegat": "OmegaT"}


def shortcuts(preset: str, action: str) -> list[str]:
    return PRESETS.get(preset, PRESETS[DEFAULT_PRESET]).get(action, [])


def editor_key_rows(preset: str) -> list[tuple[str, str]]:
    """(what it does, keys) of the target box's own keys in ``preset``."""
    return [(what, " / ".join(shortcuts(preset, aid))) for aid, what in EDITOR_KEYS.items()]
