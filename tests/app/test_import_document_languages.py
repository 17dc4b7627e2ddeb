"""Adding a document that declares its languages (XLIFF) reads it once, in the background: the
check of its declared pair comes from the import's own read, so a large file does not hold the
window while it is read twice.  A file of another pair is still asked about (default No)."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QMessageBox

from app.main_window import MainWindow
from engine.formats import xliff12
from engine.store import Project

from editor_helpers import make_project

XLF = ('<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
       '<file source-language="en-US" target-language="{t}" datatype="plaintext" original="a"><body>'
       '<trans-unit id="1"><source>Open the file.</source></trans-unit></body></file></xliff>')


def _window(qtbot, folder) -> MainWindow:
    w = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(w)
    return w


@pytest.fixture
def parses(monkeypatch) -> list[threading.Thread]:
    """The thread of each parse of an XLIFF 1.2 file."""
    seen: list[threading.Thread] = []
    real = xliff12._Doc.__init__

    def spy(self, *args, **kwargs):
        seen.append(threading.current_thread())
        real(self, *args, **kwargs)

    monkeypatch.setattr(xliff12._Doc, "__init__", spy)
    return seen


def _ask(monkeypatch, answer) -> list[tuple[str, object]]:
    asked = []

    def question(parent, title, text, buttons, default):
        asked.append((text, default))
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def _documents(folder) -> list[str]:
    with Project.open(folder) as p:
        return [d.name for d in p.documents()]


def test_a_file_of_the_project_pair_is_read_once_off_the_ui_thread(qtbot, tmp_path, monkeypatch, parses):
    asked = _ask(monkeypatch, QMessageBox.No)
    win = _window(qtbot, make_project(tmp_path / "p", ["First sentence."], tm=False))
    f = tmp_path / "same.xlf"
    f.write_text(XLF.format(t=win.project.tgt_lang), encoding="utf-8")
    assert win.documents.import_document(f) is not None
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "same.xlf", timeout=30_000)
    assert not asked
    assert len(parses) == 1
    assert parses[0] is not threading.main_thread()


def test_a_file_of_another_pair_is_asked_about_and_imported_on_yes_from_the_same_read(
        qtbot, tmp_path, monkeypatch, parses):
    asked = _ask(monkeypatch, QMessageBox.Yes)
    folder = make_project(tmp_path / "p", ["First sentence."], tm=False)
    win = _window(qtbot, folder)
    src, tgt = win.project.src_lang, win.project.tgt_lang
    f = tmp_path / "memoq.xlf"
    f.write_text(XLF.format(t="ja-JP"), encoding="utf-8")
    win.documents.import_document(f)
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "memoq.xlf", timeout=30_000)
    (text, default), = asked
    assert "memoq.xlf" in text and "en-US -> ja-JP" in text and f"{src} -> {tgt}" in text
    assert default == QMessageBox.No
    assert [win.model.segment(r).source.text for r in range(win.model.rowCount())] == ["Open the file."]
    assert len(parses) == 1 and threading.main_thread() not in parses
    assert "memoq.xlf" in _documents(folder)


def test_a_file_of_another_pair_answered_no_stores_nothing(qtbot, tmp_path, monkeypatch, parses):
    asked = _ask(monkeypatch, QMessageBox.No)
    folder = make_project(tmp_path / "p", ["First sentence."], tm=False)
    win = _window(qtbot, folder)
    said = []
    monkeypatch.setattr(win.documents, "say", said.append)
    f = tmp_path / "memoq.xlf"
    f.write_text(XLF.format(t="ja-JP"), encoding="utf-8")
    win.documents.import_document(f)
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)
    assert len(asked) == 1
    assert "memoq.xlf" in said[0] and "nothing was stored" in said[0]
    assert "memoq.xlf" not in _documents(folder)
    assert threading.main_thread() not in parses


def test_a_po_template_added_to_a_polish_project_gets_three_plural_forms(qtbot, tmp_path, monkeypatch):
    _ask(monkeypatch, QMessageBox.No)
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="pl"):
        pass
    win = _window(qtbot, folder)
    f = tmp_path / "app.pot"
    f.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
                 '"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"\n\n'
                 'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\n', encoding="utf-8")
    win.documents.import_document(f)
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "app.pot", timeout=30_000)
    assert win.model.rowCount() == 3


@pytest.mark.parametrize("name, content", [
    ("app.po", 'msgid ""\nmsgstr ""\n"Language: ja\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
               'msgid "Open"\nmsgstr ""\n'),
    ("app_ja.ts", '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n'
                  '<TS version="2.1" language="ja_JP" sourcelanguage="en"><context><name>Main</name>'
                  '<message><source>Open</source><translation type="unfinished"></translation></message>'
                  '</context></TS>\n'),
    ("terms.csv", "en,ja\nOpen the file,ファイルを開く\nSave it,保存する\n"),
])
def test_other_formats_declaring_another_pair_are_asked_about_too(qtbot, tmp_path, monkeypatch, name, content):
    asked = _ask(monkeypatch, QMessageBox.No)
    folder = make_project(tmp_path / "p", ["First sentence."], tm=False)
    win = _window(qtbot, folder)
    said = []
    monkeypatch.setattr(win.documents, "say", said.append)
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    win.documents.import_document(f)
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)
    (text, _), = asked
    assert "-> ja" in text and "nothing was stored" in said[0]
    assert name not in _documents(folder)
