"""The segment grid: cells drawn with tag chips, a chip-aware target editor,
and row heights that fit the text after a column resize.

Row heights are fitted lazily -- only the rows on screen, again whenever the
view scrolls or a column is resized -- so a 10,000-segment document never
blocks the UI thread measuring rows nobody looks at.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import atexit
import re
import time
from collections import OrderedDict
from typing import Callable

from PySide6.QtCore import QEvent, QMimeData, QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QKeySequence,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTextEdit,
)

from engine.inline import Tag, TaggedText, tag_char
from app.chips import CHIP_TYPE, PROP_TAG_N, fill, install, insert_tag, read_tagged
from app.segment_model import COL_SOURCE, COL_TARGET, ROLE_RAW, ROLE_TAGGED

PAD_X, PAD_Y = 4, 3
SEGMENT_MIME = "application/x-verso-segment"  # clipboard: segment text with tag characters
TERM_COLOUR = QColor("#d3f9d8")  # glossary terms of the current source (find: yellow, alignment: amber)
FIT_BUDGET_S = 0.008  # longest a lazy row-height fit may hold the UI thread before yielding


_clipboard_hook: list[bool] = []


def _release_clipboard_at_exit() -> None:
    """Clipboard data set from Python still held by Qt when the interpreter exits crashes it
    (PySide6: both sides delete the QMimeData); give it back before that, once registered."""
    if _clipboard_hook:
        return
    _clipboard_hook.append(True)

    def release() -> None:
        app = QApplication.instance()
        if app is not None:
            cb = app.clipboard()
            md = cb.mimeData()
            if md is not None and md.hasFormat(SEGMENT_MIME):
                cb.clear()

    atexit.register(release)


class TargetEditor(QTextEdit):
    """The target box: tags are chips (Alt+1..9 inserts the source's n-th tag, F9 the next
    missing one; copy, cut and paste inside the target keep them), Enter commits, misspelt
    words are underlined, and the right-click menu offers corrections, tags and the window's
    segment actions.

    ``reserved``: key sequences (as strings) the window's actions own; the
    editor lets them through instead of consuming them (Ctrl+Insert, Ctrl+1..9).
    """

    committed = Signal()

    def __init__(self, parent=None, reserved: Callable[[], set[str]] | None = None):
        super().__init__(parent)
        install(self.document())
        self.setAcceptRichText(False)
        self.setTabChangesFocus(True)
        self.setFrameStyle(0)
        self.document().setDocumentMargin(PAD_Y)
        self.source_tags: tuple[Tag, ...] = ()
        self.loaded = False
        self._reserved = reserved or (lambda: set())
        self._speller = None
        self._on_add_word = None
        #: the window's actions at the bottom of the right-click menu (confirm, insert suggestion, ...)
        self.menu_actions: list = []

    def set_segment_text(self, text: str, tags, extra_tags=()) -> None:
        """Load a segment: ``tags`` the source's (Alt+n and F9 insert them), ``extra_tags``
        codes only the target has (a tracked change from another tool), shown and kept."""
        self.source_tags = tuple(tags)
        self.loaded = True
        fill(self.document(), text, self.source_tags + tuple(extra_tags))
        self.document().clearUndoRedoStacks()
        self.moveCursor(self.textCursor().MoveOperation.End)

    def segment_text(self) -> str:
        return read_tagged(self.document(), self.source_tags)

    def replace_text(self, text: str) -> None:
        """Replace everything (one undo step): inserting a match or a suggestion."""
        cur = self.textCursor()
        cur.beginEditBlock()
        cur.select(cur.SelectionType.Document)
        cur.removeSelectedText()
        by_n = {t.n: t for t in self.source_tags}
        for ch in text:
            n = ord(ch) - 0xE000
            if 0 < n <= 6399 and n in by_n:
                insert_tag(cur, by_n[n])
            elif not (0xE000 < ord(ch) <= 0xF8FF):
                cur.insertText(ch)
        cur.endEditBlock()
        self.setTextCursor(cur)

    def missing_tags(self) -> list[Tag]:
        present = set(self.segment_text())
        return [t for t in self.source_tags if tag_char(t.n) not in present]

    def insert_next_tag(self) -> bool:
        """F9: insert the missing tag that comes next in the source after the tags already
        before the cursor (so repeated F9 walks the source's tags in order, not always the
        first missing one); False when none is missing."""
        missing = self.missing_tags()
        if not missing:
            return False
        order = [t.n for t in self.source_tags]
        before = [c for c in self._segment_text_range(0, self.textCursor().position())
                  if 0xE000 < ord(c) <= 0xF8FF]
        last = max((order.index(ord(c) - 0xE000) for c in before if ord(c) - 0xE000 in order), default=-1)
        after = [t for t in missing if order.index(t.n) > last]
        insert_tag(self.textCursor(), (after or missing)[0])
        return True

    def insert_tag_number(self, i: int) -> bool:
        """Alt+1..9: insert the source's i-th tag (1-based, in source order), present or not."""
        if not 1 <= i <= len(self.source_tags):
            return False
        insert_tag(self.textCursor(), self.source_tags[i - 1])
        return True

    # -- clipboard: a chip copied, cut or dragged inside the target stays a chip ----
    def _segment_text_range(self, start: int, end: int) -> str:
        """Segment text (tag characters for chips) of document positions [start, end)."""
        out = []
        cur = QTextCursor(self.document())
        for pos in range(start, end):
            cur.setPosition(pos)
            cur.setPosition(pos + 1, QTextCursor.KeepAnchor)
            ch = cur.selectedText()
            fmt = cur.charFormat()
            if fmt.objectType() == CHIP_TYPE:
                out.append(tag_char(int(fmt.property(PROP_TAG_N))))
            else:
                out.append("\n" if ch in ("\u2029", "\u2028") else ch)
        return "".join(out)

    def copy_with_tags(self) -> None:
        """Ctrl+C: the selection to the clipboard with its tags (our own format) and, for other
        programs, as text with short tags (<b>).  Not by overriding createMimeDataFromSelection:
        a QMimeData made in Python and handed to Qt from there was deleted twice (by the
        clipboard and by Python) and crashed the interpreter at exit; setMimeData takes it over."""
        cur = self.textCursor()
        if not cur.hasSelection():
            return
        text = self._segment_text_range(cur.selectionStart(), cur.selectionEnd())
        md = QMimeData()
        md.setData(SEGMENT_MIME, text.encode("utf-8"))
        md.setText(TaggedText(text, self.source_tags).display())
        QApplication.clipboard().setMimeData(md)
        _release_clipboard_at_exit()

    def cut_with_tags(self) -> None:
        if self.textCursor().hasSelection():
            self.copy_with_tags()
            self.textCursor().removeSelectedText()

    def canInsertFromMimeData(self, source):  # noqa: N802
        return source.hasFormat(SEGMENT_MIME) or source.hasText()

    def insertFromMimeData(self, source):  # noqa: N802 - our tags as chips, anything else as plain text
        if source.hasFormat(SEGMENT_MIME):
            text = bytes(source.data(SEGMENT_MIME)).decode("utf-8", "replace")
            by_n = {t.n: t for t in self.source_tags}
            cur = self.textCursor()
            cur.beginEditBlock()
            for ch in text:
                n = ord(ch) - 0xE000
                if 0 < n <= 6399:
                    if n in by_n:  # a tag of another segment has no meaning here: dropped
                        insert_tag(cur, by_n[n])
                else:
                    cur.insertText(ch)
            cur.endEditBlock()
            self.setTextCursor(cur)
        elif source.hasText():  # from another program, or Qt's drag: no object characters as text
            self.textCursor().insertText(source.text().replace("\ufffc", ""))

    # -- spelling and the right-click menu ------------------------------------------
    def set_spell_checker(self, checker, on_add_word=None) -> None:
        """Underline misspellings with ``checker`` (None: off); ``on_add_word(word)`` keeps a word
        the translator adds from the right-click menu (the project dictionary)."""
        from app.spellcheck import SpellHighlighter

        self._on_add_word = on_add_word
        if self._speller is None:
            self._speller = SpellHighlighter(self.document(), checker)
        else:
            self._speller.set_checker(checker)

    def contextMenuEvent(self, e):  # noqa: N802
        from app.spellcheck import add_spelling_actions

        menu = self.createStandardContextMenu(e.pos())
        for a in menu.actions():  # Qt's own Copy and Cut drop the chips: ours keep them
            name = a.objectName()
            if name in ("edit-copy", "edit-cut"):
                mine = menu.addAction(a.text())
                mine.setShortcut(a.shortcut())
                mine.setEnabled(a.isEnabled())
                mine.triggered.connect(self.copy_with_tags if name == "edit-copy" else self.cut_with_tags)
                menu.insertAction(a, mine)
                menu.removeAction(a)
        if self._speller is not None:
            add_spelling_actions(menu, self, e.pos(), self._speller.checker(), self._on_add_word)
        if self.source_tags:
            tags = menu.addMenu("Insert &Tag")
            for i, t in enumerate(self.source_tags, 1):
                a = tags.addAction(t.display() + (f"\tAlt+{i}" if i <= 9 else ""))
                a.triggered.connect(lambda *_, i=i: self.insert_tag_number(i))
        if self.menu_actions:
            menu.addSeparator()
            for a in self.menu_actions:
                menu.addAction(a)
        menu.exec(e.globalPos())
        menu.deleteLater()

    def event(self, e):
        if e.type() == QEvent.ShortcutOverride:
            seq = QKeySequence(e.keyCombination()).toString()
            if seq in self._reserved():
                e.ignore()
                return True
            # Undo/redo go through the window (app/undo.py): it undoes in this box and gives
            # the segment the status of the text undone to (a match taken back: "new" again).
            if e.matches(QKeySequence.Undo) or e.matches(QKeySequence.Redo):
                e.ignore()
                return True
        return super().event(e)

    def keyPressEvent(self, e):  # noqa: N802
        if e.key() in (Qt.Key_Return, Qt.Key_Enter) and not e.modifiers() & (Qt.ControlModifier | Qt.ShiftModifier):
            self.committed.emit()
            return
        if e.matches(QKeySequence.Copy):
            self.copy_with_tags()
            return
        if e.matches(QKeySequence.Cut):
            self.cut_with_tags()
            return
        if e.modifiers() == Qt.AltModifier and Qt.Key_1 <= e.key() <= Qt.Key_9:
            self.insert_tag_number(e.key() - Qt.Key_0)
            return
        super().keyPressEvent(e)


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
        tt = index.data(ROLE_TAGGED)
        if tt is None:
            return super().paint(painter, option, index)
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
        tt = index.data(ROLE_TAGGED)
        if tt is None:
            return super().sizeHint(option, index)
        view = self.parent()
        width = view.columnWidth(index.column()) if isinstance(view, QTableView) else option.rect.width()
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

    def setEditorData(self, editor, index):  # noqa: N802
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


class SegmentGrid(QTableView):
    """The table of segments with lazily fitted row heights."""

    def __init__(self, parent=None, reserved: Callable[[], set[str]] | None = None):
        super().__init__(parent)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setWordWrap(True)
        self.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                             | QAbstractItemView.AnyKeyPressed)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setMinimumSectionSize(self.fontMetrics().height() + 2 * PAD_Y + 2)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 2 * PAD_Y + 2)
        self.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.delegate = ChipDelegate(self, reserved)
        self.setItemDelegateForColumn(COL_SOURCE, self.delegate)
        self.setItemDelegateForColumn(COL_TARGET, self.delegate)
        # With whole rows selected every column is always "selected": bolding the
        # header titles tells nothing and repaints the header on every move.
        self.horizontalHeader().setHighlightSections(False)
        self._fitted: set[int] = set()  # view rows fitted at the current column widths
        self._focus_to_editor = False   # the grid last lost focus to its own target editor
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(30)
        self._fit_timer.timeout.connect(self.fit_visible_rows)
        self._fit_more = QTimer(self)  # the rest of a fit cut short by FIT_BUDGET_S, as soon as idle
        self._fit_more.setSingleShot(True)
        self._fit_more.setInterval(0)
        self._fit_more.timeout.connect(self.fit_visible_rows)
        self.horizontalHeader().sectionResized.connect(lambda *_: self._refit_all())
        self.verticalScrollBar().valueChanged.connect(lambda *_: self._fit_timer.start())

    def setModel(self, model) -> None:  # noqa: N802
        super().setModel(model)
        self._fitted.clear()
        if model is not None:
            # Any change of which rows the view shows (filter, find, new document) moves
            # rows to other view positions: their heights are measured again.
            for sig in (model.modelReset, model.layoutChanged, model.rowsInserted, model.rowsRemoved,
                        model.rowsMoved):
                sig.connect(lambda *_: self._refit_all())
            model.dataChanged.connect(lambda a, b, *_: self._rows_changed(a.row(), b.row()))
        self._fit_timer.start()

    def _rows_changed(self, first: int, last: int) -> None:
        """Rows whose text changed: those on screen are fitted now, the others when they come
        into view (auto-propagation can change hundreds of rows far down the document at once;
        laying them all out held the UI thread for tens of ms)."""
        changed = range(first, last + 1)
        self._fitted.difference_update(changed)
        vis = self.visible_rows()
        on_screen = [r for r in changed if r in vis]
        if on_screen:
            self.fit_rows(on_screen)

    def _refit_all(self) -> None:
        self._fitted.clear()
        self._fit_timer.start()

    def resizeEvent(self, e):  # noqa: N802
        super().resizeEvent(e)
        self._fit_timer.start()

    # -- focus --------------------------------------------------------------------
    # QAbstractItemView repaints its WHOLE viewport on every focus in/out (the
    # selection colours follow focus).  Moving to the next segment closes one
    # target editor and opens another, so focus goes grid -> editor -> grid on
    # every Ctrl+Down/Ctrl+Enter: a full repaint of every visible row (tens of
    # chip documents) for a change that only affects the selected row.  When
    # focus moves between the grid and its own editor, repaint just that row.
    def _is_own_editor(self, w) -> bool:
        return w is not None and w is not self and self.viewport().isAncestorOf(w)

    def focusOutEvent(self, e):  # noqa: N802
        if self._is_own_editor(QApplication.focusWidget()):
            self._focus_to_editor = True
            QAbstractScrollArea.focusOutEvent(self, e)
            self._update_selected_rows()
            return
        self._focus_to_editor = False
        super().focusOutEvent(e)

    def focusInEvent(self, e):  # noqa: N802
        back_from_editor, self._focus_to_editor = self._focus_to_editor, False
        if back_from_editor and self.currentIndex().isValid():
            QAbstractScrollArea.focusInEvent(self, e)
            # What QAbstractItemView.focusInEvent does besides the full repaint:
            self.setAttribute(Qt.WA_InputMethodEnabled, bool(self.currentIndex().flags() & Qt.ItemIsEditable))
            self._update_selected_rows()
            return
        super().focusInEvent(e)

    def _update_selected_rows(self) -> None:
        """Repaint the current and selected rows (their colours depend on focus)."""
        sm = self.selectionModel()
        rows = {self.currentIndex().row()} | ({i.row() for i in sm.selectedIndexes()} if sm else set())
        width = self.viewport().width()
        for r in rows:
            if r >= 0:
                self.viewport().update(0, self.rowViewportPosition(r), width, self.rowHeight(r))

    def visible_rows(self, margin: int = 5) -> range:
        """Rows on screen (plus ``margin``); none while the view has no height yet.

        Never "all rows": on a 10,000-segment document sizing every row takes a minute.
        """
        m = self.model()
        h = self.viewport().height()
        if m is None or not m.rowCount() or h <= 0 or not self.isVisible():
            return range(0)
        top = max(0, self.rowAt(0))
        bottom = self.rowAt(h - 1)
        if bottom < 0:  # the last rows end above the bottom edge, or are not laid out yet
            bottom = top + h // max(1, self.verticalHeader().minimumSectionSize())
        return range(max(0, top - margin), min(m.rowCount(), bottom + margin + 1))

    def reveal(self, index: QModelIndex) -> None:
        """Scroll so the row of ``index`` is on screen.  A row off screen is brought to the
        middle (the segments after it in view too), not just to the edge: moving on from
        the bottom row then scrolls -- and repaints every visible row -- once every half
        screen instead of on every Ctrl+Down."""
        if not index.isValid():
            return
        top = self.rowViewportPosition(index.row())
        if top < 0 or top + self.rowHeight(index.row()) > self.viewport().height():
            self.scrollTo(index, QAbstractItemView.PositionAtCenter)

    def fit_rows(self, rows) -> None:
        """Fit the height of view ``rows`` to their text now (they changed)."""
        for r in rows:
            self.resizeRowToContents(r)
            self._fitted.add(r)
        ed = self.delegate.editor
        if ed is not None and self.currentIndex().isValid():  # the open editor may hold more text
            self.delegate._grow(ed, self.currentIndex())

    def fit_visible_rows(self) -> None:
        """Fit the rows on screen not fitted yet at the current column widths
        (a row fitted once keeps its height until it changes or a column is
        resized); again while fitting brings other rows into view.

        At most about FIT_BUDGET_S at a time (a jump or half-page scroll shows
        many new rows, each a text layout): the rest follows as soon as the
        event loop is idle, so keys and paints get in between.
        """
        deadline = time.perf_counter() + FIT_BUDGET_S
        for _ in range(4):
            rows = [r for r in self.visible_rows() if r not in self._fitted]
            if not rows:
                return
            for r in rows:
                if time.perf_counter() > deadline:
                    self._fit_more.start()
                    return
                self.fit_rows([r])
        if any(r not in self._fitted for r in self.visible_rows()):
            self._fit_more.start()  # fitting keeps bringing rows into view: go on when idle
