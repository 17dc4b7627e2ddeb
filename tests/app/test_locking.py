"""Locking segments in the editor, driven from the keyboard and menus as a translator would:
Ctrl+Shift+L locks the segment (the box takes no typing and the status bar says why), Replace all
and Replace leave it alone, Lock 100 % Matches locks what pre-translation filled from the TM, the
lock is kept on reopening, and an XLIFF's own translate="no" opens locked and exports as it came."""
from __future__ import annotations

from PySide6.QtCore import Qt

from app.dialogs.replace import ReplacePreviewDialog
from app.segment_model import COL_STATUS, LOCK_MARK
from engine.store import Project

from editor_helpers import make_project
from test_editor import open_window

LOCK_KEYS = (Qt.Key_L, Qt.ControlModifier | Qt.ShiftModifier)

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="ui" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="open"><source>Open the file.</source></trans-unit>
<trans-unit id="brand" translate="no"><source>ACME Writer</source><target>ACME Writer</target></trans-unit>
<trans-unit id="close"><source>Close the window.</source></trans-unit>
</body></file></xliff>
"""


def _translated_project(tmp_path):
    folder = make_project(tmp_path / "p", ["Open the album.", "Close the album.", "Print the photo."])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        p.confirm(segs[0].id, "Öffnen Sie das Album.")
        p.confirm(segs[1].id, "Schließen Sie das Album.")
        p.set_target(segs[2].id, "Drucken Sie das Foto.")
    return folder


def _message(win) -> str:
    return win.statusBar().currentMessage()


def test_ctrl_shift_l_locks_the_segment_and_typing_in_it_changes_nothing(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", ["Open the file.", "Close the window."]))
    qtbot.keyClicks(win.editor(), "Öffnen")
    qtbot.keyClick(win.editor(), *LOCK_KEYS)
    seg = win.model.segment(0)
    assert seg.locked and seg.target.text == "Öffnen"  # what was typed is kept, then frozen
    assert win.model.index(0, COL_STATUS).data() == LOCK_MARK + "draft"
    ed = win.editor()
    assert ed.isReadOnly() and "Locked" in ed.toolTip()
    qtbot.keyClicks(ed, " Sie")
    qtbot.keyClick(ed, Qt.Key_Backspace)
    assert ed.segment_text() == "Öffnen"
    assert _message(win) == "Segment 1 is locked: its target cannot change (unlock it with Ctrl+Shift+L)."
    qtbot.keyClick(ed, Qt.Key_Insert, Qt.ControlModifier)          # Copy Source to Target
    qtbot.keyClick(ed, Qt.Key_Return, Qt.ControlModifier)          # confirm
    seg = win.model.segment(0)
    assert (seg.target.text, seg.status, win.current_row()) == ("Öffnen", "draft", 0)
    qtbot.keyClick(ed, *LOCK_KEYS)                                  # unlock: it takes typing again
    assert not win.model.segment(0).locked and not win.editor().isReadOnly()
    assert _message(win) == "Segment 1 unlocked."
    qtbot.keyClicks(win.editor(), " Sie")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert (win.model.segment(0).target.text, win.model.segment(0).status) == ("Öffnen Sie", "confirmed")


def test_replace_all_skips_a_locked_segment_and_the_preview_counts_it(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, _translated_project(tmp_path))
    win.nav.go_to(1)
    win.actions_by_id["lock"].trigger()
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    shown = []
    monkeypatch.setattr(ReplacePreviewDialog, "exec",
                        lambda dlg: shown.append(([r for r, _, _ in dlg.plan], dlg.summary.text())) or 1)
    assert win.search.replace_all() == 1
    assert shown[0][0] == [0] and "1 locked segment(s) skipped" in shown[0][1]
    assert win.model.segment(0).target.text == "Öffnen Sie das Fotoalbum."
    assert win.model.segment(1).target.text == "Schließen Sie das Album."
    assert "1 locked segment skipped" in win.findbar.result.text()
    win.findbar.find_edit.setText("Schließen")  # only the locked segment has it
    assert win.search.replace_all() == 0
    assert win.findbar.result.text() == "nothing to replace (1 locked segment skipped)"


def test_replace_in_a_locked_segment_says_so_and_moves_on(qtbot, tmp_path):
    win = open_window(qtbot, _translated_project(tmp_path))
    win.nav.go_to(0)
    win.actions_by_id["lock"].trigger()
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    win.nav.go_to(0)
    win.search.replace_current()
    assert _message(win).startswith("Segment 1 is locked")
    assert win.model.segment(0).target.text == "Öffnen Sie das Album."
    assert win.current_row() == 1


def test_the_lock_is_kept_when_the_project_is_opened_again(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window."])
    win = open_window(qtbot, folder)
    qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    qtbot.keyClick(win.editor(), *LOCK_KEYS)
    win.close()
    again = open_window(qtbot, folder)
    assert [s.locked for s in again.model.segments()] == [False, True]
    qtbot.keyClick(again.editor(), Qt.Key_Down, Qt.ControlModifier)
    assert again.current_row() == 1 and again.editor().isReadOnly()
    assert again.model.index(1, COL_STATUS).data().startswith(LOCK_MARK)


def test_lock_100_percent_matches_locks_what_the_tm_filled(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window.", "Save it."])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        p.set_targets([(segs[0].id, "Öffnen Sie die Datei.")], origin="tm", origin_score=1.0)  # pre-translated
        p.set_targets([(segs[1].id, "Schließen Sie das Fenster.")], origin="tm", origin_score=0.9)
    win = open_window(qtbot, folder)
    win.actions_by_id["lock_matches"].trigger()
    assert [s.locked for s in win.model.segments()] == [True, False, False]
    assert _message(win) == "Locked 1 segment(s) with a 100 % TM match."


def test_rows_selected_with_shift_click_are_locked_by_one_key(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", ["One.", "Two.", "Three.", "Four."]))
    grid = win.grid
    win.nav.go_to(1, edit=False)
    rect = grid.visualRect(win.proxy.mapFromSource(win.model.index(2, 0)))
    qtbot.mouseClick(grid.viewport(), Qt.LeftButton, Qt.ShiftModifier, rect.center())
    qtbot.keyClick(grid, *LOCK_KEYS)
    assert [s.locked for s in win.model.segments()] == [False, True, True, False]
    assert _message(win).startswith("2 segments locked")


def test_propagation_and_next_unconfirmed_pass_a_locked_segment(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", ["Save the file.", "Close it.", "Save the file."]))
    win.nav.go_to(2)
    win.actions_by_id["lock"].trigger()
    win.nav.go_to(0)
    qtbot.keyClicks(win.editor(), "Speichern Sie die Datei.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.model.segment(2).target.text == ""  # not propagated into the locked one
    assert win.current_row() == 1
    qtbot.keyClicks(win.editor(), "Schließen.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.current_row() == 1  # nothing left to confirm but the locked segment


def test_an_xliff_with_translate_no_opens_locked_and_exports_byte_identical(qtbot, tmp_path):
    src = tmp_path / "ui.xlf"
    src.write_text(XLF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
    win = open_window(qtbot, tmp_path / "p")
    assert [s.locked for s in win.model.segments()] == [False, True, False]
    qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    ed = win.editor()
    assert win.current_row() == 1 and ed.isReadOnly()
    assert "Segment 2 is locked" in _message(win)
    qtbot.keyClicks(ed, "X")
    qtbot.keyClick(ed, Qt.Key_Down, Qt.ControlModifier)
    win.close()
    with Project.open(tmp_path / "p") as p:
        assert p.segments(doc)[1].target.text == "ACME Writer"
        out = p.export_document(doc, tmp_path / "out.xlf")
    assert out.read_bytes() == src.read_bytes()
