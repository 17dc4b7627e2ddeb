"""The machine suggestion, with the words that came from memory shaded by
their copy weight ζ·p_copy (a weight that rounds to 0.00 is not shaded);
hovering one shows the TM entry and word.  The completion of what the
translator typed is a second, separate line."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor, QTextCharFormat
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.inline import TaggedText
from engine.nmt.finish import finish
from app.chips import fill
from app.panels.textview import ChipView
from app.suggest import SuggestionView

COPY_COLOUR = QColor(32, 160, 120)
GLOSSARY_COLOUR = QColor(40, 90, 200)


def no_model_message(src_lang: str, tgt_lang: str) -> str:
    """The panel's one line when no model translates the project's pair: why, and the two ways forward."""
    return (f"No model for {src_lang} → {tgt_lang}, so no machine suggestion: Tools ▸ Train a Model for This "
            "Project… trains one from your TMs, or Tools ▸ Models… ▸ Import… adds one.")


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


def finished(view: SuggestionView, tags=()) -> tuple[SuggestionView, list]:
    """``view`` with the source's tags and menu separators put back, its glossary terms (``term_spans``)
    apart from their neighbours and nothing after its finished sentence, and what it still leaves out
    (:func:`engine.nmt.finish.finish`; what the translator typed, ``prefix``, is kept as typed)."""
    if view.extra.get("origin") == "tm":   # the translator's own translation: shown as it is
        return view, []
    source = TaggedText(view.source, tuple(tags)) if tags else view.source
    return finish(view, source, terms=view.extra.get("term_spans", ()), prefix=view.extra.get("prefix", ""))


def shading(weight: float) -> QColor:
    c = QColor(COPY_COLOUR)
    c.setAlpha(int(90 + 165 * max(0.0, min(1.0, weight))))  # the faintest copy still visible at a glance
    return c


class SuggestionPanel(QWidget):
    """Two lines, never mixed: the **suggestion** (the engine's translation of this segment's
    source; what *Insert Machine Suggestion* inserts) and, below it, the **completion** (the
    rest of what the translator typed; its own action).  Entering another segment clears
    both before anything new arrives, so no line ever shows another segment's text.
    Engine details (log-probability, how many TM matches were read) are in the tooltip."""

    insertRequested = Signal()
    completionRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.current: SuggestionView | None = None
        self.completion: SuggestionView | None = None
        self.tags = ()
        self.status = QLabel("Loading the translation engine…", self)
        self.status.setWordWrap(True)
        self.view = ChipView(self)
        self.insert_button = QPushButton("Insert", self)
        self.insert_button.setToolTip("Put the machine suggestion into the target")
        self.insert_button.clicked.connect(self.insertRequested.emit)
        self.completion_label = QLabel("Completes what you typed:", self)
        self.completion_view = ChipView(self)
        self.completion_view.setMaximumHeight(60)
        self.completion_button = QPushButton("Use", self)
        self.completion_button.setToolTip("Replace the target with what you typed plus the machine's completion")
        self.completion_button.clicked.connect(self.completionRequested.emit)
        self.legend = QLabel(self)
        self.legend.setText("<span style='background:rgba(32,160,120,0.6)'>&nbsp;shaded&nbsp;</span>"
                            " words come from your translation memory (darker = copied more surely); "
                            "hover a word to see the TM entry")
        self.legend.setWordWrap(True)
        # what the suggestion leaves out of the source (a negation, number, code, menu separator, tag)
        self.omissions = QLabel(self)
        self.omissions.setWordWrap(True)
        self.omissions.setStyleSheet("color: #b00020")
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.insert_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.completion_label, 1)
        bottom.addWidget(self.completion_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.omissions)
        lay.addWidget(self.legend)
        lay.addLayout(bottom)
        lay.addWidget(self.completion_view)
        self.legend.hide()
        self.omissions.hide()
        self._show_completion_line(False)

    def _show_completion_line(self, on: bool) -> None:
        for w in (self.completion_label, self.completion_view, self.completion_button):
            w.setVisible(on)

    def show_message(self, text: str) -> None:
        self.current = None
        self.view.clear()
        self.status.setText(text)
        self.status.setToolTip("")
        self.legend.hide()
        self.omissions.hide()
        self.clear_completion()

    def working(self) -> None:
        """A new segment: forget the last one's suggestion and completion at once."""
        self.current = None
        self.view.clear()
        self.legend.hide()
        self.omissions.hide()
        self.status.setText("Translating…")
        self.status.setToolTip("")
        self.clear_completion()

    def clear_completion(self) -> None:
        self.completion = None
        self.completion_view.clear()
        self._show_completion_line(False)

    def _fill(self, target: ChipView, view: SuggestionView, tags) -> None:
        formats = []
        for term in view.extra.get("terms", ()):  # glossary terms: underlined, named in the tooltip
            i = view.text.find(term)
            if i >= 0:
                f = QTextCharFormat()
                f.setUnderlineStyle(QTextCharFormat.SingleUnderline)
                f.setUnderlineColor(GLOSSARY_COLOUR)
                f.setFontUnderline(True)
                f.setToolTip(f"from the glossary: {term}")
                formats.append((i, i + len(term), f))
        if view.has_memory:
            for span, ref in zip(word_spans(view.text, view.words), view.memory or []):
                # A word whose copy weight rounds to 0.00 was not copied in any sense a reader sees.
                if span is None or ref is None or round(ref.weight, 2) <= 0.0:
                    continue
                f = QTextCharFormat()
                f.setBackground(shading(ref.weight))
                f.setToolTip(ref.tooltip())
                formats.append((span[0], span[1], f))
        fill(target.document(), view.text, tuple(tags), formats)

    def show_view(self, view: SuggestionView, tags=()) -> None:
        """The suggestion for the current segment's source, mended and marked (:func:`finished`)."""
        view, marks = finished(view, tags)
        self.current, self.tags = view, tuple(tags)
        self.omissions.setText("Check: the suggestion possibly " + "; ".join(m.describe() for m in marks)
                               if marks else "")
        self.omissions.setToolTip("The suggestion has no word for these source words (the ones its attention "
                                  "covers least), or words the source lacks: check them before you confirm."
                                  if marks else "")
        self.omissions.setVisible(bool(marks))
        self._fill(self.view, view, self.tags)
        n = view.used_memory
        if view.extra.get("origin") == "tm":  # the translator's own translation of this very source
            self.status.setText("100 % match from your translation memory")
            self.status.setToolTip("The TM holds this very source: its translation is the suggestion "
                                   f"(engine log-probability {view.score:.2f})")
            self.legend.setVisible(False)
            return
        self.status.setText("Machine suggestion" + (f" · uses {n} TM match{'es' if n != 1 else ''}" if n else ""))
        self.status.setToolTip(f"Engine details: log-probability {view.score:.2f}"
                               + (f"; read {n} TM pair(s) in its memory" if n else ""))
        self.legend.setVisible(view.has_memory)

    def show_completion(self, view: SuggestionView, tags=()) -> None:
        """The engine's completion of what the translator typed in the current segment (mended as the
        suggestion is; what was typed is never changed)."""
        view, marks = finished(view, tags)
        self.completion = view
        self._fill(self.completion_view, view, tuple(tags))
        self.completion_view.setToolTip(f"Engine details: log-probability {view.score:.2f}" + (
            "\nCheck: it possibly " + "; ".join(m.describe() for m in marks) if marks else ""))
        self._show_completion_line(True)

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
