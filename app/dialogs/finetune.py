"""Fine-tune the model on the translator's own data, in a separate process
(``verso finetune``, JSON-lines events): progress bar, ETA, live loss and dev
BLEU, cancel; at the end the score before and after on a held-aside slice,
and the choice to keep the new model or the old one."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from PySide6.QtCore import QProcess, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from PySide6.QtCore import Qt

from app.workers import Worker, start


def detect_device(control) -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda ({torch.cuda.get_device_name(0)})"
    return "cpu"


def _fmt_eta(s) -> str:
    if s is None:
        return "–"
    s = int(s)
    return f"{s // 60}:{s % 60:02d}" if s < 3600 else f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class FinetuneDialog(QDialog):
    modelChosen = Signal(str)
    finished_run = Signal(dict)

    def __init__(self, parent, project, base_model: Path | None, *, threads: int = 0):
        super().__init__(parent)
        self.setWindowTitle("Fine-tune the model")
        self.resize(680, 620)
        self.project = project
        self.threads = threads
        self.proc: QProcess | None = None
        self.events: list[dict] = []
        self.final: dict | None = None
        self._buf = b""
        self._t0 = 0.0

        self.sources = QListWidget(self)
        for ref in project.tm_refs():
            self._add_source(str(ref.path), f"Project TM: {ref.name}")
        add = QPushButton("Add TMX / bilingual file…", self)
        add.clicked.connect(self._browse_data)
        self.base = QLineEdit(str(base_model) if base_model else "", self)
        self.out = QLineEdit(str(Path(project.folder) / "models" / time.strftime("finetuned-%Y%m%d-%H%M%S")), self)
        self.device = QComboBox(self)
        self.device.addItem("detecting…", "auto")
        w = Worker(detect_device)
        w.signals.result.connect(self._detected)
        start(w)
        self.epochs = QSpinBox(self)
        self.epochs.setRange(1, 100)
        self.epochs.setValue(3)
        self.minutes = QSpinBox(self)
        self.minutes.setRange(0, 24 * 60)
        self.minutes.setSpecialValueText("no limit")
        self.minutes.setSuffix(" min")

        form = QFormLayout()
        src_box = QWidget(self)
        v = QVBoxLayout(src_box)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.sources)
        v.addWidget(add)
        form.addRow("Data", src_box)
        form.addRow("Base model", self.base)
        form.addRow("New model folder", self.out)
        form.addRow("Device", self.device)
        form.addRow("Epochs", self.epochs)
        form.addRow("Time budget", self.minutes)

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
        self.log = QPlainTextEdit(self)
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(500)
        run_box = QGroupBox("Run", self)
        rl = QVBoxLayout(run_box)
        rl.addWidget(self.progress)
        rl.addLayout(live)
        rl.addWidget(self.status)
        rl.addWidget(self.scores)
        rl.addWidget(self.log, 1)

        self.start_button = QPushButton("Start", self)
        self.start_button.clicked.connect(self.start_run)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.cancel)
        self.keep_new = QPushButton("Keep new model", self)
        self.keep_new.clicked.connect(self._keep_new)
        self.keep_old = QPushButton("Keep current model", self)
        self.keep_old.clicked.connect(self.accept)
        for b in (self.keep_new, self.keep_old):
            b.hide()
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.start_button, self.keep_new, self.keep_old, self.cancel_button):
            buttons.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(run_box, 1)
        lay.addLayout(buttons)

    # -- setup --------------------------------------------------------------------
    def _add_source(self, path: str, label: str | None = None) -> None:
        it = QListWidgetItem(label or path)
        it.setData(Qt.UserRole, path)
        it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
        it.setCheckState(Qt.Checked)
        self.sources.addItem(it)

    def add_file(self, path: str | Path) -> None:
        self._add_source(str(path))

    def _browse_data(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Data for fine-tuning", "",
                                                "TM files (*.tmx *.csv *.tsv *.po *.xlf *.xliff);;All files (*)")
        for p in paths:
            self.add_file(p)

    def _detected(self, dev: str) -> None:
        self.device.clear()
        if dev.startswith("cuda"):
            self.device.addItem(f"GPU: {dev}", "cuda")
        self.device.addItem("CPU", "cpu")

    def chosen_sources(self) -> list[str]:
        return [self.sources.item(i).data(Qt.UserRole) for i in range(self.sources.count())
                if self.sources.item(i).checkState() == Qt.Checked]

    def arguments(self) -> list[str]:
        args = ["-m", "engine", "finetune", "--base", self.base.text(), "--out", self.out.text(),
                "--src-lang", self.project.src_lang, "--tgt-lang", self.project.tgt_lang,
                "--epochs", str(self.epochs.value()), "--device", str(self.device.currentData() or "auto")]
        if self.minutes.value():
            args += ["--time-budget", str(self.minutes.value() * 60)]
        if self.threads:
            args += ["--threads", str(self.threads)]
        for s in self.chosen_sources():
            args += ["--data", s]
        return args

    # -- running ------------------------------------------------------------------
    def start_run(self, extra: list[str] | None = None) -> None:
        if not self.base.text() or not self.chosen_sources():
            self.status.setText("Choose a base model and at least one source of data.")
            return
        self.events, self.final, self._buf = [], None, b""
        self.proc = QProcess(self)
        self.proc.setProgram(sys.executable)
        self.proc.setArguments(self.arguments() + list(extra or []))
        self.proc.readyReadStandardOutput.connect(self._read)
        self.proc.finished.connect(self._finished)
        self._t0 = time.time()
        self.progress.setRange(0, 0)
        self.status.setText("Starting (reading the data, scoring the base model)…")
        self.start_button.setEnabled(False)
        self.proc.start()

    def running(self) -> bool:
        return self.proc is not None and self.proc.state() != QProcess.NotRunning

    def _read(self) -> None:
        self._buf += bytes(self.proc.readAllStandardOutput())
        *lines, self._buf = self._buf.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                self.log.appendPlainText(line.decode("utf-8", "replace"))
                continue
            self.on_event(ev)

    def on_event(self, ev: dict) -> None:
        self.events.append(ev)
        kind = ev.get("event")
        if kind == "gather":
            self.status.setText(f"{ev['pairs']} pairs gathered ({ev['src_lang']} → {ev['tgt_lang']}) on {ev['device']}.")
        elif kind == "split":
            self.status.setText(f"{ev['train']} pairs to train on, {ev['held_aside']} held aside for scoring.")
        elif kind == "before":
            self.scores.setText(f"Before: BLEU {ev['bleu']:.1f} on the held-aside slice")
            self.status.setText("Training…")
        elif kind in ("start", "resume"):
            self.progress.setRange(0, max(1, int(ev.get("total_steps") or 1)))
        elif kind == "step":
            self.progress.setValue(int(ev["step"]))
            self.loss.setText(f"loss {ev['loss']:.3f}")
            self.eta.setText(f"ETA {_fmt_eta(ev.get('eta_s'))}")
        elif kind == "eval":
            self.progress.setValue(int(ev["step"]))
            self.dev_bleu.setText(f"dev BLEU {ev['dev_bleu']:.1f} (best {ev['best_bleu']:.1f})")
        elif kind == "after":
            self.status.setText("Scored the new model.")
        elif kind == "finished":
            self.final = ev
            self.progress.setValue(self.progress.maximum())
            self.scores.setText(f"Held-aside BLEU: before {ev['before']:.1f} → after {ev['after']:.1f}")
            self.status.setText("Done. Keep the new model or the current one?")
            self.keep_new.show()
            self.keep_old.show()
            self.keep_new.setDefault(bool(ev.get("better")))
            self.finished_run.emit(ev)
        elif kind == "cancelled":
            self.final = ev
        self.log.appendPlainText(json.dumps(ev, ensure_ascii=False)[:300])

    def _finished(self, code: int, status) -> None:
        self._read()
        err = bytes(self.proc.readAllStandardError()).decode("utf-8", "replace").strip()
        self.progress.setRange(0, 1)
        if self.final is not None and self.final.get("event") == "finished":
            self.progress.setValue(1)
            self.cancel_button.setText("Close")
            return
        self.start_button.setEnabled(True)
        self.progress.setValue(0)
        if self.final is not None and self.final.get("event") == "cancelled" or code == 130:
            self.status.setText("Cancelled. The current model is unchanged.")
        else:
            self.status.setText(f"Fine-tuning failed (exit {code}): {err.splitlines()[-1] if err else 'no message'}")
        self.finished_run.emit(self.final or {"event": "failed", "code": code, "stderr": err})

    def cancel(self) -> None:
        if self.running():
            self.status.setText("Cancelling…")
            self.proc.terminate()  # SIGTERM: the run stops at the next batch
        else:
            self.reject()

    def _keep_new(self) -> None:
        if self.final and self.final.get("model"):
            self.modelChosen.emit(self.final["model"])
        self.accept()

    def closeEvent(self, e):  # noqa: N802
        if self.running():
            self.proc.terminate()
            self.proc.waitForFinished(10_000)
        super().closeEvent(e)
