"""Ghost text: the engine's completion of what the translator typed, shown grey after the cursor in
the target box and never part of its document (so never saved, exported or undone).

:class:`Ghost` is the text logic, kept apart from the widget: which typed text it continues, how it
follows typing that matches it, and what one accept takes (the next word, or the rest).
:func:`paint_ghost` draws it after the cursor, wrapped to the box.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF, QPainter, QPalette

_NEXT_WORD = re.compile(r"\s*\S+")


class Ghost:
    """The completion ``rest`` of the typed text ``typed`` (empty ``rest``: no ghost text)."""

    def __init__(self):
        self.typed, self.rest = "", ""

    def set(self, typed: str, rest: str) -> None:
        self.typed, self.rest = typed, rest

    def clear(self) -> None:
        self.typed, self.rest = "", ""

    def follow(self, text: str) -> bool:
        """The box now holds ``text``: where it is still a start of the typed text and its ghost text
        (typed along it, or erased back), the ghost text is what is left after it; anything else
        clears it.  Whether any is left."""
        if not self.rest or text == self.typed:
            return bool(self.rest)
        whole = self.typed + self.rest  # typed along it, or erased back along it (Backspace)
        if text.strip() and whole.startswith(text) and len(text) < len(whole):
            self.typed, self.rest = text, whole[len(text):]
        else:
            self.clear()
        return bool(self.rest)

    def next_word(self) -> str:
        """What Ctrl+Right takes: the white space before the next word and the word."""
        m = _NEXT_WORD.match(self.rest)
        return m.group(0) if m else self.rest


def paint_ghost(editor, text: str) -> None:
    """Draw ``text`` in the placeholder colour from the cursor (at the end of the box) on, wrapped at
    the viewport's edge; lines past the box are clipped, not grown into."""
    vp = editor.viewport()
    fm = QFontMetricsF(editor.font())
    margin = editor.document().documentMargin()
    rect = editor.cursorRect()
    x, y = rect.right() + 1.0, rect.top() + fm.ascent() + max(0.0, (rect.height() - fm.height()) / 2)
    right = vp.width() - margin
    p = QPainter(vp)
    p.setFont(editor.font())
    p.setPen(editor.palette().color(QPalette.PlaceholderText))
    for piece in re.findall(r"\s*\S+", text):
        w = fm.horizontalAdvance(piece)
        if x + w > right and x > margin + 1:  # the word to the next line, without its space
            piece = piece.lstrip()
            w = fm.horizontalAdvance(piece)
            x, y = margin, y + fm.lineSpacing()
            if y - fm.ascent() > vp.height():
                break
        p.drawText(QPointF(x, y), piece)
        x += w
    p.end()
