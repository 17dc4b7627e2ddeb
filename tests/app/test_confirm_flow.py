"""Confirming and moving on, as the translator sees it: what Ctrl+Enter stores (one write),
where the target is said to come from, the status bar counts, and the grid keeping the
current segment on screen."""
from __future__ import annotations

from PySide6.QtCore import Qt

from app.segment_model import COL_STATUS, COL_TARGET
from engine.store import Project

from editor_helpers import make_project
from test_editor import open_window


def status(win, row: int) -> str:
    return win.model.index(row, COL_STATUS).data()


def test_confirm_stores_what_is_typed_and_keeps_a_tm_origin_only_when_untouched(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Save the file.", "Close it.", "Save the file.", "Save the file."])
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Speichern Sie die Datei.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert status(win, 0) == "confirmed"  # typed by the translator
    assert status(win, 2) == status(win, 3) == "draft (TM 100%)"  # propagated
    assert win.counts_label.text() == "1/4 confirmed · 2 draft · 1 new"

    # Confirming a propagated target as it is keeps where it came from ...
    win.nav.go_to(2)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert status(win, 2) == "confirmed (TM 100%)"
    # ... changing it first makes it the translator's own.
    win.nav.go_to(3)
    qtbot.keyClicks(win.editor(), " Jetzt.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert status(win, 3) == "confirmed"
    assert win.counts_label.text() == "3/4 confirmed · 0 draft · 1 new"
    assert win.current_row() == 1  # on to the only unconfirmed segment

    # Everything confirmed is in the project (durable when Ctrl+Enter returns), with its origin.
    with Project.open(folder) as other:
        segs = other.segments(other.documents()[0].id)
    assert [s.status for s in segs] == ["confirmed", "new", "confirmed", "confirmed"]
    assert segs[3].target.text == "Speichern Sie die Datei. Jetzt." and segs[3].origin == "human"
    assert segs[2].origin == "tm" and segs[2].origin_score == 1.0


def test_empty_target_is_not_confirmed(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Save the file.", "Close it."], tm=False)
    win = open_window(qtbot, folder)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert status(win, 0) == "new" and win.current_row() == 0
    assert "no translation to confirm" in win.statusBar().currentMessage()


def test_moving_down_a_long_document_keeps_the_current_segment_on_screen(qtbot, tmp_path):
    long = "and this one goes on long enough to wrap onto a second line in its column " * 3
    folder = make_project(tmp_path / "p", [f"Sentence number {i} of the manual{long if i % 7 == 0 else ''}."
                                           for i in range(120)], tm=False)
    win = open_window(qtbot, folder)
    grid = win.grid
    for _ in range(60):
        qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    assert win.current_row() == 60
    rect = grid.visualRect(win.proxy.mapFromSource(win.model.index(60, COL_TARGET)))
    assert rect.top() >= 0 and rect.bottom() <= grid.viewport().height()
    # Rows brought into view get the height of their text (long ones are not cut to one line).
    # (Fitting a row above moves the rows below it, so "on screen" is asked again each time.)
    def on_screen_rows_fitted():
        shown = [r for r in grid.visible_rows(margin=0) if r != grid.currentIndex().row()]
        return (any("wrap" in win.model.segment(r).source.text for r in shown)
                and all(grid.rowHeight(r) == grid.sizeHintForRow(r) for r in shown))
    qtbot.waitUntil(on_screen_rows_fitted, timeout=30_000)
