"""Tools ▸ Pre-translate (Ctrl+Shift+P): the options of ``verso doc pretranslate`` -- which
documents, machine translation on or off (``--model none``), the minimum match the model reads
(``--min-score``), another TM to search (``--tm``), drafts overwritten (``--overwrite-drafts``,
off by default) -- then progress (segments done / total),
Cancel, and the summary: filled from the TM, by the machine, left empty and why.  The view only:
:class:`app.controllers.pretranslate.PretranslateController` runs the job."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)


@dataclass(frozen=True)
class PretranslateOptions:
    """What the translator chose: the documents' ids, machine translation on or off, the minimum
    match (0-1) a memory-guided model reads, another TM to search ("" for none), and whether
    unconfirmed drafts are filled again."""

    documents: tuple[int, ...]
    machine: bool
    min_score: float
    extra_tm: str = ""
    overwrite_drafts: bool = False


class PretranslateDialog(QDialog):
    """``startRequested(PretranslateOptions)`` on Start; ``cancelRequested`` on Cancel or Escape
    while running (the controller calls :meth:`running`, :meth:`show_progress`, :meth:`finish`)."""

    startRequested = Signal(object)
    cancelRequested = Signal()

    def __init__(self, parent, *, current: tuple[int, str] | None, documents: list[tuple[int, str]],
                 model: str, no_model: str, min_score: int):
        super().__init__(parent)
        self.setWindowTitle("Pre-translate")
        self.resize(560, 320)
        self._running = False
        self._all = tuple(d for d, _ in documents)
        self.scope = QComboBox(self)
        if current is not None:
            self.scope.addItem(f"This document ({current[1]})", (current[0],))
        self.scope.addItem(f"All documents ({len(documents)})", self._all)
        self.machine = QCheckBox("Fill the rest with &machine translation" + (f" ({model})" if model else ""), self)
        self.machine.setChecked(bool(model))
        self.machine.setEnabled(bool(model))
        if not model:
            self.machine.setToolTip(no_model)
        self.min_score = QSpinBox(self)
        self.min_score.setRange(0, 100)
        self.min_score.setSuffix(" %")
        self.min_score.setValue(min_score)
        self.min_score.setToolTip("TM matches at least this good are read by a model with a memory "
                                  "(as the editor's suggestion; --min-score on the command line)")
        self.min_score.setEnabled(bool(model))
        self.machine.toggled.connect(self.min_score.setEnabled)
        self.extra_tm = QLineEdit(self)
        self.extra_tm.setPlaceholderText("optional: another TM folder, or postgresql://host:port/db?tm=NAME")
        self.overwrite = QCheckBox("&Overwrite drafts (unconfirmed translations, yours too)", self)
        self.overwrite.setToolTip("Fill unconfirmed segments again from the TM and the model (--overwrite-drafts); "
                                  "confirmed and locked segments are never touched")
        form = QFormLayout()
        form.addRow("&Documents", self.scope)
        form.addRow("", self.machine)
        form.addRow("Minimum match the model &reads", self.min_score)
        form.addRow("Also search &TM", self.extra_tm)
        form.addRow("", self.overwrite)
        self._no_model = "" if model else f"\nNo machine translation: {no_model}."
        self.rule = rule = QLabel(self)
        rule.setWordWrap(True)
        self._say_rule()
        self.overwrite.toggled.connect(self._say_rule)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1)
        self.progress.setFormat("%v / %m segments")
        self.summary = QLabel("", self)
        self.summary.setWordWrap(True)
        self.start_button = QPushButton("&Start", self)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self._start)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.reject)
        buttons = QDialogButtonBox(self)
        buttons.addButton(self.start_button, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.cancel_button, QDialogButtonBox.RejectRole)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(rule)
        lay.addWidget(self.progress)
        lay.addWidget(self.summary, 1)
        lay.addWidget(buttons)
        self.start_button.setFocus()

    def _say_rule(self) -> None:
        kept = ("Drafts (unconfirmed, yours too) are filled again (Edit ▸ Undo Pre-translate gives the open "
                "document's back); confirmed and locked segments are kept." if self.overwrite.isChecked()
                else "Segments with a target, drafts included, are kept.")
        self.rule.setText("Empty targets are filled as drafts: a 100 % match of the project's TMs gives its "
                          f"translation, otherwise the model's. {kept}{self._no_model}")

    def options(self) -> PretranslateOptions:
        return PretranslateOptions(tuple(self.scope.currentData() or self._all),
                                   self.machine.isEnabled() and self.machine.isChecked(),
                                   self.min_score.value() / 100, self.extra_tm.text().strip(),
                                   self.overwrite.isChecked())

    def _start(self) -> None:
        if not self._running:
            self.startRequested.emit(self.options())

    def running(self, total: int) -> None:
        self._running = True
        for w in (self.scope, self.machine, self.min_score, self.extra_tm, self.overwrite, self.start_button):
            w.setEnabled(False)
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(0)
        self.summary.setText("Pre-translating…")
        self.cancel_button.setText("Cancel")
        self.cancel_button.setFocus()

    def show_progress(self, done: int, total: int, text: str = "") -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        if text:
            self.summary.setText(text)

    def finish(self, summary: str) -> None:
        """The run is over (done, cancelled or failed): the summary, and Close."""
        self._running = False
        self.summary.setText(summary)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Close")
        self.cancel_button.setFocus()

    def is_running(self) -> bool:
        return self._running

    def reject(self) -> None:  # Cancel or Escape: stop a run first, close after
        if self._running:
            self.cancel_button.setEnabled(False)
            self.summary.setText("Cancelling… (what is filled stays)")
            self.cancelRequested.emit()
        else:
            super().reject()
