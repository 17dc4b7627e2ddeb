"""The target box: a chip-aware text editor.  Tags are chips (Alt+1..9 inserts the source's
n-th tag, F9 the next missing one); copy, cut and paste inside the target keep them; misspelt
words are underlined; the right-click menu offers corrections, tags and the window's actions; the
engine's completion of what is typed shows grey after the cursor (``app/ghost.py``: Ctrl+Right takes
its next word, Tab the rest, typing along it keeps it)."""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import atexit
from typing import Callable

from PySide6.QtCore import QEvent, QMimeData, Qt, Signal
from PySide6.QtGui import QKeySequence, QTextCursor
from PySide6.QtWidgets import QApplication, QTextEdit

from engine.inline import Tag, TaggedText, tag_char
from app.chips import CHIP_TYPE, PROP_TAG_N, fill, install, insert_tag, read_tagged
from app.ghost import Ghost, paint_ghost

PAD_Y = 3  # cell padding: the box and the drawn cell put the text in the same place
SEGMENT_MIME = "application/x-verso-segment"  # clipboard: segment text with tag characters


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
    #: the translator typed and no ghost text continues the box's text (the text): a completion is wanted
    ghostWanted = Signal(str)

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
        self.ghost = Ghost()
        #: the keys that take the ghost text's next word and its rest (the preset's, app/keymap.py)
        self.ghost_keys: tuple[tuple[str, ...], tuple[str, ...]] = (("Ctrl+Right",), ("Tab",))
        self.typed_here = False  # typed in since the segment was loaded: only then is ghost text shown
        self.textChanged.connect(self._follow_ghost)

    def set_segment_text(self, text: str, tags, extra_tags=()) -> None:
        """Load a segment: ``tags`` the source's (Alt+n and F9 insert them), ``extra_tags``
        codes only the target has (a tracked change from another tool), shown and kept."""
        self.source_tags = tuple(tags)
        self.loaded, self.typed_here = True, False
        self.ghost.clear()
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
        self._insert(cur, text)
        cur.endEditBlock()
        self.setTextCursor(cur)

    def _insert(self, cur: QTextCursor, text: str) -> None:
        """Segment text at ``cur``: the source's tags as chips, another tag character dropped."""
        by_n = {t.n: t for t in self.source_tags}
        for ch in text:
            n = ord(ch) - 0xE000
            if 0 < n <= 6399 and n in by_n:
                insert_tag(cur, by_n[n])
            elif not (0xE000 < ord(ch) <= 0xF8FF):
                cur.insertText(ch)

    # -- ghost text: the completion after the cursor, painted, never in the document ------------
    def set_ghost(self, typed: str, rest: str) -> bool:
        """Show ``rest`` after the text when the box holds ``typed`` and was typed in; whether shown."""
        if not (self.typed_here and rest and self.segment_text() == typed):
            return False
        self.ghost.set(typed, rest)
        self.viewport().update()
        return True

    def clear_ghost(self) -> None:
        if self.ghost.rest:
            self.ghost.clear()
            self.viewport().update()

    def ghost_shown(self) -> str:
        """The ghost text on screen ('' when none: none, or the cursor not at the end)."""
        cur = self.textCursor()
        ghost = getattr(self, "ghost", None)  # (Qt sends events while __init__ runs)
        at_end = ghost is not None and not cur.hasSelection() and cur.atEnd()
        return ghost.rest if at_end and not self.isReadOnly() else ""

    def accept_ghost(self, whole: bool) -> bool:
        """Ctrl+Right: the ghost text's next word into the box; Tab: all of it (one undo step each)."""
        if not self.ghost_shown():
            return False
        take = self.ghost.rest if whole else self.ghost.next_word()
        cur = self.textCursor()
        cur.beginEditBlock()
        self._insert(cur, take)
        cur.endEditBlock()
        self.setTextCursor(cur)
        return True

    def _follow_ghost(self) -> None:
        if self.ghost.rest and not self.ghost.follow(self.segment_text()):
            self.viewport().update()

    def _ghost_key(self, e) -> int:
        """0: ``e`` is not a ghost key (or nothing is shown); 1: take the next word; 2: take the rest."""
        if e.type() not in (QEvent.KeyPress, QEvent.ShortcutOverride) or not self.ghost_shown():
            return 0
        seq = QKeySequence(e.keyCombination()).toString()
        return 1 if seq in self.ghost_keys[0] else 2 if seq in self.ghost_keys[1] else 0

    def wants_key(self, e) -> bool:
        """Whether the box takes key event ``e`` itself (a ghost key while ghost text is shown): the
        grid's delegate then lets Tab through instead of moving to the next cell."""
        return self._ghost_key(e) > 0

    def paintEvent(self, e):  # noqa: N802
        super().paintEvent(e)
        shown = self.ghost_shown()
        if shown:
            paint_ghost(self, TaggedText(shown, self.source_tags).display())

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
        which = self._ghost_key(e)
        if which:  # before Qt's Tab focus move and the window's shortcuts
            e.accept()
            if e.type() == QEvent.KeyPress:
                self.accept_ghost(whole=which == 2)
            return True
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
        before = self.document().revision()
        super().keyPressEvent(e)
        self._typed(before)

    def inputMethodEvent(self, e):  # noqa: N802 - dead keys and input methods type too
        before = self.document().revision()
        super().inputMethodEvent(e)
        self._typed(before)

    def _typed(self, revision: int) -> None:
        if self.document().revision() != revision and not self.isReadOnly():
            self.typed_here = True
            if not self.ghost.rest:
                self.ghostWanted.emit(self.segment_text())
