"""The editor driven offscreen as a translator would: the real engine, no mocks."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.segment_model import COL_STATUS
from app.tmservice import SCORE_TOOLTIP
from engine.inline import TaggedText, tag_char
from engine.store import Project
from engine.tm import TranslationMemory

from editor_helpers import make_project


def open_window(qtbot, folder: Path, *, nmt: bool = False) -> MainWindow:
    win = MainWindow(Project.open(folder), nmt=nmt)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win, timeout=30_000)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=30_000)  # window shortcuts need an active window
    return win


def wait_panel(qtbot, win: MainWindow, row: int, what: str = "matches", timeout: int = 30_000) -> None:
    """Until ``what`` shows the answer for ``row`` (entering a segment resets it)."""
    qtbot.waitUntil(lambda: win.shown_for.get(what) == row and win.current_row() == row, timeout=timeout)


def wait_matches(qtbot, win: MainWindow, row: int, timeout: int = 30_000) -> None:
    wait_panel(qtbot, win, row, "matches", timeout)


def enter(qtbot, win: MainWindow, row: int) -> None:
    win.nav.go_to(row)
    wait_matches(qtbot, win, row)


def tm_size(win: MainWindow) -> int:
    with TranslationMemory(win.tm.writable_info().path) as tm:  # a second reader sees committed units
        return len(tm)


# ---------------------------------------------------------------- demo project
def test_demo_project_moves_between_segments_and_shows_matches(qtbot, demo_dir):
    win = open_window(qtbot, demo_dir)
    assert win.current_row() == 0
    # Segment 2 ("Lumen is a photo manager ...") has a fuzzy match in the demo TM.
    qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    wait_matches(qtbot, win, 1)
    assert win.current_row() == 1
    panel = win.matches
    assert panel.matches, "the demo TM has a match for segment 2"
    best = panel.matches[0].match
    with TranslationMemory(demo_dir / "tm") as tm:
        expected = tm.search(win.model.segment(1).source, k=5, min_score=0.3)
    assert [round(m.score, 4) for m in (f.match for f in panel.matches)] == [round(m.score, 4) for m in expected]
    assert panel.percent(0) == round(best.score * 100)
    # The % states which score it is; the differences are highlighted in the document.
    assert "token score" in panel.status.toolTip() and SCORE_TOOLTIP == panel.status.toolTip()
    html = panel.view.toHtml()
    assert "background-color" in html
    qtbot.keyClick(win.editor(), Qt.Key_Up, Qt.ControlModifier)
    wait_matches(qtbot, win, 0)
    assert win.current_row() == 0


def test_ctrl_1_inserts_the_best_match_with_its_score(qtbot, demo_dir):
    win = open_window(qtbot, demo_dir)
    enter(qtbot, win, 1)
    fm = win.matches.matches[0]
    qtbot.keyClick(win.editor(), Qt.Key_1, Qt.ControlModifier)
    seg = win.model.segment(1)
    assert seg.target.text == fm.match.target.text
    assert seg.origin == "tm" and seg.origin_score == pytest.approx(fm.match.score)
    assert win.model.index(1, COL_STATUS).data() == f"draft (TM {round(fm.match.score * 100)}%)"
    assert win.editor().segment_text() == fm.match.target.text
    # Undo in the editor gives the empty target back.
    win.editing.undo()
    win.nav.commit_editor()
    assert win.model.segment(1).target.text == ""


# ---------------------------------------------------------------- confirm feeds the TM
def test_confirm_writes_project_and_tm_and_the_next_lookup_uses_it(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the red album in the sidebar.",
                                           "Open the blue album in the sidebar.",
                                           "Close the window."])
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    assert win.matches.matches == []
    before = tm_size(win)
    qtbot.keyClicks(win.editor(), "Öffnen Sie das rote Album in der Seitenleiste.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    wait_matches(qtbot, win, 1)
    # Project: confirmed and durable.
    with Project.open(folder) as other:
        assert other.segments(other.documents()[0].id)[0].status == "confirmed"
    # TM: one unit more, and the very next segment's lookup found it.
    assert tm_size(win) == before + 1
    found = win.matches.matches
    assert found and found[0].match.target.text == "Öffnen Sie das rote Album in der Seitenleiste."
    assert 0.5 < found[0].match.score < 1.0


def test_auto_propagation_fills_identical_segments(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Save the file.", "Close it.", "Save the file."])
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Speichern Sie die Datei.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    third = win.model.segment(2)
    assert third.target.text == "Speichern Sie die Datei." and third.status == "draft"
    assert win.model.index(2, COL_STATUS).data() == "draft (TM 100%)"


def test_auto_propagation_can_be_switched_off_for_one_document(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Save the file.", "Close it.", "Save the file."])
    win = open_window(qtbot, folder)
    win.editing.act_doc_propagate.setChecked(False)
    qtbot.keyClicks(win.editor(), "Speichern Sie die Datei.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.model.segment(2).status == "new" and not win.model.segment(2).target.text
    win.close()
    again = open_window(qtbot, folder)  # the choice is stored with the project
    assert not again.editing.act_doc_propagate.isChecked() and not again.editing.propagation_on()


# ---------------------------------------------------------------- grid
def test_tags_are_chips_that_cannot_be_half_deleted(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Click <b>Save</b> to keep %1 files."], tm=False)
    win = open_window(qtbot, folder)
    source = win.model.segment(0).source
    qtbot.keyClick(win.editor(), Qt.Key_Insert, Qt.ControlModifier)  # copy source
    ed = win.editor()
    assert ed.segment_text() == source.text
    # The document holds one object character per tag, not the markup text.
    assert "<b>" not in ed.toPlainText() and ed.toPlainText().count("\ufffc") == 3
    # Backspace right after the closing tag removes the whole tag: never half a tag.
    cur = ed.textCursor()
    cur.setPosition(ed.toPlainText().index("\ufffc", ed.toPlainText().index("\ufffc") + 1) + 1)
    ed.setTextCursor(cur)
    qtbot.keyClick(ed, Qt.Key_Backspace)
    text = ed.segment_text()
    assert tag_char(2) not in text and tag_char(1) in text and tag_char(3) in text
    assert "<" not in text and "/b" not in text
    # F9 puts the missing tag back as a whole.
    qtbot.keyClick(ed, Qt.Key_F9)
    assert sorted(TaggedText(ed.segment_text()).tag_numbers()) == [1, 2, 3]


def test_row_heights_fit_after_column_resize(qtbot, tmp_path):
    long = "This sentence is long enough to wrap onto several lines when its column is narrow. " * 2
    folder = make_project(tmp_path / "p", [long.strip(), "Short."], tm=False)
    win = open_window(qtbot, folder)
    grid = win.grid
    hh = grid.horizontalHeader()
    hh.setSectionResizeMode(1, hh.ResizeMode.Interactive)
    grid.setColumnWidth(1, 600)
    qtbot.waitUntil(lambda: True, timeout=100)
    grid.fit_visible_rows()
    wide = grid.rowHeight(0)
    grid.setColumnWidth(1, 150)
    qtbot.waitUntil(lambda: grid.rowHeight(0) > wide, timeout=30_000)
    assert grid.rowHeight(1) < grid.rowHeight(0)


def test_filters_and_find_replace(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open <b>the</b> album.", "Open the photo.", "Close the album."],
                          tm=False)
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Oeffnen Sie <b>das</b> Album.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    qtbot.keyClicks(win.editor(), "Das Foto oeffnen.")
    win.nav.step(+1)  # leaves a draft
    win.search.set_filter("confirmed")
    assert win.proxy.rowCount() == 1
    win.search.set_filter("fuzzy")
    assert win.proxy.rowCount() == 1
    win.search.set_filter("untranslated")
    assert win.proxy.rowCount() == 1
    win.search.set_filter("all")
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("album")
    assert win.proxy.rowCount() == 2
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    assert win.search.replace_all(ask=False) == 1
    tgt = win.model.segment(0).target
    assert tgt.display() == "Oeffnen Sie <b>das</b> Fotoalbum." and tgt.tag_count == 2


def test_keyboard_presets_switch_shortcuts_and_menus_show_them(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["One.", "Two.", "Three."], tm=False)
    win = open_window(qtbot, folder)
    assert win.actions_by_id["confirm"].shortcut().toString() == "Ctrl+Return"
    win.apply_preset("omegat")
    assert win.actions_by_id["next"].shortcut().toString() == "Ctrl+N"
    qtbot.keyClick(win.editor(), Qt.Key_N, Qt.ControlModifier)
    assert win.current_row() == 1
    qtbot.keyClicks(win.editor(), "Zwei.")
    qtbot.keyClick(win.editor(), Qt.Key_U, Qt.ControlModifier)  # OmegaT: confirm, next untranslated
    assert win.model.segment(1).status == "confirmed" and win.current_row() == 2
    # Every action with a shortcut sits in a menu, so the menu shows it.
    in_menus = {a for m in win.menuBar().findChildren(type(win.menuBar().actions()[0].menu())) for a in m.actions()}
    assert all(a in in_menus for a in win.actions_by_id.values())


def test_autosave_keeps_a_draft_without_leaving_the_segment(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["One.", "Two."], tm=False)
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Eins")

    def saved() -> bool:
        with Project.open(folder) as other:
            return other.segments(other.documents()[0].id)[0].target.text == "Eins"

    qtbot.waitUntil(saved, timeout=30_000)
    assert win.current_row() == 0


def test_stale_lookup_is_dropped(qtbot, demo_dir):
    win = open_window(qtbot, demo_dir)
    wait_matches(qtbot, win, 0)
    dropped = win.tm.lookups.dropped
    # Race through segments faster than the TM thread answers: only the last one is shown.
    for row in (1, 2, 3, 4):
        win.nav.go_to(row)
    wait_matches(qtbot, win, 4)
    assert win.tm.lookups.dropped > dropped
    assert win.matches.query == win.model.segment(4).source


def test_concordance_highlights_hits(qtbot, demo_dir):
    win = open_window(qtbot, demo_dir)
    wait_matches(qtbot, win, 0)
    win.memory.open_concordance()
    win.concordance.search("album")
    qtbot.waitUntil(lambda: bool(win.concordance.hits), timeout=30_000)
    for _, hit in win.concordance.hits:
        assert all(hit.text.text[s:e].lower() == "album" for s, e in hit.spans)
    assert "#ffe066" in win.concordance.view.toHtml()
