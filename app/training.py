"""The project's training run, seen from the editor (controller; no widgets).

A run is a detached process (:mod:`engine.training.runs`): it goes on when
the editor closes, and the project remembers its folder (project setting
:data:`RUN_SETTING`), so reopening the project finds it running, finished
and waiting for the translator's decision, or interrupted and resumable.
:class:`TrainingRun` polls the run's event file on a timer and re-emits the
events; it never blocks the UI thread (reading a few new lines of a file).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine.training import runs
from engine.training.events import TrainingEvent

from app.preferences import ProjectSettings

#: project setting: the folder of the project's current training run ("" when none waits)
RUN_SETTING = ProjectSettings.TRAINING_RUN
#: how often the event file is read (ms)
POLL_MS = 400


@dataclass
class TrainingChoice:
    """What the dialog asks for: a new model for the pair, or fine-tuning ``base``."""

    out: Path
    tms: list[str]                    # TM folders / URLs
    files: list[str] = field(default_factory=list)           # TM files (TMX, bilingual CSV/TSV/PO/XLIFF)
    corpora: list[list[str]] = field(default_factory=list)   # line-aligned SRC TGT [DOCS]
    src_lang: str = ""
    tgt_lang: str = ""
    base: Path | None = None          # fine-tune this model (None: a new model)
    current: Path | None = None       # a new model: the model in use now, scored beside it
    minutes: int = 0                  # time budget (0: the recipe's)
    device: str = "auto"
    threads: int = 0
    max_steps: int = 0                # tests and power users

    def arguments(self) -> list[str]:
        if self.base is not None:
            args = ["finetune", "--base", str(self.base), "--out", str(self.out)]
            for s in self.tms + self.files:
                args += ["--data", s]
            for c in self.corpora:
                args += ["--corpus", *c]
        else:
            args = ["train", "--out", str(self.out)]
            for s in self.tms:
                args += ["--tm", s]
            for s in self.files:
                args += ["--corpus", s]
            for c in self.corpora:
                args += ["--corpus", *c]
            if self.current is not None:
                args += ["--compare", str(self.current)]
        args += ["--src-lang", self.src_lang, "--tgt-lang", self.tgt_lang, "--device", self.device, "--events"]
        if self.minutes:
            args += ["--time-budget", str(self.minutes * 60)]
        if self.threads:
            args += ["--threads", str(self.threads)]
        if self.max_steps:
            args += ["--max-steps", str(self.max_steps)]
        return args


class TrainingRun(QObject):
    """One run folder: start, attach, cancel, resume; events as signals."""

    event = Signal(object)           # an engine.training.events.TrainingEvent
    stopped = Signal(object)          # runs.RunStatus when the process is gone

    def __init__(self, folder: str | Path, parent: QObject | None = None):
        super().__init__(parent)
        self.folder = Path(folder)
        self.tail = runs.EventTail(self.folder)
        self.events: list[TrainingEvent] = []
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)
        self._started = 0.0

    def status(self) -> runs.RunStatus:
        return runs.status(self.folder)

    def start(self, choice: TrainingChoice) -> None:
        runs.launch(self.folder, choice.arguments())
        self._watch()

    def attach(self) -> runs.RunStatus:
        """Read what the run reported so far; watch it when it still runs."""
        for ev in self.tail.events():
            self._deliver(ev)
        st = self.status()
        if st.state == "running":
            self._watch()
        return st

    def resume(self) -> None:
        runs.resume(self.folder)
        self._watch()

    def cancel(self) -> bool:
        return runs.cancel(self.folder)

    def running(self) -> bool:
        return self._timer.isActive()

    def _watch(self) -> None:
        self._started = time.time()
        self._timer.start()

    def _deliver(self, ev: TrainingEvent) -> None:
        self.events.append(ev)
        self.event.emit(ev)

    def poll(self) -> None:
        for ev in self.tail.events():
            self._deliver(ev)
        st = self.status()
        if st.state != "running":
            for ev in self.tail.events():  # the last lines written before it exited
                self._deliver(ev)
            self._timer.stop()
            self.stopped.emit(st)

    def stop_watching(self) -> None:
        self._timer.stop()


def notice(project) -> str:
    """One status-bar line about the project's training run, or "" when none waits."""
    folder = ProjectSettings(project).training_run
    if not folder:
        return ""
    st = runs.status(folder)
    if st.state == "running":
        return "A model is training for this project in the background (Tools ▸ Train a Model shows it)."
    if st.state == "finished":
        return "A new model has finished training: Tools ▸ Train a Model shows its scores and lets you use it."
    if st.resumable:
        return "A model's training stopped before the end: Tools ▸ Train a Model resumes it."
    return ""
