"""The Comments panel: the current segment's comments -- the file's own (read-only) and the
project's, with author and time, open or resolved -- and a box to write a new one or edit one.

A view only: it says what the translator asks for by its signals (add, save an edit, resolve or
reopen, delete) and the comments controller (``app/controllers/comments.py``) does it.  Keys: in
the box Ctrl+Enter adds (or saves the comment being edited) and Escape leaves; in the list Enter
or F2 edits the selected comment, Delete deletes it.
"""
from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPolygonF
from PySide6.QtWidgets import (
    QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget,
)

from engine.store.comments import Comment

#: The mark of a row with an open comment (a corner of its "#" cell, as spreadsheets mark a note).
MARK_COLOUR = QColor("#e8590c")
#: The mark of a row whose file brings a comment of its own (a client's or reviewer's note, read-only).
NOTE_COLOUR = QColor("#868e96")
ROLE_COMMENT = Qt.UserRole + 1


def paint_mark(painter, rect, colour: QColor = MARK_COLOUR) -> None:
    """The comment mark: a small triangle in the top right corner of ``rect``."""
    s = max(6, min(10, rect.height() // 3))
    r = rect.topRight()
    painter.save()
    painter.setRenderHint(painter.RenderHint.Antialiasing)
    painter.setPen(Qt.NoPen)
    painter.setBrush(colour)
    painter.drawPolygon(QPolygonF([QPointF(r.x() - s, r.y()), QPointF(r.x() + 1, r.y()),
                                   QPointF(r.x() + 1, r.y() + s + 1)]))
    painter.restore()


def when(iso: str) -> str:
    """An ISO time (UTC) as the local date and time, to the minute."""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


class _Box(QPlainTextEdit):
    submitted = Signal()
    left = Signal()

    def event(self, e) -> bool:
        # Ctrl+Enter is also Confirm (a window shortcut): in this box it adds the comment
        if e.type() == QEvent.ShortcutOverride and (_submits(e) or e.key() == Qt.Key_Escape):
            e.accept()
            return True
        return super().event(e)

    def keyPressEvent(self, e) -> None:  # noqa: N802
        if _submits(e):
            self.submitted.emit()
        elif e.key() == Qt.Key_Escape:
            self.left.emit()
        else:
            super().keyPressEvent(e)


def _submits(e) -> bool:
    return e.key() in (Qt.Key_Return, Qt.Key_Enter) and bool(e.modifiers() & Qt.ControlModifier)


class _List(QListWidget):
    editAsked = Signal()
    deleteAsked = Signal()

    def keyPressEvent(self, e) -> None:  # noqa: N802
        if e.key() in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_F2):
            self.editAsked.emit()
        elif e.key() == Qt.Key_Delete:
            self.deleteAsked.emit()
        else:
            super().keyPressEvent(e)


class CommentsPanel(QWidget):
    addRequested = Signal(str)
    editRequested = Signal(int, str)       # comment id, new text
    resolveRequested = Signal(int, bool)   # comment id, resolved (False: reopen)
    deleteRequested = Signal(int)
    leaveRequested = Signal()              # Escape in the box: back to the target

    def __init__(self, parent=None):
        super().__init__(parent)
        self.editing: int | None = None   # the comment whose text the box holds
        self.heading = QLabel(self)
        self.where = QLabel(self)
        self.where.setWordWrap(True)
        self.where.setStyleSheet("color: #555;")
        self.list = _List(self)
        self.list.setWordWrap(True)
        self.box = _Box(self)
        self.box.setPlaceholderText("Write a comment on this segment; Ctrl+Enter adds it.")
        self.box.setTabChangesFocus(True)
        self.box.setMaximumHeight(90)
        self.add_button = QPushButton("Add", self)
        self.resolve_button = QPushButton("Resolve", self)
        self.delete_button = QPushButton("Delete", self)
        buttons = QHBoxLayout()
        for b in (self.add_button, self.resolve_button, self.delete_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        for wdg in (self.heading, self.list, self.box):
            lay.addWidget(wdg)
        lay.addLayout(buttons)
        lay.addWidget(self.where)
        self.box.submitted.connect(self._submit)
        self.box.left.connect(self.leaveRequested)
        self.add_button.clicked.connect(self._submit)
        self.list.editAsked.connect(self.edit_selected)
        self.list.deleteAsked.connect(self._delete)
        self.list.itemDoubleClicked.connect(lambda _item: self.edit_selected())
        self.list.currentItemChanged.connect(lambda *_: self._buttons())
        self.resolve_button.clicked.connect(self.toggle_selected)
        self.delete_button.clicked.connect(self._delete)
        self.show_segment(None)

    # -- what it shows
    def show_segment(self, number: int | None, file_note: str = "", comments: list[Comment] = (),
                     place: str = "") -> None:
        """Segment ``number`` (1-based; None: none) with the file's own comments and the project's."""
        keep = self.selected()
        self.list.clear()
        self.editing = None
        self.add_button.setText("Add")
        self.heading.setText(f"<b>Segment {number}</b>" if number else "No segment")
        self.where.setText(place)
        self.box.setEnabled(number is not None)
        for line in (file_note.split("\n") if file_note else []):
            item = QListWidgetItem(f"From the file (read-only): {line}")
            item.setForeground(QColor("#555"))
            item.setFlags(Qt.ItemIsEnabled)
            self.list.addItem(item)
        for c in comments:
            state = "resolved" if c.resolved else "open"
            edited = f", edited {when(c.updated_at)}" if c.updated_at != c.created_at else ""
            item = QListWidgetItem(f"{c.author} · {when(c.created_at)}{edited} · {state}\n{c.text}")
            item.setData(ROLE_COMMENT, (c.id, c.resolved, c.text))
            if c.resolved:
                item.setForeground(QColor("#888"))
            self.list.addItem(item)
            if c.id == keep:
                self.list.setCurrentItem(item)
        self._buttons()

    def add_lqa(self, errors: list[tuple[str, str]]) -> None:
        """The segment's LQA errors (Review ▸ Add LQA Error…), read-only here: (heading, text)."""
        for head, text in errors:
            item = QListWidgetItem(f"LQA · {head}\n{text}")
            item.setForeground(QColor("#a33"))
            item.setFlags(Qt.ItemIsEnabled)
            self.list.addItem(item)

    def selected(self) -> int | None:
        data = self._data()
        return data[0] if data else None

    def comment_ids(self) -> list[tuple[int, bool]]:
        """(id, resolved) of the project's comments shown, in order."""
        out = []
        for i in range(self.list.count()):
            d = self.list.item(i).data(ROLE_COMMENT)
            if d:
                out.append((d[0], d[1]))
        return out

    def select(self, comment_id: int) -> None:
        for i in range(self.list.count()):
            d = self.list.item(i).data(ROLE_COMMENT)
            if d and d[0] == comment_id:
                self.list.setCurrentRow(i)

    def start(self) -> None:
        """Put the cursor in the box for a new comment."""
        self.editing = None
        self.add_button.setText("Add")
        self.box.clear()
        self.box.setFocus(Qt.ShortcutFocusReason)

    def edit_selected(self) -> None:
        data = self._data()
        if not data:
            return
        self.editing = data[0]
        self.add_button.setText("Save")
        self.box.setPlainText(data[2])
        self.box.setFocus(Qt.ShortcutFocusReason)
        self.box.moveCursor(self.box.textCursor().MoveOperation.End)

    def toggle_selected(self) -> None:
        data = self._data()
        if data:
            self.resolveRequested.emit(data[0], not data[1])

    # -- private
    def _data(self):
        item = self.list.currentItem()
        return item.data(ROLE_COMMENT) if item is not None else None

    def _submit(self) -> None:
        text = self.box.toPlainText().strip()
        if not text:
            return
        if self.editing is not None:
            self.editRequested.emit(self.editing, text)
        else:
            self.addRequested.emit(text)

    def _delete(self) -> None:
        cid = self.selected()
        if cid is not None:
            self.deleteRequested.emit(cid)

    def _buttons(self) -> None:
        data = self._data()
        self.resolve_button.setEnabled(bool(data))
        self.delete_button.setEnabled(bool(data))
        self.resolve_button.setText("Reopen" if data and data[1] else "Resolve")
