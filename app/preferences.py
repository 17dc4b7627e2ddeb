"""The editor's preferences: a typed view of QSettings in which every key and its default
are written once.  ``preferences().beam`` reads ``nmt/beam`` as an int (5 when unset or
unreadable); assigning stores it.  Booleans are kept as "true"/"false", as they always were,
so settings files of earlier versions read the same.

Project settings (TMs, model, QA checks) live in the project (:class:`engine.store.Project`);
these are the translator's own, for every project: in ``$VERSO_HOME/settings.ini`` when
``VERSO_HOME`` is set (two users or test runs with their own home never share Open Recent),
else where Qt keeps an application's settings (``~/.config/Verso/Verso.conf``).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from app import keymap
from engine import identity
from engine.glossary.model import DEFAULT_TERMS_MODE
from engine.nmt.retrieval import MEMORY_MIN_SCORE

#: How many of the best TM matches a SEG-NMT model reads by default: on the demo model's test
#: set K = 1 / 2 / 4 / 8 give 18.87 / 19.20 / 19.34 / 19.25 BLEU (experiments/segnmt/RESULTS.md)
#: and K = 4 keeps a suggestion at p95 127 ms on one CPU core; every pair read costs
#: a teacher-forced pass before the beam search starts.
MEMORY_PAIRS = 4


#: the settings file under ``$VERSO_HOME``
SETTINGS_FILE = "settings.ini"


def settings() -> QSettings:
    """The raw QSettings store (tests set keys through it): under ``$VERSO_HOME`` when set."""
    home = os.environ.get("VERSO_HOME", "").strip()
    if home:
        return QSettings(str(Path(home).expanduser() / SETTINGS_FILE), QSettings.Format.IniFormat)
    return QSettings("Verso", "Verso")


def _as_list(v) -> list[str]:
    """QSettings gives a one-item list back as a plain string (INI format)."""
    if not v:
        return []
    return [v] if isinstance(v, str) else [str(x) for x in v]


class Pref:
    """One preference: its QSettings key, default and type (str, int, bool or list)."""

    def __init__(self, key: str, default: Any, kind: type, doc: str = ""):
        self.key, self.default, self.kind, self.__doc__ = key, default, kind, doc

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        raw = obj.store.value(self.key, None)
        if raw is None:
            return self.default
        try:
            if self.kind is bool:
                return str(raw).lower() == "true"
            if self.kind is list:
                return _as_list(raw)
            return self.kind(raw)
        except (TypeError, ValueError):
            return self.default

    def __set__(self, obj, value) -> None:
        if self.kind is bool:
            value = "true" if value else "false"
        obj.store.setValue(self.key, value)
        obj.store.sync()  # on disk now: another window or a crash after this still sees it


class NamePref(Pref):
    """A name never blank: unset or blank reads as ``default()``, asked at each read."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return str(obj.store.value(self.key, "") or "").strip() or self.default()

    def __set__(self, obj, value) -> None:
        super().__set__(obj, value)
        identity.use(str(value or ""))  # the engine signs as the editor does (an export, a tracked change); blank: default


class Preferences:
    preset = Pref("keys/preset", keymap.DEFAULT_PRESET, str, "keyboard preset (app/keymap.py)")
    tm_matches = Pref("tm/matches", 5, int, "TM matches shown")
    propagate = Pref("edit/propagate", True, bool, "fill identical unconfirmed segments on confirm")
    complete = Pref("nmt/complete", True, bool, "complete the typed prefix (interactive translation)")
    beam = Pref("nmt/beam", 5, int, "beam width of the suggestion")
    threads = Pref("nmt/threads", 0, int, "CPU threads of the engine (0: automatic)")
    memory_pairs = Pref("nmt/memory_pairs", MEMORY_PAIRS, int, "TM matches a memory-guided model reads")
    memory_min_score = Pref("nmt/memory_min_score", round(MEMORY_MIN_SCORE * 100), int,
                            "minimum match (percent) a memory-guided model reads")
    quantize = Pref("nmt/quantize", True, bool, "int8 engine on the CPU")
    # the default of the editor and `verso translate --glossary` is kept once (engine.glossary.model, with why)
    glossary_terms = Pref("nmt/glossary_terms", DEFAULT_TERMS_MODE, str,
                          "use glossary terms in suggestions: off, prefer (a bonus) or enforce (always)")
    memory_mode = Pref("nmt/memory_mode", "auto", str,
                       "which memory reads the TM matches: auto, knn (nearest neighbours), learned or none")
    refuse_tag_errors = Pref("qa/refuse_tag_errors", False, bool,
                             "refuse (instead of asking) to confirm a segment with tag errors")
    recent = Pref("recent", [], list, "recently opened project folders")
    training_mode = Pref("training/mode", "", str,
                         "Train a Model opens on: new (a new model) or finetune (the current one); '': finetune "
                         "when the current model serves the pair")
    user_name = NamePref("user/name", identity.user_name, str,
                         "the name TM units, TM edits and comments are signed with (OmegaT's User ID)")

    def __init__(self, store: QSettings | None = None):
        self.store = store or settings()


def preferences() -> Preferences:
    return Preferences()


class ProjectSettings:
    """The editor's settings kept in the project (:meth:`engine.store.Project.setting`), each
    key written once here.  ``model`` is also read by :func:`engine.resources.default_model_dir`."""

    MODEL = "model"
    EXPORT_FOLDER = "export/last_folder"
    TRAINING_RUN = "training_run"   # the folder of the project's background training run (app/training.py)

    def __init__(self, project):
        self.project = project

    @staticmethod
    def _propagate_key(document_id: int) -> str:
        return f"propagate/{document_id}"

    def propagate(self, document_id: int) -> bool:
        """Auto-propagation in this document (on unless switched off for it)."""
        return self.project.setting(self._propagate_key(document_id), "true") == "true"

    def set_propagate(self, document_id: int, on: bool) -> None:
        self.project.set_setting(self._propagate_key(document_id), "true" if on else "false")

    @property
    def export_folder(self) -> str:
        return self.project.setting(self.EXPORT_FOLDER) or ""

    @export_folder.setter
    def export_folder(self, folder: str) -> None:
        self.project.set_setting(self.EXPORT_FOLDER, folder)

    @property
    def training_run(self) -> str:
        return self.project.setting(self.TRAINING_RUN) or ""

    @training_run.setter
    def training_run(self, folder: str) -> None:
        self.project.set_setting(self.TRAINING_RUN, folder)

    @property
    def model(self) -> str:
        return self.project.setting(self.MODEL) or ""

    @model.setter
    def model(self, folder: str) -> None:
        self.project.set_setting(self.MODEL, folder)
