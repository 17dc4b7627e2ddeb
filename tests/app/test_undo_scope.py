"""Undo stays in its segment, and Replace all keeps the TM true (issue 36, items 8 and 9).

Driven from the keyboard as a translator would: Ctrl+Z in the target box undoes that
segment's own edits (typing and insertions, statuses included) and nothing elsewhere; with
focus in the grid it changes no segment; a Replace all is undone only by the Edit menu's
named step.  A confirmed segment changed by Replace all (or its undo) has its TM unit
updated, not left stale beside the new text."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.dialogs.replace import ReplacePreviewDialog
from app.segment_model import COL_SOURCE
from engine.store import Project
from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import open_window, wait_matches


def tm_pairs(win) -> set[tuple[str, str]]:
    with TranslationMemory(win.tm.writable_info().path) as tm:
        return {(e.source.text, e.target.text) for e in tm.entries()}


def idle(qtbot, win) -> None:
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)


def click_row(qtbot, win, row: int) -> None:
    """A single click on the row's source cell: the current row moves, focus is in the grid."""
    idx = win.proxy.mapFromSource(win.model.index(row, COL_SOURCE))
    qtbot.mouseClick(win.grid.viewport(), Qt.LeftButton, pos=win.grid.visualRect(idx).center())
    qtbot.waitUntil(lambda: win.current_row() == row, timeout=30_000)


def test_ctrl_z_in_the_grid_never_reverts_a_confirmed_segment_elsewhere(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the album.", "Close the album.", "Print the photo."])
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    ed = win.editor()
    qtbot.keyClick(ed, Qt.Key_Insert, Qt.ControlModifier)        # copy the source: an insertion
    qtbot.keyClick(ed, Qt.Key_Home)
    qtbot.keyClicks(ed, "X ")
    qtbot.keyClick(ed, Qt.Key_Return, Qt.ControlModifier)        # confirm, on to segment 2
    wait_matches(qtbot, win, 1)
    confirmed = win.model.segment(0)
    assert confirmed.status == "confirmed"
    click_row(qtbot, win, 2)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Z, Qt.ControlModifier)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Z, Qt.ControlModifier)
    seg = win.model.segment(0)
    assert (seg.target.text, seg.status) == (confirmed.target.text, "confirmed")
    with Project.open(folder) as p:
        assert p.segments(p.documents()[0].id)[0].status == "confirmed"


def test_ctrl_z_after_dismissing_the_tag_dialog_stays_in_the_segment(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", ["Open the album.", "Click <b>Save</b>.", "Print."])
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    qtbot.keyClick(win.editor(), Qt.Key_Insert, Qt.ControlModifier)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    wait_matches(qtbot, win, 1)
    qtbot.keyClicks(win.editor(), "Speichern")                    # the tags left out
    asked = []

    def answer_no(*a, **k):                 # the tag dialog, dismissed: focus comes back to the grid
        asked.append(a[2])
        win.grid.setFocus()
        return QMessageBox.No
    monkeypatch.setattr(QMessageBox, "question", answer_no)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert asked and win.model.segment(1).status == "draft"
    for _ in range(3):
        qtbot.keyClick(QApplication.focusWidget() or win.grid, Qt.Key_Z, Qt.ControlModifier)
    assert (win.model.segment(0).target.text, win.model.segment(0).status) == ("Open the album.", "confirmed")
    win.nav.commit_editor()
    assert win.model.segment(1).status in ("new", "draft")            # its own typing, at most


def test_redo_after_undoing_an_insertion_keeps_what_was_typed_after_it(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the album.", "Close."])
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    ed = win.editor()
    qtbot.keyClicks(ed, "Erst ")
    qtbot.keyClick(ed, Qt.Key_Insert, Qt.ControlModifier)        # replaces what was typed
    qtbot.keyClicks(ed, " Fertig")
    assert ed.segment_text() == "Open the album. Fertig"
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)
    assert ed.segment_text() == "Open the album."
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)
    assert ed.segment_text() == "Erst "
    win.nav.commit_editor()
    assert win.model.segment(0).target.text == "Erst " and win.model.segment(0).origin == "human"
    qtbot.keyClick(ed, Qt.Key_Y, Qt.ControlModifier)
    assert ed.segment_text() == "Open the album."
    qtbot.keyClick(ed, Qt.Key_Y, Qt.ControlModifier)
    assert ed.segment_text() == "Open the album. Fertig"
    win.nav.commit_editor()
    assert win.model.segment(0).target.text == "Open the album. Fertig"


def test_undo_back_to_the_text_as_entered_gives_its_status_back(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the album.", "Close."])
    with Project.open(folder) as p:
        p.confirm(p.segments(p.documents()[0].id)[0].id, "Öffnen Sie das Album.")
    win = open_window(qtbot, folder)
    win.nav.go_to(0)
    wait_matches(qtbot, win, 0)
    qtbot.keyClick(win.editor(), Qt.Key_Insert, Qt.ControlModifier)
    win.nav.commit_editor()
    assert win.model.segment(0).status == "draft"
    qtbot.keyClick(win.editor(), Qt.Key_Z, Qt.ControlModifier)
    win.nav.commit_editor()
    seg = win.model.segment(0)
    assert (seg.target.text, seg.status) == ("Öffnen Sie das Album.", "confirmed")


def _translated(tmp_path):
    folder = make_project(tmp_path / "p", ["Open the album.", "Close the album.", "Print the photo."])
    return folder


def _confirm_all_but_last(qtbot, win):
    wait_matches(qtbot, win, 0)
    for text in ("Öffnen Sie das Album.", "Schließen Sie das Album."):
        qtbot.keyClicks(win.editor(), text)
        qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    qtbot.keyClicks(win.editor(), "Drucken Sie das Foto.")
    win.nav.commit_editor()
    idle(qtbot, win)


def _replace_all(qtbot, win, monkeypatch, find, rep, keep=True):
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText(find)
    win.findbar.replace_edit.setText(rep)
    monkeypatch.setattr(ReplacePreviewDialog, "exec", lambda dlg: dlg.keep.setChecked(keep) or 1)
    n = win.search.replace_all()
    idle(qtbot, win)
    return n


def test_replace_all_is_undone_only_as_a_named_step(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, _translated(tmp_path))
    _confirm_all_but_last(qtbot, win)
    assert _replace_all(qtbot, win, monkeypatch, "Album", "Fotoalbum") == 2
    win.nav.go_to(2)
    ed = win.editor()
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)              # the box has nothing to undo
    assert win.model.segment(0).target.text == "Öffnen Sie das Fotoalbum."
    assert "Undo Replace all" in win.statusBar().currentMessage()
    act = win.actions_by_id["undo_step"]
    assert act.isEnabled() and act.text().replace("&", "") == "Undo Replace all (2 segments)"
    edit_menu = next(a.menu() for a in win.menuBar().actions() if a.text().replace("&", "") == "Edit")
    assert act in edit_menu.actions()
    act.trigger()
    assert [s.target.text for s in win.model.segments()[:2]] == ["Öffnen Sie das Album.", "Schließen Sie das Album."]
    assert [s.status for s in win.model.segments()[:2]] == ["confirmed", "confirmed"]
    assert "Undone: Replace all" in win.statusBar().currentMessage()
    assert not act.isEnabled()
    win.actions_by_id["redo_step"].trigger()
    assert win.model.segment(0).target.text == "Öffnen Sie das Fotoalbum."


def test_replace_all_updates_the_tm_units_of_confirmed_segments(qtbot, tmp_path, monkeypatch):
    folder = _translated(tmp_path)
    win = open_window(qtbot, folder)
    _confirm_all_but_last(qtbot, win)
    assert ("Open the album.", "Öffnen Sie das Album.") in tm_pairs(win)
    _replace_all(qtbot, win, monkeypatch, "Sie", "du")
    pairs = tm_pairs(win)
    assert ("Open the album.", "Öffnen du das Album.") in pairs
    assert ("Close the album.", "Schließen du das Album.") in pairs
    assert not {t for s, t in pairs} & {"Öffnen Sie das Album.", "Schließen Sie das Album."}
    assert ("Print the photo.", "Drucken du das Foto.") not in pairs      # a draft stays out of the TM
    with Project.open(folder) as p:
        assert p.tm_pending() == []
    win.actions_by_id["undo_step"].trigger()
    idle(qtbot, win)
    pairs = tm_pairs(win)
    assert ("Open the album.", "Öffnen Sie das Album.") in pairs
    assert not {t for s, t in pairs} & {"Öffnen du das Album.", "Schließen du das Album."}


def test_replace_current_updates_the_tm_unit_of_a_confirmed_segment(qtbot, tmp_path):
    folder = _translated(tmp_path)
    win = open_window(qtbot, folder)
    _confirm_all_but_last(qtbot, win)
    win.nav.go_to(0)
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    win.search.replace_current()
    idle(qtbot, win)
    assert win.model.segment(0).status == "confirmed"
    pairs = tm_pairs(win)
    assert ("Open the album.", "Öffnen Sie das Fotoalbum.") in pairs
    assert ("Open the album.", "Öffnen Sie das Album.") not in pairs


def test_correcting_a_confirmed_segment_replaces_its_tm_unit(qtbot, tmp_path):
    from engine.tm import TranslationMemory

    folder = make_project(tmp_path / "p", ["Open the file.", "Close it."])
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Datei oeffnen.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    win.nav.go_to(0)
    ed = win.editor()
    ed.moveCursor(ed.textCursor().MoveOperation.End)
    qtbot.keyClicks(ed, " Jetzt.")
    qtbot.keyClick(ed, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    win.close()
    with TranslationMemory(folder / "tm") as tm:
        assert [e.target.text for e in tm.entries()] == ["Datei oeffnen. Jetzt."]   # one unit, corrected
