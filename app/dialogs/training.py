"""Tools › Train a Model: one dialog for a new model for the project's pair and
for fine-tuning the current one.  The run is a background process
(:class:`app.training.TrainingRun`): progress, ETA, live loss and dev BLEU,
cancel; closing the dialog or the editor leaves it running, and the dialog
attaches to it again.  At the end, the before/after table on the held-aside
test documents by fuzzy band, and the choice: use the new model or keep the
current one."""
from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.preferences import preferences
from app.dialogs.training_result import SYSTEMS, detect_device, fill_table, fmt_eta, system_name
from app.training import TrainingChoice, TrainingRun
from app.workers import Worker, start
from engine.tm import project_tms
from engine.training.events import (BudgetSpent, Cancelled, Evaluated, Finished, Gathered, PhaseStarted, RecipeChosen,
                                    ScoredAfter, ScoredBefore, ScoreTable, SplitDone, Step, TrainingEvent)

class TrainingDialog(QDialog):
    modelChosen = Signal(str)
    runStarted = Signal(str)        # the run folder (the window remembers it in the project)
    runDismissed = Signal(str)      # the translator decided: the project forgets the run

    def __init__(self, parent, project, current_model: Path | None, *, current_pair: bool = False,
                 threads: int = 0, run: TrainingRun | None = None):
        super().__init__(parent)
        self.setWindowTitle("Train a model")
        self.resize(720, 680)
        self.project = project
        self.threads = threads
        self.current_model = current_model
        self.current_pair = current_pair
        self.run: TrainingRun | None = None
        self.final: Finished | Cancelled | None = None
        self.max_steps = 0  # tests: a short run

        pair = f"{project.src_lang} → {project.tgt_lang}"
        self.new_model = QRadioButton(f"A new model for {pair}", self)
        self.fine_tune = QRadioButton(
            f"Fine-tune the current model ({current_model.name})" if current_model else "Fine-tune the current model",
            self)
        self.fine_tune.setEnabled(current_model is not None and current_pair)
        # reopened in the mode it was left in (fine-tuning first when the current model serves the pair)
        fine = self.fine_tune.isEnabled() and preferences().training_mode != "new"
        (self.fine_tune if fine else self.new_model).setChecked(True)
        self._mode = QButtonGroup(self)
        for b in (self.new_model, self.fine_tune):
            self._mode.addButton(b)
        self.fine_tune.toggled.connect(self._mode_chosen)
        self.sources = QListWidget(self)
        self.corpora: list[list[str]] = []
        for listed in project_tms(project, outside="skip"):
            self._add_source(str(listed.ref), f"Project TM: {listed.name}", tm=True)
        add = QPushButton("Add TMX / bilingual file…", self)
        add.clicked.connect(self._browse_data)
        add_corpus = QPushButton("Add line-aligned corpus…", self)
        add_corpus.clicked.connect(self._browse_corpus)
        self.out_label = QLabel("", self)
        self.device = QComboBox(self)
        self.device.addItem("detecting…", "auto")
        w = Worker(detect_device)
        w.signals.result.connect(self._detected)
        start(w)
        self.minutes = QSpinBox(self)
        self.minutes.setRange(0, 7 * 24 * 60)
        self.minutes.setSpecialValueText("the recipe's")
        self.minutes.setSuffix(" min")
        self.minutes.setValue(30)

        form = QFormLayout()
        mode_box = QWidget(self)
        ml = QVBoxLayout(mode_box)
        ml.setContentsMargins(0, 0, 0, 0)
        ml.addWidget(self.new_model)
        ml.addWidget(self.fine_tune)
        form.addRow("Train", mode_box)
        src_box = QWidget(self)
        v = QVBoxLayout(src_box)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.sources)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(add_corpus)
        v.addLayout(row)
        form.addRow("Data", src_box)
        form.addRow("Device", self.device)
        form.addRow("Time budget", self.minutes)
        self.setup = QWidget(self)
        self.setup.setLayout(form)

        self.progress = QProgressBar(self)
        self.status = QLabel("Ready.", self)
        self.status.setWordWrap(True)
        self.loss = QLabel("loss –", self)
        self.dev_bleu = QLabel("dev BLEU –", self)
        self.eta = QLabel("ETA –", self)
        live = QHBoxLayout()
        for wdg in (self.loss, self.dev_bleu, self.eta):
            live.addWidget(wdg)
        self.scores = QLabel("", self)
        self.scores.setStyleSheet("font-weight: bold")
        self.scores.setWordWrap(True)
        self.table = QTableWidget(0, len(SYSTEMS) + 2, self)
        self.table.setHorizontalHeaderLabels(["Match band", "Sentences", *(n for _, n in SYSTEMS)])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        run_box = QGroupBox("Run", self)
        rl = QVBoxLayout(run_box)
        rl.addWidget(self.progress)
        rl.addLayout(live)
        rl.addWidget(self.status)
        rl.addWidget(self.scores)
        rl.addWidget(self.table, 1)

        self.start_button = QPushButton("Start", self)
        self.start_button.clicked.connect(self.start_run)
        self.cancel_button = QPushButton("Cancel run", self)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.resume_button = QPushButton("Resume", self)
        self.resume_button.clicked.connect(self.resume_run)
        self.use_new = QPushButton("Use the new model", self)
        self.use_new.clicked.connect(self._use_new)
        self.keep_old = QPushButton("Keep the current model", self)
        self.keep_old.clicked.connect(self._keep_old)
        self.close_button = QPushButton("Close", self)
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.start_button, self.resume_button, self.cancel_button, self.use_new, self.keep_old,
                  self.close_button):
            buttons.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addWidget(self.setup)
        lay.addWidget(self.out_label)
        lay.addWidget(run_box, 1)
        lay.addLayout(buttons)
        self._buttons("ready")
        if run is not None:
            self.attach(run)

    # -- setup --------------------------------------------------------------------
    def _add_source(self, path: str, label: str | None = None, *, tm: bool = False) -> None:
        it = QListWidgetItem(label or path)
        it.setData(Qt.UserRole, path)
        it.setData(Qt.UserRole + 1, tm)
        it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
        it.setCheckState(Qt.Checked)
        self.sources.addItem(it)

    def add_file(self, path: str | Path) -> None:
        self._add_source(str(path))

    def add_corpus(self, src: str | Path, tgt: str | Path) -> None:
        self.corpora.append([str(src), str(tgt)])
        it = QListWidgetItem(f"Corpus: {Path(src).name} + {Path(tgt).name}")
        it.setData(Qt.UserRole, None)
        self.sources.addItem(it)

    def _browse_data(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Data to train on", "",
                                                "TM files (*.tmx *.csv *.tsv *.po *.xlf *.xliff);;All files (*)")
        for p in paths:
            self.add_file(p)

    def _browse_corpus(self) -> None:
        src, _ = QFileDialog.getOpenFileName(self, f"Source side ({self.project.src_lang}), one sentence a line")
        if not src:
            return
        tgt, _ = QFileDialog.getOpenFileName(self, f"Target side ({self.project.tgt_lang}), line-aligned")
        if tgt:
            self.add_corpus(src, tgt)

    def _detected(self, dev: str) -> None:
        self.device.clear()
        if dev.startswith("cuda"):
            self.device.addItem(f"GPU: {dev}", "cuda")
        self.device.addItem("CPU", "cpu")

    def chosen_sources(self, tm: bool) -> list[str]:
        """The checked project TMs (``tm``) or TM files."""
        items = (self.sources.item(i) for i in range(self.sources.count()))
        return [it.data(Qt.UserRole) for it in items if it.data(Qt.UserRole) and it.checkState() == Qt.Checked
                and bool(it.data(Qt.UserRole + 1)) == tm]

    def choice(self) -> TrainingChoice:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        fine = self.fine_tune.isChecked()
        name = f"finetuned-{stamp}" if fine else f"{self.project.src_lang}-{self.project.tgt_lang}-{stamp}"
        return TrainingChoice(out=Path(self.project.folder) / "models" / name, tms=self.chosen_sources(True),
                              files=self.chosen_sources(False),
                              corpora=list(self.corpora), src_lang=self.project.src_lang,
                              tgt_lang=self.project.tgt_lang, base=self.current_model if fine else None,
                              current=self.current_model if not fine and self.current_pair else None,
                              minutes=self.minutes.value(), device=str(self.device.currentData() or "auto"),
                              threads=self.threads, max_steps=self.max_steps)

    def _mode_chosen(self, fine: bool) -> None:
        preferences().training_mode = "finetune" if fine else "new"

    # -- running ------------------------------------------------------------------
    def _buttons(self, state: str) -> None:
        """ready | running | finished | stopped (cancelled / interrupted: resumable) | decided"""
        self.setup.setEnabled(state == "ready")
        self.start_button.setVisible(state == "ready")
        self.cancel_button.setVisible(state == "running")
        self.resume_button.setVisible(state == "stopped")
        self.use_new.setVisible(state == "finished")
        self.keep_old.setVisible(state in ("finished", "stopped"))

    def start_run(self) -> None:
        c = self.choice()
        if not c.tms and not c.files and not c.corpora:
            self.status.setText("Choose at least one source of data.")
            return
        run = TrainingRun(c.out, self)
        self.final = None
        self._connect(run)
        try:
            run.start(c)
        except Exception as e:  # noqa: BLE001 - one line for the translator, whatever the cause
            self.status.setText(f"Could not start: {e}")
            return
        self.progress.setRange(0, 0)
        self.status.setText("Starting (reading the data, scoring before)…")
        self._buttons("running")
        self.runStarted.emit(str(c.out))

    def attach(self, run: TrainingRun) -> None:
        """Show a run started earlier (perhaps by an editor since closed)."""
        self._connect(run)
        st = run.attach()
        if st.state == "running":
            self._buttons("running")
            if self.progress.maximum() == 0 and not any(isinstance(e, Step) for e in run.events):
                self.progress.setRange(0, 0)
        else:
            self._stopped(st)

    def _connect(self, run: TrainingRun) -> None:
        self.run = run
        self.out_label.setText(f"New model folder: {run.folder}")
        run.event.connect(self.on_event)
        run.stopped.connect(self._stopped)

    def resume_run(self) -> None:
        if self.run is None:
            return
        try:
            self.run.resume()
        except Exception as e:  # noqa: BLE001
            self.status.setText(f"Could not resume: {e}")
            return
        self.status.setText("Resuming from the last checkpoint…")
        self._buttons("running")

    def cancel_run(self) -> None:
        if self.run is not None and self.run.cancel():
            self.status.setText("Cancelling (the run saves its checkpoint)…")

    def on_event(self, ev: TrainingEvent) -> None:
        match ev:
            case Gathered():
                self.status.setText(f"{ev.pairs:,} pairs gathered ({ev.src_lang} → {ev.tgt_lang}), "
                                    f"{ev.duplicates:,} duplicates left out, on {ev.device}.")
            case SplitDone():
                self.status.setText(f"{ev.train:,} pairs to train on; {ev.test:,} held aside to score, "
                                    f"{ev.dev:,} to watch training (whole documents).")
            case ScoredBefore():
                self.scores.setText(f"Before: BLEU {ev.bleu:.1f} ({system_name(ev.system)}) on the "
                                    f"held-aside documents")
            case RecipeChosen():
                self.status.setText(f"Recipe {ev.name}: {ev.reason}. Training…")
            case PhaseStarted(phase="train"):
                self.progress.setRange(0, max(1, ev.total_steps))
            case Step():
                if self.progress.maximum() == 0:
                    self.progress.setRange(0, max(1, ev.total_steps))
                self.progress.setValue(ev.step)
                self.loss.setText(f"loss {ev.loss:.3f}")
                eta = ev.eta_s
                if ev.budget_s:  # the budget ends training first when it is nearer
                    left = max(0.0, ev.budget_s - ev.training_s)
                    eta = left if eta is None else min(eta, left)
                self.eta.setText(f"ETA {fmt_eta(eta)}")
            case Evaluated():
                self.dev_bleu.setText(f"dev BLEU {ev.dev_bleu:.1f} (best {ev.best_bleu:.1f})")
            case BudgetSpent():
                self.status.setText("Time budget spent: calibrating the memory and scoring…")
            case ScoredAfter():
                self.show_table(ev.table)
            case Finished():
                self._finished(ev)
            case Cancelled():
                self.final = ev

    def _finished(self, ev: Finished) -> None:
        self.final = ev
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.scores.setText(f"Held-aside BLEU: before {ev.before:.1f} → after {ev.after:.1f}")
        said = ev.verdict
        self._buttons("finished")
        if said.better:
            self.status.setStyleSheet("")
            self.status.setText(f"{said.message} Use the new model, or keep the current one?")
        else:  # never a worse model without a word: Keep is what Enter does
            self.status.setStyleSheet("color: #b00020; font-weight: bold")
            self.status.setText(f"⚠ {said.message}")
        self.use_new.setDefault(said.better)
        self.use_new.setAutoDefault(said.better)
        self.keep_old.setDefault(not said.better)
        (self.use_new if said.better else self.keep_old).setFocus()

    def show_table(self, table: ScoreTable) -> None:
        fill_table(self.table, table)

    def _stopped(self, st) -> None:
        if st.state == "finished":
            if self.final is None and st.last_event is not None:
                self.on_event(st.last_event)
            if self.table.rowCount() == 0:
                after = next((e for e in reversed(self.run.events) if isinstance(e, ScoredAfter)), None)
                if after:
                    self.show_table(after.table)
            self._buttons("finished")
            return
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        if st.state == "cancelled":
            self.status.setText("Cancelled. The current model is unchanged; Resume goes on from the last "
                                "checkpoint.")
        elif st.state == "failed":
            self.status.setText(f"Training failed: {st.error}")
        else:
            self.status.setText("The run stopped before the end (the editor or the machine was closed?). "
                                "Resume goes on from its last checkpoint.")
        self._buttons("stopped")

    def _use_new(self) -> None:
        if self.run is not None:
            self.modelChosen.emit(str(self.run.folder))
            self.runDismissed.emit(str(self.run.folder))
        self._buttons("decided")
        self.accept()

    def _keep_old(self) -> None:
        if self.run is not None:
            self.runDismissed.emit(str(self.run.folder))
        self._buttons("decided")
        self.accept()

    def closeEvent(self, e):  # noqa: N802
        # a running training goes on: the project remembers it and this dialog attaches to it again
        if self.run is not None:
            self.run.stop_watching()
        super().closeEvent(e)
