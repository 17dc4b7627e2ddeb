"""Train a Model's result: the before/after table by fuzzy band and the verdict on the new model
(better or worse than the current model and than copying the TM match), and the small helpers
of the dialog (:mod:`app.dialogs.training`)."""
from __future__ import annotations

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from engine.training.events import SYSTEMS, ScoreTable


def detect_device(control) -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda ({torch.cuda.get_device_name(0)})"
    return "cpu"


def fmt_eta(s) -> str:
    if s is None:
        return "–"
    s = int(s)
    return f"{s // 60}:{s % 60:02d}" if s < 3600 else f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def system_name(key: str) -> str:
    return dict(SYSTEMS).get(key, key)


def fill_table(widget: QTableWidget, table: ScoreTable) -> None:
    """The bands of ``table`` (and all sentences) with each system's BLEU."""
    widget.setRowCount(len(table.rows))
    for r, b in enumerate(table.rows):
        cells = [b.band, str(b.sentences)] + [f"{b.bleu[k]:.1f}" if k in b.bleu else "–" for k, _ in SYSTEMS]
        for c, text in enumerate(cells):
            widget.setItem(r, c, QTableWidgetItem(text))
    widget.resizeColumnsToContents()

