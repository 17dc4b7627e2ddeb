"""Attention heat map: source words (columns) x target words (rows), with the
context-gate value of each target word as a strip on the right.  Two views:
the suggestion, and the translator's own target scored by forced decoding."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from engine.inline import strip_tags
from app.suggest import SuggestionView

CELL = 22
GATE_W = 16
CELL_BG = (0xF4, 0xF6, 0xFB)  # a cell with no attention
CELL_FG = (30, 70, 160)       # a cell with all of it


def _label(w: str) -> str:
    w = strip_tags(w) or "‹tag›"
    return w if len(w) <= 14 else w[:13] + "…"


class HeatMap(QWidget):
    """Paints one :class:`SuggestionView`'s alignment; ``wordClicked(i, [source indices])``."""

    wordClicked = Signal(int, list)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.view: SuggestionView | None = None
        self.selected: int | None = None
        self._image: QImage | None = None
        self._margin_cache: tuple | None = None  # (font key, view, (left, top))
        self.setMouseTracking(True)

    def set_view(self, view: SuggestionView | None) -> None:
        self.view, self.selected, self._margin_cache = view, None, None
        self._image = self._cells_image(view) if view and view.words and view.src_words else None
        self.updateGeometry()
        self.adjustSize()
        self.update()

    @staticmethod
    def _cells_image(v: SuggestionView) -> QImage:
        """The attention matrix as one pixel per cell (the cell's colour: CELL_FG over CELL_BG
        with the attention as opacity), drawn scaled up in one call.  Drawing the cells one by
        one took ~1,200 pairs of fillRect calls for a 40 x 30 sentence: 15-30 ms of the UI
        thread every time a suggestion arrived."""
        t, s = len(v.words), len(v.src_words)
        a = np.zeros((t, s), dtype=np.float32)
        for i, row in enumerate(v.alignment[:t]):
            n = min(s, len(row))
            a[i, :n] = row[:n]
        a = np.clip(a, 0.0, 1.0)[..., None]
        rgb = np.array(CELL_BG, np.float32) * (1 - a) + np.array(CELL_FG, np.float32) * a
        px = np.empty((t, s, 4), dtype=np.uint8)  # Format_RGB32 in memory: B, G, R, 0xff
        px[..., 0], px[..., 1], px[..., 2], px[..., 3] = rgb[..., 2], rgb[..., 1], rgb[..., 0], 255
        return QImage(px.tobytes(), s, t, 4 * s, QImage.Format_RGB32).copy()

    def _margins(self) -> tuple[int, int]:
        """The label margins, measured once per view and font: the layout asks ``sizeHint`` several
        times per suggestion shown, and measuring every word each time was the editor's own code
        most sampled on the UI thread while browsing (py-spy --gil: 37 of its 538 samples)."""
        if not self.view:
            return 0, 0
        key = self.font().key()
        cached = self._margin_cache
        if cached is not None and cached[0] == key and cached[1] is self.view:
            return cached[2]
        fm = QFontMetrics(self.font())
        left = max([fm.horizontalAdvance(_label(w)) for w in self.view.words] + [20]) + 8
        top = max([fm.horizontalAdvance(_label(w)) for w in self.view.src_words] + [20]) + 8
        self._margin_cache = (key, self.view, (left, top))
        return left, top

    def sizeHint(self) -> QSize:  # noqa: N802
        if not self.view:
            return QSize(200, 100)
        left, top = self._margins()
        return QSize(left + CELL * len(self.view.src_words) + GATE_W + 60, top + CELL * len(self.view.words) + 8)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self.sizeHint()

    def aligned(self, i: int, threshold: float = 0.25) -> list[int]:
        """Source words holding at least ``threshold`` of target word ``i``'s attention (best first)."""
        row = self.view.alignment[i] if self.view and i < len(self.view.alignment) else []
        order = sorted(range(len(row)), key=lambda j: -row[j])
        return [j for j in order if row[j] >= threshold] or order[:1]

    def mousePressEvent(self, e):  # noqa: N802
        if not self.view:
            return
        left, top = self._margins()
        i = int((e.position().y() - top) // CELL)
        if 0 <= i < len(self.view.words):
            self.selected = i
            self.update()
            self.wordClicked.emit(i, self.aligned(i))

    def paintEvent(self, e):  # noqa: N802
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("white"))
        if not self.view or not self.view.words:
            p.drawText(self.rect(), Qt.AlignCenter, "No alignment yet")
            return
        v = self.view
        left, top = self._margins()
        fm = QFontMetrics(self.font())
        # source words, rotated, along the top
        for j, w in enumerate(v.src_words):
            p.save()
            p.translate(left + j * CELL + CELL / 2 + fm.ascent() / 2, top - 4)
            p.rotate(-90)
            p.drawText(0, 0, _label(w))
            p.restore()
        sel_src = set(self.aligned(self.selected)) if self.selected is not None else set()
        n_src, n_tgt = len(v.src_words), len(v.words)
        if self._image is not None:  # the cells, nearest-neighbour scaled, then the 1-px white gaps
            p.drawImage(QRectF(left, top, n_src * CELL, n_tgt * CELL), self._image)
            p.setPen(QColor("white"))
            for j in range(1, n_src + 1):
                p.drawLine(left + j * CELL - 1, top, left + j * CELL - 1, top + n_tgt * CELL - 1)
            for i in range(1, n_tgt + 1):
                p.drawLine(left, top + i * CELL - 1, left + n_src * CELL - 1, top + i * CELL - 1)
        for i, w in enumerate(v.words):
            y = top + i * CELL
            if i == self.selected:
                p.fillRect(QRectF(0, y, left - 2, CELL), QColor("#fff3bf"))
                p.setPen(QPen(QColor("#e8590c"), 2))
                for j in sel_src:
                    p.drawRect(QRectF(left + j * CELL, y, CELL - 1, CELL - 1).adjusted(1, 1, -1, -1))
            p.setPen(QColor("black"))
            p.drawText(QRectF(0, y, left - 6, CELL), Qt.AlignRight | Qt.AlignVCenter, _label(w))
            if v.gates is not None and i < len(v.gates):
                g = v.gates[i]
                gx = left + len(v.src_words) * CELL + 8
                gc = QColor(200, 90, 20)
                gc.setAlphaF(max(0.05, min(1.0, g)))
                p.fillRect(QRectF(gx, y, GATE_W, CELL - 1), gc)
                p.setPen(QColor("#444444"))
                p.drawText(QRectF(gx + GATE_W + 3, y, 50, CELL), Qt.AlignVCenter, f"{g:.2f}")
        if v.gates is not None:
            gx = left + len(v.src_words) * CELL + 8
            p.save()
            p.translate(gx + GATE_W / 2 + fm.ascent() / 2, top - 4)
            p.rotate(-90)
            p.drawText(0, 0, "source")
            p.restore()


class AlignmentPanel(QWidget):
    """Two views of the alignment (suggestion / your translation) in one heat map."""

    wordClicked = Signal(int, list)

    VIEWS = ("Machine suggestion", "Your translation")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.views: dict[str, SuggestionView | None] = {k: None for k in self.VIEWS}
        self.choice = QComboBox(self)
        self.choice.addItems(self.VIEWS)
        self.choice.currentTextChanged.connect(lambda *_: self._show())
        self.info = QLabel(self)
        self.heat = HeatMap(self)
        self.heat.wordClicked.connect(self.wordClicked.emit)
        scroll = QScrollArea(self)
        scroll.setWidget(self.heat)
        scroll.setWidgetResizable(False)
        top = QHBoxLayout()
        top.addWidget(self.choice)
        top.addWidget(self.info, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(scroll, 1)

    def set_suggestion(self, view: SuggestionView | None) -> None:
        self.views[self.VIEWS[0]] = view
        self.views[self.VIEWS[1]] = None
        self._show()

    def set_forced(self, view: SuggestionView | None) -> None:
        self.views[self.VIEWS[1]] = view
        self._show()

    def show_forced(self) -> None:
        self.choice.setCurrentIndex(1)

    def _show(self) -> None:
        v = self.views[self.choice.currentText()]
        self.heat.set_view(v)
        if v is None:
            self.info.setText("")
            self.info.setToolTip("")
        else:
            self.info.setText("darker = the source words each word was translated from; click a word to mark them")
            gate = "" if v.gates is None else "; the strip (\"source\") beside each word is its context gate z (how much " \
                                              "it drew on the source rather than the words before it)"
            how = "the model read your own translation word by word (forced decoding)" \
                if self.choice.currentIndex() == 1 else "the model's own translation"
            self.info.setToolTip(f"Engine details: attention weights of {how}{gate}; "
                                 f"log-probability {v.score:.2f}")
