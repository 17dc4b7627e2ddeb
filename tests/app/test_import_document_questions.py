"""File ▸ Import Document asks which columns of an ambiguous CSV to read and offers the Import TMX
dialog for a TMX before reading; a file declaring another language pair is asked about once read
(tests/app/test_import_document_languages.py)."""
from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QMessageBox

from app.dialogs.import_doc import CANCELLED, format_for
from app.main_window import MainWindow
from engine.store import Project

from editor_helpers import make_project

XLF = ('<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
       '<file source-language="en-US" target-language="{t}" datatype="plaintext" original="a"><body>'
       '<trans-unit id="1"><source>Open the file.</source></trans-unit></body></file></xliff>')


def _window(qtbot, folder) -> MainWindow:
    w = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(w)
    return w


def test_no_language_question_is_asked_before_the_file_is_read(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a: (_ for _ in ()).throw(AssertionError("asked")))
    win = _window(qtbot, make_project(tmp_path / "p", ["First sentence."], tm=False))
    f = tmp_path / "memoq.xlf"
    f.write_text(XLF.format(t="ja-JP"), encoding="utf-8")
    assert format_for(win, f) is None  # the import asks, from its own read


def test_an_ambiguous_csv_asks_for_the_columns(qtbot, tmp_path, monkeypatch):
    answers = iter(["2: Open the file", "4: Ouvrir le fichier"])
    asked = []
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: asked.append(a[2:4]) or (next(answers), True))
    win = _window(qtbot, make_project(tmp_path / "p", ["First sentence."], tm=False))
    f = tmp_path / "export.csv"
    f.write_text('open,"Open the file","Datei öffnen","Ouvrir le fichier",needs review\n', encoding="utf-8")
    assert format_for(win, f) == "tabular:2,4"
    label, items = asked[0]
    assert "export.csv is not a clear bilingual table (" in label and "Which column is the source?" in label
    assert items == ["1: open", "2: Open the file", "3: Datei öffnen", "4: Ouvrir le fichier", "5: needs review"]


def test_a_tmx_offers_the_import_tmx_dialog(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.Yes)
    win = _window(qtbot, make_project(tmp_path / "p", ["First sentence."], tm=False))
    f = tmp_path / "memory.tmx"
    f.write_text('<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/><body/></tmx>', encoding="utf-8")
    opened = []
    real = win.memory.import_tm_dialog
    monkeypatch.setattr(win.memory, "import_tm_dialog", lambda: opened.append(real()) or opened[-1])
    assert format_for(win, f) == CANCELLED
    assert opened and opened[0].path.text() == str(f)
    opened[0].close()
