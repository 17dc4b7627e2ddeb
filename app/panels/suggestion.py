"""The machine suggestion, with the words that came from memory shaded by
their copy weight ζ·p_copy; hovering one shows the TM entry and word."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QTextCharFormat
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.inline import TaggedText
from app.chips import fill
from app.panels.textview import ChipView
from app.suggest import SuggestionView

COPY_COLOUR = QColor(32, 160, 120)


def word_spans(text: str, words: list[str]) -> list[tuple[int, int] | None]:
    """Where each word of ``words`` sits in ``text`` (in order; None when not found)."""
    out: list[tuple[int, int] | None] = []
    pos = 0
    for w in words:
        i = text.find(w, pos) if w else -1
        if i < 0:
            out.append(None)
            continue
        out.append((i, i + len(w)))
        pos = i + len(w)
    return out


def shading(weight: float) -> QColor:
    c = QColor(COPY_COLOUR)
    c.setAlpha(int(40 + 200 * max(0.0, min(1.0, weight))))
    return c


class SuggestionPanel(QWidget):
    insertRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.current: SuggestionView | None = None
        self.tags = ()
        self.status = QLabel("Loading the NMT model…", self)
        self.status.setWordWrap(True)
        self.view = ChipView(self)
        self.insert_button = QPushButton("Insert", self)
        self.insert_button.clicked.connect(self.insertRequested.emit)
        self.legend = QLabel(self)
        self.legend.setText("<span style='background:rgba(32,160,120,0.6)'>&nbsp;shaded&nbsp;</span>"
                            " words were copied from the TM (darker = higher ζ·p_copy); hover for the source")
        self.legend.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.insert_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.legend)
        self.legend.hide()

    def show_message(self, text: str) -> None:
        self.current = None
        self.view.clear()
        self.status.setText(text)
        self.legend.hide()

    def working(self) -> None:
        self.status.setText("Translating…")

    def show_view(self, view: SuggestionView, tags=()) -> None:
        self.current, self.tags = view, tuple(tags)
        formats = []
        if view.has_memory:
            for span, ref in zip(word_spans(view.text, view.words), view.memory or []):
                if span is None or ref is None:
                    continue
                f = QTextCharFormat()
                f.setBackground(shading(ref.weight))
                f.setToolTip(ref.tooltip())
                formats.append((span[0], span[1], f))
        fill(self.view.document(), view.text, self.tags, formats)
        mem = f" · read {view.used_memory} TM match{'es' if view.used_memory != 1 else ''}" if view.used_memory else ""
        self.status.setText(f"NMT suggestion{mem} · log-prob {view.score:.1f}")
        self.legend.setVisible(view.has_memory)

    def copy_formats(self) -> list[tuple[str, str]]:
        """(word, tooltip) of every shaded word as drawn (for tests and screen readers)."""
        out = []
        doc = self.view.document()
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and frag.charFormat().toolTip() and frag.charFormat().background().style():
                    out.append((frag.text(), frag.charFormat().toolTip()))
                it += 1
            block = block.next()
        return out

    def text_for(self, source: TaggedText) -> str:
        return self.current.text if self.current else ""
