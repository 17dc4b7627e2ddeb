"""The glossary in the editor (issue 25): the terms of the current source listed and marked in
the grid, inserted by Ctrl+Alt+digit, and a term added from the editor shown at once."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from editor_helpers import make_project
from engine.glossary import Glossary, GlossaryEntry
from engine.store import Project
from test_editor import open_window

SOURCES = ["Open the files.", "Close the window.", "Save the file and close the window."]


def with_glossary(folder: Path) -> Path:
    make_project(folder, SOURCES)
    with Glossary(folder / "glossary", create=True) as g:
        g.add(GlossaryEntry("file", ("Datei",), "en", "de", forbidden=("File",), note="IT sense"))
    with Project.open(folder) as p:
        p.add_glossary_ref("glossary", writable=True)
    return folder


def wait_terms(qtbot, win, row: int) -> None:
    """Until the term index is loaded and the glossary panel shows ``row``'s terms."""
    qtbot.waitUntil(lambda: win.memory.terms_ready and win.shown_for.get("terms") == row and win.current_row() == row,
                    timeout=30_000)


def enter(qtbot, win, row: int) -> None:
    win.nav.go_to(row)
    wait_terms(qtbot, win, row)


@pytest.fixture
def win(qtbot, tmp_path):
    w = open_window(qtbot, with_glossary(tmp_path / "p"))
    wait_terms(qtbot, w, 0)
    return w


def test_terms_of_the_segment_are_listed_and_marked_in_the_source(qtbot, win):
    panel = win.glossary
    assert [e.source for e in panel.entries] == ["file"]      # "files": the inflected form is found
    text = panel.text()
    assert "file → Datei" in text and "IT sense" in text
    assert "do not use: File" in text and "line-through" in panel.view.toHtml()  # the forbidden variant struck
    assert "Ctrl+Alt+1" in panel.status.text()
    seg = win.model.segment(0)
    assert win.delegate.term_spans(seg.source) == [(9, 14)]   # "files" in "Open the files."
    assert seg.source.text[9:14] == "files"
    assert win.delegate.term_spans(win.model.segment(0).target) == []

    enter(qtbot, win, 1)                                      # no term there: the mark goes with the segment
    assert panel.entries == [] and "No glossary term" in panel.status.text()
    assert win.delegate.term_spans(seg.source) == []
    enter(qtbot, win, 2)                                      # a term found twice is listed once
    assert [e.source for e in panel.entries] == ["file"]
    assert win.delegate.term_spans(win.model.segment(2).source) == [(9, 13)]


def test_ctrl_alt_digit_inserts_the_term_at_the_cursor_and_ctrl_z_removes_it(qtbot, win):
    ed = win.editor()
    ed.setFocus()
    qtbot.keyClicks(ed, "Öffnen Sie die ")
    qtbot.keyClick(ed, Qt.Key_1, Qt.ControlModifier | Qt.AltModifier)
    assert ed.segment_text() == "Öffnen Sie die Datei"
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)
    assert ed.segment_text() == "Öffnen Sie die "
    qtbot.keyClick(ed, Qt.Key_1, Qt.ControlModifier | Qt.AltModifier)
    qtbot.keyClicks(ed, "en")                                 # typing on is a step of its own
    assert ed.segment_text() == "Öffnen Sie die Dateien"
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)
    assert ed.segment_text() == "Öffnen Sie die Datei"
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)
    assert ed.segment_text() == "Öffnen Sie die "

    cur = ed.textCursor()                                     # at the cursor, not at the end
    cur.setPosition(0)
    ed.setTextCursor(cur)
    qtbot.keyClick(ed, Qt.Key_1, Qt.ControlModifier | Qt.AltModifier)
    assert ed.segment_text() == "DateiÖffnen Sie die "
    qtbot.keyClick(ed, Qt.Key_2, Qt.ControlModifier | Qt.AltModifier)   # no term 2: nothing happens
    assert ed.segment_text() == "DateiÖffnen Sie die "
    assert "no glossary term 2" in win.statusBar().currentMessage()


def test_the_menus_and_both_presets_have_the_term_keys(qtbot, win):
    for preset in ("trados", "omegat"):
        win.apply_preset(preset)
        assert win.actions_by_id["term_1"].shortcut().toString() == "Ctrl+Alt+1"
        assert win.actions_by_id["term_9"].shortcut().toString() == "Ctrl+Alt+9"
        assert win.actions_by_id["add_term"].shortcut().toString() == "Ctrl+Shift+G"
    view = next(m for m in win.menuBar().actions() if m.text() == "&View").menu()
    assert win.dock_glossary.toggleViewAction() in view.actions()
    segment = next(m for m in win.menuBar().actions() if m.text() == "&Segment").menu()
    sub = next(a.menu() for a in segment.actions() if a.menu() and "Glossary" in a.text())
    assert win.actions_by_id["term_1"] in sub.actions()


def test_a_term_added_in_the_dialog_is_found_without_reopening_the_project(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", SOURCES)            # no glossary yet
    win = open_window(qtbot, folder)
    wait_terms(qtbot, win, 0)
    enter(qtbot, win, 1)
    ed = win.editor()
    ed.setFocus()
    qtbot.keyClicks(ed, "Schließen Sie das Fenster")
    cur = ed.textCursor()
    cur.movePosition(QTextCursor.StartOfWord, QTextCursor.KeepAnchor)   # "Fenster" selected
    ed.setTextCursor(cur)
    dlg = win.memory.add_term_dialog()
    assert dlg.target.text() == "Fenster"                     # prefilled from the selection
    assert not dlg.buttons.button(dlg.buttons.StandardButton.Ok).isEnabled()   # a source term is needed
    dlg.source.setText("window")
    dlg.note.setText("GUI")
    dlg.forbidden.setText("Window; Fensterchen")
    dlg.accept()
    qtbot.waitUntil(lambda: win.flow.terms is not None, timeout=30_000)
    panel = win.glossary
    assert [(e.source, e.target, e.forbidden) for e in panel.entries] == [("window", "Fenster",
                                                                           ("Window", "Fensterchen"))]
    assert win.delegate.term_spans(win.model.segment(1).source) == [(10, 16)]
    enter(qtbot, win, 2)
    assert [e.source for e in panel.entries] == ["window"]
    refs = win.project.glossary_refs()
    assert [(r.path, r.writable) for r in refs] == [(folder / "glossary", True)]
    with Glossary(folder / "glossary") as g:
        assert [(e.source, e.targets, e.note, e.src_lang, e.tgt_lang) for e in g.entries()] == [
            ("window", ("Fenster",), "GUI", "en", "de")]


def test_a_project_without_glossary_shows_an_empty_panel_and_no_error(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", SOURCES))
    wait_terms(qtbot, win, 0)
    assert win.glossary.entries == [] and win.glossary.text() == ""
    assert "no glossary" in win.glossary.status.text()
    assert win.delegate.term_spans(win.model.segment(0).source) == []
    ed = win.editor()
    ed.setFocus()
    qtbot.keyClick(ed, Qt.Key_1, Qt.ControlModifier | Qt.AltModifier)
    assert ed.segment_text() == ""
    enter(qtbot, win, 1)
    assert win.glossary.entries == []


def test_clicking_a_terms_number_inserts_it(qtbot, win):
    from PySide6.QtCore import QUrl

    ed = win.editor()
    win.glossary.view.anchorClicked.emit(QUrl("term:0"))
    assert ed.segment_text() == "Datei"


def test_a_term_the_glossary_cannot_take_is_reported_and_nothing_changes(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    folder = make_project(tmp_path / "p", SOURCES)
    with Glossary(folder / "fr", create=True) as g:           # the project's writable glossary is en -> fr
        g.add(GlossaryEntry("file", ("fichier",), "en", "fr"))
    with Project.open(folder) as p:
        p.add_glossary_ref("fr", writable=True)
    win = open_window(qtbot, folder)
    wait_terms(qtbot, win, 0)
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    assert not win.memory.add_term(GlossaryEntry("window", ("Fenster",), "en", "de"))
    assert shown and "not added" in shown[0]
    with Glossary(folder / "fr") as g:
        assert [e.source for e in g.entries()] == ["file"]
    assert [e.source for e in win.glossary.entries] == ["file"]


def test_the_source_words_highlighted_in_the_grid_prefill_the_source_term(qtbot, win):
    seg = win.model.segment(0)
    win.delegate.set_highlight(seg.source.text, ["files"])   # as a word clicked in the alignment panel does
    dlg = win.memory.add_term_dialog()
    assert dlg.source.text() == "files" and dlg.target.text() == ""
    dlg.reject()
    assert [e.source for e in win.glossary.entries] == ["file"]
