"""How the grid draws a segment: source and target cells as rich text with each tag as a
chip, the find bar's hits, the glossary terms and the alignment panel's words shaded; the
target cell is edited in a :class:`~app.target_editor.TargetEditor`.  Laid-out documents
are cached by text, width and marks."""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import re
from collections import OrderedDict
from typing import Callable

from PySide6.QtCore import QEvent, QModelIndex, QSize, Signal
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QPalette, QTextCharFormat, QTextDocument, QTextOption
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableView

from engine.inline import TaggedText
from app.chips import fill
from app.panels.comments import NOTE_COLOUR, paint_mark
from app.segment_model import COL_NUM, COL_SOURCE, COL_TARGET, ROLE_LOCKED, ROLE_RAW, ROLE_SHOWN, ROLE_TAGGED
from app.target_editor import PAD_Y, TargetEditor

TERM_COLOUR = QColor("#d3f9d8")  # glossary terms of the current source (find: yellow, alignment: amber)
#: What the box of a locked segment says when pointed at (the status bar says it on a key typed).
LOCKED_TIP = "Locked: the target cannot change until the segment is unlocked (Segment ▸ Lock/Unlock Segment)."


class ChipDelegate(QStyledItemDelegate):
    """Draws source/target cells with chips; edits targets with :class:`TargetEditor`."""

    editorCreated = Signal(object)

    def __init__(self, parent=None, reserved: Callable[[], set[str]] | None = None):
        super().__init__(parent)
        self.editor: TargetEditor | None = None
        self._reserved = reserved
        self._cache: OrderedDict = OrderedDict()
        self.highlight: tuple[str, tuple[str, ...]] | None = None  # (source text, words) from the alignment panel
        self.find_pattern = None   # the find bar's pattern: its hits are marked in every cell
        self.terms: tuple[str, tuple[tuple[int, int], ...]] | None = None  # (source text, glossary term spans)
        self.commented: frozenset[int] = frozenset()  # document rows with an open comment (marked in "#")
        self.noted: frozenset[int] = frozenset()  # document rows whose file brings its own comment (grey mark)

    def set_highlight(self, source_text: str | None, words) -> None:
        """Shade ``words`` in the source cell whose text is ``source_text`` (None clears)."""
        new = (source_text, tuple(w for w in words if w.strip())) if source_text else None
        if new == self.highlight:
            return  # nothing to redraw (entering a segment clears a highlight that is usually not there)
        self.highlight = new
        view = self.parent()
        if isinstance(view, QTableView):
            view.viewport().update()

    def set_find(self, pattern) -> None:
        """Mark every hit of ``pattern`` (a compiled regex over text between tags; None clears)
        in the source and target cells, as the find bar filters them."""
        if pattern == self.find_pattern:
            return
        self.find_pattern = pattern
        view = self.parent()
        if isinstance(view, QTableView):
            view.viewport().update()

    def set_terms(self, source_text: str | None, spans) -> None:
        """Mark the glossary terms at ``spans`` ((start, end) in ``source_text``) in the source
        cell whose text is ``source_text`` (None or no spans clears)."""
        spans = tuple(sorted({(int(a), int(b)) for a, b in spans if b > a}))
        new = (source_text, spans) if source_text and spans else None
        if new == self.terms:
            return
        self.terms = new
        view = self.parent()
        if isinstance(view, QTableView):
            view.viewport().update()

    def set_commented(self, rows, noted=()) -> None:
        """Mark the document ``rows`` that have an open comment (a corner of their "#" cell), and in
        grey the ``noted`` rows whose file brings a comment of its own."""
        rows, noted = frozenset(rows), frozenset(noted)
        if rows != self.commented or noted != self.noted:
            self.commented, self.noted = rows, noted
            view = self.parent()
            if isinstance(view, QTableView):
                view.viewport().update()

    def term_spans(self, tt: TaggedText) -> list[tuple[int, int]]:
        """The glossary terms marked in the source cell showing ``tt``."""
        if self.terms is None or self.terms[0] != tt.text:
            return []
        return list(self.terms[1])

    def find_spans(self, tt: TaggedText) -> list[tuple[int, int]]:
        """Where the find pattern hits in ``tt.text`` (never across a tag)."""
        if self.find_pattern is None:
            return []
        out = []
        for m in re.finditer(r"[^\ue001-\uf8ff]+", tt.text):
            for h in self.find_pattern.finditer(m.group(0)):
                if h.end() > h.start():
                    out.append((m.start() + h.start(), m.start() + h.end()))
        return out

    # -- drawing ----------------------------------------------------------------
    def _highlight_formats(self, tt: TaggedText, source: bool = False):
        out = []
        if source and self.terms is not None:
            term = QTextCharFormat()
            term.setBackground(TERM_COLOUR)
            term.setUnderlineStyle(QTextCharFormat.DotLine)
            term.setUnderlineColor(QColor("#2b8a3e"))
            out += [(a, b, term) for a, b in self.term_spans(tt)]
        if self.find_pattern is not None:
            hit = QTextCharFormat()
            hit.setBackground(QColor("#fff3a0"))
            hit.setUnderlineStyle(QTextCharFormat.SingleUnderline)
            out += [(a, b, hit) for a, b in self.find_spans(tt)]
        if not self.highlight or self.highlight[0] != tt.text:
            return tuple(out)
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#ffd43b"))
        pos = 0
        for w in self.highlight[1]:
            i = tt.text.find(w, pos)
            if i < 0:
                i = tt.text.find(w)
            if i >= 0:
                out.append((i, i + len(w), fmt))
                pos = i + len(w)
        return tuple(out)

    def _doc(self, tt: TaggedText, width: int, font, source: bool = False) -> QTextDocument:
        formats = self._highlight_formats(tt, source)
        key = (tt.text, width, font.toString(), tuple((a, b, f.background().color().rgb()) for a, b, f in formats))
        doc = self._cache.get(key)
        if doc is not None:
            self._cache.move_to_end(key)
            return doc
        doc = QTextDocument()
        doc.setDefaultFont(font)
        doc.setDocumentMargin(PAD_Y)
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WrapAtWordBoundaryOrAnywhere)
        doc.setDefaultTextOption(opt)
        fill(doc, tt.text, tt.tags, formats)
        doc.setTextWidth(max(20, width))
        self._cache[key] = doc
        if len(self._cache) > 600:
            self._cache.popitem(last=False)
        return doc

    def paint(self, painter, option, index):
        tt = index.data(ROLE_SHOWN)  # a target's Track Changes changes drawn too
        if tt is None:
            super().paint(painter, option, index)
            if (self.commented or self.noted) and index.column() == COL_NUM:
                row = (index.data() or 0) - 1  # "#" shows the document row + 1, filtered or not
                if row in self.commented:
                    paint_mark(painter, option.rect)
                elif row in self.noted:
                    paint_mark(painter, option.rect, NOTE_COLOUR)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.CE_ItemViewItem, opt, painter, opt.widget)
        doc = self._doc(tt, option.rect.width(), option.font, index.column() == COL_SOURCE)
        painter.save()
        painter.translate(option.rect.topLeft())
        painter.setClipRect(0, 0, option.rect.width(), option.rect.height())
        ctx = QAbstractTextDocumentLayout.PaintContext()
        if option.state & QStyle.State_Selected:
            ctx.palette.setColor(QPalette.Text, option.palette.color(QPalette.HighlightedText))
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option, index):  # noqa: N802
        tt = index.data(ROLE_SHOWN)  # a target's Track Changes changes drawn too
        if tt is None:
            return super().sizeHint(option, index)
        view = self.parent()
        if isinstance(view, QTableView):  # the width paint() gets: the column less its grid line, so
            # the row is laid out once for both (at the column's width it was laid out twice)
            width = view.columnWidth(index.column()) - (1 if view.showGrid() else 0)
        else:
            width = option.rect.width()
        doc = self._doc(tt, width, option.font, index.column() == COL_SOURCE)
        return QSize(width, int(doc.size().height()) + 1)

    # -- editing ----------------------------------------------------------------
    def createEditor(self, parent, option, index):  # noqa: N802
        if index.column() != COL_TARGET:
            return None
        ed = TargetEditor(parent, self._reserved)
        ed.committed.connect(lambda ed=ed: (self.commitData.emit(ed), self.closeEditor.emit(ed)))
        ed.textChanged.connect(lambda ed=ed, index=index: self._grow(ed, index))
        self.editor = ed
        ed.destroyed.connect(lambda *_: self.editor is ed and setattr(self, "editor", None))
        self.editorCreated.emit(ed)
        return ed

    def eventFilter(self, obj, e):  # noqa: N802 - Tab takes the box's ghost text rather than the next cell
        if e.type() == QEvent.KeyPress and isinstance(obj, TargetEditor) and obj.wants_key(e):
            return False
        return super().eventFilter(obj, e)

    def setEditorData(self, editor, index):  # noqa: N802
        locked = bool(index.data(ROLE_LOCKED))
        if editor.isReadOnly() != locked:  # a locked segment's box shows its target and takes no typing
            editor.setReadOnly(locked)
            editor.setToolTip(LOCKED_TIP if locked else "")
        seg = index.model().data(index, ROLE_TAGGED)
        src = index.model().index(index.row(), COL_SOURCE).data(ROLE_TAGGED)
        text = seg.text if seg else ""
        if editor.loaded and editor.segment_text() == text:
            return  # the model caught up with the editor: keep its undo history
        src_tags = src.tags if src else ()
        known = {t.n for t in src_tags}
        # the target's own codes (tracked changes) too: an editor without them would read back a
        # different text and leaving the segment would rewrite it
        editor.set_segment_text(text, src_tags, [t for t in (seg.tags if seg else ()) if t.n not in known])

    def setModelData(self, editor, model, index):  # noqa: N802
        model.setData(index, editor.segment_text(), ROLE_RAW)

    def updateEditorGeometry(self, editor, option, index):  # noqa: N802
        editor.setGeometry(option.rect)

    def _grow(self, ed: TargetEditor, index: QModelIndex) -> None:
        view = self.parent()
        if not isinstance(view, QTableView) or not index.isValid():
            return
        need = int(ed.document().size().height()) + 2
        if need > view.rowHeight(index.row()):
            view.setRowHeight(index.row(), need)

    def commit_open_editor(self) -> None:
        """Write what is typed in an open editor to the model (before confirming)."""
        if self.editor is not None:
            self.commitData.emit(self.editor)
