"""A read-only rich text view that draws tag chips and shows per-fragment tooltips."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip

from app.chips import install


class ChipView(QTextBrowser):
    """Read-only view; ``blockClicked(user_state)`` tells which item was clicked."""

    blockClicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        install(self.document())
        self.setOpenLinks(False)
        self.setReadOnly(True)

    def tooltip_at(self, pos) -> str:
        """Tooltip of the fragment under ``pos`` (viewport coordinates)."""
        cur = self.cursorForPosition(pos)
        doc = self.document()
        for p in (cur.position(), cur.position() + 1):
            c = QTextCursor(doc)
            c.setPosition(max(0, min(p, doc.characterCount() - 1)))
            tip = c.charFormat().toolTip()
            if tip:
                return tip
        return ""

    def viewportEvent(self, e):  # noqa: N802
        if e.type() == QEvent.ToolTip:
            tip = self.tooltip_at(e.pos())
            if tip:
                QToolTip.showText(e.globalPos(), tip, self)
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(e)

    def mousePressEvent(self, e):  # noqa: N802
        block = self.cursorForPosition(e.position().toPoint()).block()
        if block.userState() >= 0:
            self.blockClicked.emit(block.userState())
        super().mousePressEvent(e)
