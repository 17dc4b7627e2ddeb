"""Segment ▸ Split Segment: the source with a text cursor (tags as chips, one character each).
The arrow keys place the cursor (Ctrl+arrow: by word, Home/End), Enter splits there, Escape
cancels."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextEdit, QVBoxLayout

from engine.inline import TaggedText

from app.chips import fill


def middle(text: str) -> int:
    """Where the cursor starts: the word start nearest the middle of ``text``."""
    starts = [i for i in range(1, len(text)) if text[i - 1].isspace() and not text[i].isspace()]
    return min(starts, key=lambda i: abs(i - len(text) / 2)) if starts else len(text) // 2


class SplitSegmentDialog(QDialog):
    def __init__(self, number: int, source: TaggedText, at: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Split Segment {number}")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Move the cursor to where the segment splits (arrow keys; Ctrl+arrow by word), "
                             "then press Enter."))
        self.view = QTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setTextInteractionFlags(Qt.TextSelectableByKeyboard | Qt.TextSelectableByMouse)
        self.view.setTabChangesFocus(True)
        fill(self.view.document(), source.text, source.tags)
        cur = self.view.textCursor()
        cur.setPosition(max(0, min(at, len(source.text))))
        self.view.setTextCursor(cur)
        lay.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, parent=self)
        buttons.button(QDialogButtonBox.Ok).setText("&Split Here")
        buttons.button(QDialogButtonBox.Ok).setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.view.setFocus()
        self.resize(560, 200)

    def position(self) -> int:
        """The cursor's position in the segment's source text (a chip counts as one character)."""
        return self.view.textCursor().position()
