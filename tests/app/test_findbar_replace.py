"""The find bar and Replace all, as a translator meets them: the bar's line follows an undo of
the replacement, closing the bar keeps the segment the translator is on, and the preview shows
Before and After side by side at its default size."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt

from app.dialogs.replace import ReplacePreviewDialog
from editor_helpers import make_project
from test_editor import enter, open_window

SOURCES = ["Open the album.", "Close the album.", "Print the photo.", "Show the album."]


def test_after_undoing_replace_all_the_find_bar_no_longer_says_replaced(qtbot, tmp_path, monkeypatch):
    from engine.store import Project

    folder = make_project(tmp_path / "p", SOURCES)
    with Project.open(folder) as p:
        for seg, text in zip(p.segments(p.documents()[0].id), ["Öffne das Album.", "Schließe das Album."]):
            p.set_target(seg.id, text)
    win = open_window(qtbot, folder)
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    monkeypatch.setattr(ReplacePreviewDialog, "exec", lambda dlg: 1)
    assert win.search.replace_all() == 2
    assert win.findbar.result.text().startswith("replaced in 2 segments")
    win.actions_by_id["undo_step"].trigger()
    assert win.model.segment(0).target.text == "Öffne das Album."
    assert "replaced" not in win.findbar.result.text() and "Undone" in win.findbar.result.text()


def test_closing_the_find_bar_stays_on_the_current_segment(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", SOURCES))
    enter(qtbot, win, 2)
    win.search.open_find(replace=False)
    qtbot.keyClicks(win.findbar.find_edit, "photo")
    qtbot.waitUntil(lambda: win.proxy.rowCount() == 1, timeout=30_000)
    close = next(b for b in win.findbar.children() if getattr(b, "text", lambda: "")() == "✕")
    qtbot.mouseClick(close, Qt.LeftButton)
    assert not win.findbar.isVisible() and win.proxy.rowCount() == len(SOURCES)
    qtbot.waitUntil(lambda: win.current_row() == 2, timeout=30_000)
    qtbot.wait(200)
    assert win.current_row() == 2 and win.model.segment(win.current_row()).source.plain() == "Print the photo."


def test_the_replace_preview_shows_before_and_after_side_by_side_at_its_default_size(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", SOURCES))
    long = "Öffnen Sie das Album mit den Fotos aus dem Urlaub am Meer und zeigen Sie es allen Freunden " * 2
    seg = dataclasses.replace(win.model.segment(0), target=win.model.segment(0).source.with_text(long))
    dlg = ReplacePreviewDialog(win, [(0, seg, long.replace("Album", "Fotoalbum"))])
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg, timeout=30_000)
    view = dlg.table.viewport().width()
    for col in (1, 2):  # Before and After: both wholly in view, each a fair share of the width
        assert dlg.table.columnViewportPosition(col) + dlg.table.columnWidth(col) <= view
        assert dlg.table.columnWidth(col) >= view // 4
