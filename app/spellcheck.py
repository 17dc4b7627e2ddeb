"""Spelling in a text editor: red wavy underlines and corrections in the context menu.

Wiring (the target editor)::

    hl = SpellHighlighter(editor.document(), checker)      # checker: engine.spelling.SpellChecker or None

    def contextMenuEvent(self, ev):                         # in the editor class
        menu = self.createStandardContextMenu(ev.pos())
        add_spelling_actions(menu, self, ev.pos(), checker, on_add_word=project_dictionary.add)
        menu.exec(ev.globalPos())

Chips (inline tags, U+FFFC in the document) end a word.  Qt counts UTF-16 units, Python
counts code points: the offsets are converted both ways, so an emoji before a word does
not shift its underline.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

from typing import Callable

import weakref

from PySide6.QtCore import QPoint, QSignalBlocker, Qt
from PySide6.QtGui import QAction, QColor, QGuiApplication, QSyntaxHighlighter, QTextCharFormat, \
    QTextCursor, QTextDocument
from PySide6.QtWidgets import QMenu, QPlainTextEdit, QTextEdit

from app.uipost import post_to, prepare
from engine.spelling import Misspelling, SpellChecker

UNDERLINE_COLOUR = QColor(220, 30, 30)


def _utf16_index(text: str) -> list[int] | None:
    """For text with characters outside the BMP: UTF-16 offset of each code point offset
    (one more entry for the end).  None when the two agree (the usual case)."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return None
    out, u = [], 0
    for c in text:
        out.append(u)
        u += 2 if ord(c) >= 0x10000 else 1
    out.append(u)
    return out


def _to_utf16(index: list[int] | None, i: int) -> int:
    return i if index is None else index[i]


def _from_utf16(index: list[int] | None, u: int) -> int:
    if index is None:
        return u
    import bisect

    return max(0, bisect.bisect_right(index, u) - 1)


def misspelling_format() -> QTextCharFormat:
    """The look of a misspelt word: a red spell-check (wavy) underline, nothing else changed."""
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(QTextCharFormat.SpellCheckUnderline)
    fmt.setUnderlineColor(UNDERLINE_COLOUR)
    return fmt


class SpellHighlighter(QSyntaxHighlighter):
    """Underlines the misspelt words of ``document``; with no checker it underlines nothing.
    The UI thread never waits for a spelling process: words it has not answered yet are not
    underlined, and the underlines are redone when its answers come (or when it answers again
    after it had ended)."""

    def __init__(self, document: QTextDocument, checker: SpellChecker | None = None):
        super().__init__(document)
        prepare()   # the post object, made here on the UI thread
        self._checker = None
        # How to leave the current checker's callbacks; a list, so that the destroyed signal's
        # handler holds it and not the highlighter.
        self._unwatch: list[Callable[[], None]] = []
        self._format = misspelling_format()
        self._watch(checker)
        unwatch = self._unwatch
        self.destroyed.connect(lambda _=None: [fn() for fn in unwatch])

    def checker(self) -> SpellChecker | None:
        return self._checker

    def set_checker(self, checker: SpellChecker | None) -> None:
        """Use ``checker`` (None: spelling off) and redo the underlines."""
        self._watch(checker)
        self.rehighlight()

    def _watch(self, checker: SpellChecker | None) -> None:
        if checker is self._checker:
            return
        for fn in self._unwatch:
            fn()
        self._unwatch.clear()
        if checker is not None:
            me = weakref.ref(self)

            def news() -> None:
                # (on the checker's thread: never an emit on this highlighter, which the UI thread
                # may be deleting with its editor -- 2 runs of 6 of tests/app/test_qa_marks.py segfaulted)
                post_to(me, SpellHighlighter._on_news)

            checker.on_news(news)
            # A closed editor's highlighter goes with its document: its callback leaves the
            # checker then (one editor per segment opened; the checker lives for the project).
            self._unwatch.append(lambda: checker.off_news(news))
        self._checker = checker

    def _on_news(self) -> None:
        if self._checker is not None and self.document() is not None:
            # The document's signals held: a rehighlight emits the editor's textChanged, which
            # would start the autosave and ask the suggestion engine for a completion each time.
            with QSignalBlocker(self.document()):
                self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        checker = self._checker
        if checker is None or not text:
            return
        index = _utf16_index(text)
        for m in checker.misspellings(text, wait=False):
            start = _to_utf16(index, m.start)
            self.setFormat(start, _to_utf16(index, m.end) - start, self._format)


def rehighlight_document(document: QTextDocument) -> None:
    """Redo the underlines of every :class:`SpellHighlighter` on ``document`` (after a word was added)."""
    for h in document.findChildren(SpellHighlighter):
        h.rehighlight()


def misspelling_at(editor: QTextEdit | QPlainTextEdit, pos: QPoint,
                   checker: SpellChecker | None) -> tuple[int, int, str] | None:
    """The misspelt word under viewport point ``pos``: (document start, document end, word), or None."""
    if checker is None:
        return None
    cursor = editor.cursorForPosition(pos)
    block = cursor.block()
    text = block.text()
    index = _utf16_index(text)
    col = _from_utf16(index, cursor.positionInBlock())
    hit: Misspelling | None = next((m for m in checker.misspellings(text) if m.start <= col <= m.end), None)
    if hit is None:
        return None
    base = block.position()
    return base + _to_utf16(index, hit.start), base + _to_utf16(index, hit.end), hit.word


def replace_word(editor: QTextEdit | QPlainTextEdit, start: int, end: int, word: str, replacement: str) -> bool:
    """Replace ``word`` at document positions [start, end) with ``replacement`` as one undo step.
    False (and nothing changed) when the text there is no longer ``word``."""
    cursor = QTextCursor(editor.document())
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.KeepAnchor)
    if cursor.selectedText() != word:
        return False
    cursor.beginEditBlock()
    cursor.insertText(replacement)
    cursor.endEditBlock()
    editor.setTextCursor(cursor)
    return True


def add_spelling_actions(menu: QMenu, editor: QTextEdit | QPlainTextEdit, pos: QPoint,
                         checker: SpellChecker | None,
                         on_add_word: Callable[[str], object] | None = None, limit: int = 5) -> bool:
    """When the word under ``pos`` (viewport coordinates, as in a context menu event) is misspelt,
    put at the top of ``menu``: up to ``limit`` corrections (choosing one replaces the word, one
    undo step; none in a read-only editor), "Add to Dictionary", a separator.

    "Add to Dictionary" adds the word to ``checker`` for this session, calls ``on_add_word(word)``
    (to keep it, e.g. :meth:`engine.spelling.ProjectDictionary.add`) and redoes the underlines of
    the editor's document.  Returns True when actions were added.
    """
    hit = misspelling_at(editor, pos, checker)
    if hit is None:
        return False
    start, end, word = hit
    QGuiApplication.setOverrideCursor(Qt.WaitCursor)
    try:
        suggestions = checker.suggest(word, limit)  # type: ignore[union-attr]
    finally:
        QGuiApplication.restoreOverrideCursor()
    first = menu.actions()[0] if menu.actions() else None
    actions: list[QAction] = []
    if not editor.isReadOnly():
        for s in suggestions:
            act = QAction(s, menu)
            font = act.font()
            font.setBold(True)
            act.setFont(font)
            act.triggered.connect(lambda _=False, s=s: replace_word(editor, start, end, word, s))
            actions.append(act)
        if not suggestions:
            none = QAction("No suggestions", menu)
            none.setEnabled(False)
            actions.append(none)
    add = QAction(f"Add \u201c{word}\u201d to Dictionary", menu)
    add.setObjectName("spellingAddWord")

    def _add() -> None:
        checker.add_word(word)  # type: ignore[union-attr]
        if on_add_word is not None:
            on_add_word(word)
        rehighlight_document(editor.document())

    add.triggered.connect(_add)
    actions.append(add)
    for act in actions:
        if first is not None:
            menu.insertAction(first, act)
        else:
            menu.addAction(act)
    if first is not None:
        menu.insertSeparator(first)
    return True


__all__ = ["SpellHighlighter", "add_spelling_actions", "misspelling_at", "misspelling_format",
           "rehighlight_document", "replace_word"]
