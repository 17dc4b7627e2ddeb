"""Tools › Models: the models found (shipped, trained, fine-tuned, imported)
with their size, date, the data they saw, their scores on their held-aside
test documents by fuzzy band and the language pair each was trained for; use
one of the project's pair (a model of another pair is listed, never offered),
delete one, export one to a folder or import a folder (checked by the
strict loader: checksums, safetensors only).  A folder that cannot be read is
listed as unreadable with the reason (it can only be deleted).  Export and
import run off the UI thread."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.workers import Worker, start
from engine.errors import VersoError
from engine.training import models
from engine.training.events import SYSTEMS

COLUMNS = ("Model", "Kind", "Test BLEU: TM copy / model / model + memory", "Size", "Date", "Data", "Pair")


def _scores(info: models.ModelInfo) -> str:
    """Overall, then per band: TM copy / model alone / model with memory, on the model's own test documents."""
    table = info.scores
    if table is None or not table.overall.bleu:
        return "–"

    def row(d: Mapping[str, float]) -> str:
        return " / ".join(f"{d[k]:.1f}" if k in d else "–" for k, _ in SYSTEMS)

    bands = "; ".join(f"{b.band}: {row(b.bleu)}" for b in table.bands)
    return f"{row(table.overall.bleu)}  ({bands})"


def _same(a: Path, b: Path | None) -> bool:
    """Whether two paths name one folder (a folder whose links loop names none)."""
    try:
        return b is not None and a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


class ModelsDialog(QDialog):
    modelChosen = Signal(str)

    def __init__(self, parent, project, current: Path | None):
        super().__init__(parent)
        self.setWindowTitle(f"Models for {project.src_lang} → {project.tgt_lang}")
        self.resize(900, 420)
        self.project = project
        self.current = current
        self.infos: list[models.ModelInfo] = []
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.setSelectionMode(QTableWidget.SingleSelection)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.itemSelectionChanged.connect(self._selected)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.use_button = QPushButton("Use", self)
        self.use_button.clicked.connect(self.use_selected)
        self.delete_button = QPushButton("Delete…", self)
        self.delete_button.clicked.connect(self.delete_selected)
        self.export_button = QPushButton("Export…", self)
        self.export_button.clicked.connect(self._export_dialog)
        self.import_button = QPushButton("Import…", self)
        self.import_button.clicked.connect(self._import_dialog)
        close = QPushButton("Close", self)
        close.clicked.connect(self.accept)
        row = QHBoxLayout()
        for b in (self.use_button, self.delete_button, self.export_button, self.import_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.status)
        lay.addLayout(row)
        self.refresh()

    def refresh(self) -> None:
        self.infos = models.list_models(self.project)  # every pair: another pair's model is shown, not offered
        self.table.setRowCount(len(self.infos))
        for r, info in enumerate(self.infos):
            name = info.name + ("  (in use)" if _same(info.path, self.current) else "")
            if not info.usable:
                cells = (name, "unreadable", "–", "", "", info.error, "–")
            else:
                pair = info.pair.replace(" -> ", " → ")
                if not self._serves(info):
                    pair += f" (not {self.project.src_lang} → {self.project.tgt_lang})"
                cells = (name, info.kind, _scores(info), f"{info.size_bytes / 2**20:.1f} MiB", info.date,
                         info.data + (f"; from {info.base_model}" if info.base_model else ""), pair)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(str(info.path) if c == 0 else text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        if not any(i.usable and self._serves(i) for i in self.infos):
            self.status.setText("No model for this pair yet: Tools ▸ Train a Model for This Project… trains one "
                                "from your TMs, or Import… adds one.")
        self._selected()

    def selected(self) -> models.ModelInfo | None:
        rows = self.table.selectionModel().selectedRows()
        return self.infos[rows[0].row()] if rows else None

    def select(self, name: str) -> None:
        for r, info in enumerate(self.infos):
            if info.name == name:
                self.table.selectRow(r)

    def _serves(self, info: models.ModelInfo) -> bool:
        return info.serves(self.project.src_lang, self.project.tgt_lang)

    def _selected(self) -> None:
        info = self.selected()
        in_use = info is not None and _same(info.path, self.current)
        self.use_button.setEnabled(info is not None and info.usable and not in_use and self._serves(info))
        if info is not None and info.usable and not self._serves(info):
            self.status.setText(f"{info.name} translates {info.pair.replace(' -> ', ' → ')}, not this project's "
                                f"{self.project.src_lang} → {self.project.tgt_lang}: it cannot be used here.")
        self.delete_button.setEnabled(info is not None and info.kind != "shipped" and not in_use)
        self.export_button.setEnabled(info is not None and info.usable)

    def use_selected(self) -> None:
        info = self.selected()
        if info is None or not info.usable or not self._serves(info):
            return
        self.current = info.path
        self.modelChosen.emit(str(info.path))
        self.status.setText(f"{info.name} is now the project's model.")
        self.refresh()

    def delete_selected(self) -> None:
        info = self.selected()
        if info is None:
            return
        if QMessageBox.question(self, "Delete model", f"Delete {info.name} ({info.path})?") != QMessageBox.Yes:
            return
        try:
            models.delete_model(info.path, current=self.current)
        except VersoError as e:
            self.status.setText(str(e))
            return
        self.status.setText(f"{info.name} deleted.")
        self.refresh()

    # -- export / import (off the UI thread: they load and check the weights) ------------------
    def _export_dialog(self) -> None:
        info = self.selected()
        if info is None:
            return
        dest = QFileDialog.getExistingDirectory(self, "Export the model into an empty folder")
        if dest:
            self.export_to(info, Path(dest) / info.name)

    def export_to(self, info: models.ModelInfo, dest: Path) -> Worker:
        self.status.setText(f"Exporting {info.name}…")
        return self._run(lambda control: models.export_model(info.path, dest), f"Exported to {dest}.")

    def _import_dialog(self) -> None:
        src = QFileDialog.getExistingDirectory(self, "Import a model folder")
        if src:
            self.import_from(Path(src))

    def import_from(self, src: Path) -> Worker:
        self.status.setText(f"Checking and importing {src.name}…")
        return self._run(lambda control: models.import_model(src, self.project), "Imported as {}.")

    def _run(self, fn, done: str) -> Worker:
        for b in (self.export_button, self.import_button):
            b.setEnabled(False)

        def ok(result) -> None:
            self.status.setText(done.format(Path(result).name) if "{}" in done else done)
            self.refresh()

        def failed(msg) -> None:
            self.status.setText(f"Failed: {msg}")
            self._selected()

        w = Worker(fn)
        w.signals.result.connect(ok)
        w.signals.error.connect(failed)
        w.signals.finished.connect(lambda: self.import_button.setEnabled(True))
        start(w)
        return w
