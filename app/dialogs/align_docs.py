"""File ▸ Align Documents…: a document and its translation, aligned off the UI thread (reading,
the model's translation with progress, the alignment; Cancel stops it), then reviewed in the
alignment editor (:mod:`app.dialogs.align_review`); only what the translator chooses goes into the
TM, through ``store(units, done)`` that the controller gives (the TM thread writes)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtWidgets import (QCheckBox, QDialog, QFileDialog, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QVBoxLayout)

from app.dialogs.align_review import AlignReview
from app.workers import Worker, start
from engine.align import totm
from engine.align.aligner import Alignment

DOCUMENTS = "Documents (*.docx *.odt *.html *.htm *.xhtml *.md *.txt *.pdf);;All files (*)"


def align_job(control, src: Path, tgt: Path, src_lang: str, tgt_lang: str, use_model: bool) -> Alignment | None:
    """On a pool thread: engine.align.run.align_files with progress and Cancel."""
    from engine.align.run import align_files

    control.progress(stage="Reading and translating…", done=0, total=0)
    return align_files(src, tgt, src_lang, tgt_lang, use_model=use_model,
                       progress=lambda d, t: control.progress(stage="Translating the source…", done=d, total=t),
                       stop=lambda: control.cancelled)


class AlignDocsDialog(QDialog):
    def __init__(self, parent, src_lang: str, tgt_lang: str, store: Callable[[list, Callable], None]):
        super().__init__(parent)
        self.setWindowTitle("Align Documents")
        self.resize(1000, 640)
        self.src_lang, self.tgt_lang, self._store = src_lang, tgt_lang, store
        self._job: Worker | None = None
        lay = QVBoxLayout(self)
        grid = QGridLayout()
        self.src_path, self.tgt_path = QLineEdit(), QLineEdit()
        for r, (label, edit) in enumerate(((f"Original ({src_lang}):", self.src_path),
                                           (f"Translation ({tgt_lang}):", self.tgt_path))):
            grid.addWidget(QLabel(label), r, 0)
            grid.addWidget(edit, r, 1)
            b = QPushButton("Browse…")
            b.clicked.connect(lambda _=False, e=edit: self._browse(e))
            grid.addWidget(b, r, 2)
        lay.addLayout(grid)
        row = QHBoxLayout()
        self.use_model = QCheckBox("Use the translation model where it serves the pair (more accurate, slower)")
        self.use_model.setChecked(True)
        self.align_button = QPushButton("A&lign")
        self.align_button.clicked.connect(self.start_align)
        row.addWidget(self.use_model, 1)
        row.addWidget(self.align_button)
        lay.addLayout(row)
        self.progress = QProgressBar()
        self.status = QLabel("Choose a document and its translation.")
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        self.review = AlignReview(self)
        self.review.store_requested.connect(self.store)
        lay.addWidget(self.review, 1)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.cancel_or_close)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.close_button)
        lay.addLayout(bottom)

    def _browse(self, edit: QLineEdit) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a document", edit.text(), DOCUMENTS)
        if path:
            edit.setText(path)

    # ------------------------------------------------------------ aligning
    def start_align(self) -> None:
        src, tgt = Path(self.src_path.text().strip()), Path(self.tgt_path.text().strip())
        for p in (src, tgt):
            if not p.is_file():
                self.status.setText(f"{p}: no such file")
                return
        self.align_button.setEnabled(False)
        self.close_button.setText("Cancel")
        self.progress.setRange(0, 0)
        w = Worker(align_job, src, tgt, self.src_lang, self.tgt_lang, self.use_model.isChecked())
        w.signals.progress.connect(self._progress)
        w.signals.result.connect(self._aligned)
        w.signals.error.connect(self._failed)
        w.signals.cancelled.connect(lambda: self._ended("Cancelled: nothing was aligned."))
        self._job = start(w)

    def _progress(self, ev: dict) -> None:
        self.status.setText(ev.get("stage", ""))
        if ev.get("total"):
            self.progress.setRange(0, ev["total"])
            self.progress.setValue(ev.get("done", 0))

    def _ended(self, text: str) -> None:
        self._job = None
        self.align_button.setEnabled(True)
        self.close_button.setText("Close")
        self.progress.setRange(0, 1)
        self.status.setText(text)

    def _failed(self, msg: str) -> None:
        self._ended(f"Not aligned: {msg}")

    def _aligned(self, al: Alignment | None) -> None:
        if al is None:
            self._ended("Cancelled: nothing was aligned.")
            return
        self.progress.setValue(1)
        how = "the model's translation, length and numbers" if al.method == "model" else \
            f"sentence length and numbers ({al.why})"
        self._ended(f"{len(al.pairs())} pairs from {len(al.src.sentences)} source and {len(al.tgt.sentences)} "
                    f"target sentences, aligned by {how}. Lowest confidence first: confirm what is right.")
        self.set_alignment(al)

    def set_alignment(self, al: Alignment) -> None:
        self.review.set_alignment(al)

    # ------------------------------------------------------------ storing
    def store(self, links: list) -> None:
        al = self.review.alignment
        if al is None:
            return
        if not links:
            self.status.setText("Nothing chosen: confirm pairs (Space), or choose a confidence.")
            return
        units = totm.units(al, links, self.src_lang, self.tgt_lang)
        self.review.add_button.setEnabled(False)
        self.status.setText(f"Adding {len(units)} pairs to the TM…")
        self._store(units, self._stored)

    def _stored(self, res) -> None:
        self.review.add_button.setEnabled(True)
        if isinstance(res, str):
            self.status.setText(f"Nothing was added: {res}")
        else:
            self.status.setText(f"Added to the TM: {res.added} new, {res.updated} already there.")

    def busy(self) -> bool:
        return self._job is not None

    def cancel_or_close(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self.status.setText("Cancelling…")
        else:
            self.close()
