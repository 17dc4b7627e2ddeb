"""Concordance: a phrase searched in the TMs' sources or targets, hits highlighted."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from app.chips import fill
from app.panels.textview import ChipView

HIT_COLOUR = QColor("#ffe066")


class ConcordancePanel(QWidget):
    """``searchRequested(phrase, side)``; results arrive through :meth:`show_hits`."""

    searchRequested = Signal(str, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hits: list = []
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Phrase to find in the TMs (Ctrl+K)")
        self.edit.returnPressed.connect(self.search)
        self.side = QComboBox(self)
        self.side.addItems(["source", "target"])
        self.status = QLabel(self)
        self.view = ChipView(self)
        top = QHBoxLayout()
        top.addWidget(self.edit, 1)
        top.addWidget(self.side)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.view, 1)

    def search(self, phrase: str | None = None) -> None:
        if phrase is not None:
            self.edit.setText(phrase)
        text = self.edit.text().strip()
        if text:
            self.status.setText("Searching…")
            self.searchRequested.emit(text, self.side.currentText())

    def show_hits(self, hits: list) -> None:
        """``hits``: (tm name, :class:`~engine.tm.ConcordanceHit`) pairs."""
        self.hits = hits
        doc = self.view.document()
        doc.clear()
        self.status.setText(f"{len(hits)} unit{'s' if len(hits) != 1 else ''} found" if hits else "Not found.")
        cur = QTextCursor(doc)
        hl = QTextCharFormat()
        hl.setBackground(HIT_COLOUR)
        hl.setFontWeight(QFont.Bold)
        for i, (tm, h) in enumerate(hits):
            bf = QTextBlockFormat()
            bf.setTopMargin(0 if i == 0 else 6)
            if i:
                cur.insertBlock(bf)
            src_spans = h.spans if h.side == "source" else []
            tgt_spans = h.spans if h.side == "target" else []
            fill(doc, h.entry.source.text, h.entry.source.tags, [(s, e, hl) for s, e in src_spans], append=True)
            cur.movePosition(QTextCursor.End)
            cur.insertBlock()
            tf = QTextCharFormat()
            tf.setForeground(QColor("#0b3d91"))
            fill(doc, h.entry.target.text, h.entry.target.tags, [(s, e, hl) for s, e in tgt_spans], base=tf,
                 append=True)
            cur.movePosition(QTextCursor.End)
        self.view.moveCursor(QTextCursor.Start)
