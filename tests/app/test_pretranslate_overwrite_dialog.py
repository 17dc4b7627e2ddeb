"""Tools ▸ Pre-translate ▸ Overwrite drafts (off by default): ticked with Alt+O, the translator's
own draft takes the 100 % TM match, a confirmed segment is kept, and the summary says how many
drafts were replaced and that Edit ▸ Undo Pre-translate takes them back."""
from __future__ import annotations

from PySide6.QtCore import Qt

from engine.store import Project

from editor_helpers import make_project
from test_editor import open_window
from test_pretranslate_dialog import UNITS, open_dialog, seeded

SOURCES = ["Open the file.", "Close the window.", "Print the page."]


def test_overwrite_drafts_replaces_my_draft_keeps_the_confirmed_segment_and_says_how_many(qtbot, tmp_path):
    folder = seeded(make_project(tmp_path / "p", SOURCES), UNITS + [("Print the page.", "Drucken Sie die Seite.")])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        p.set_target(segs[1].id, "Fenster zu")                 # my draft
        p.confirm(segs[2].id, "Seite drucken!")                # confirmed: never overwritten
    win = open_window(qtbot, folder)
    dlg = open_dialog(qtbot, win)
    assert not dlg.overwrite.isChecked()                       # off by default
    qtbot.keyClick(dlg, Qt.Key_M, Qt.AltModifier)              # TM only
    qtbot.keyClick(dlg, Qt.Key_O, Qt.AltModifier)
    qtbot.waitUntil(lambda: dlg.overwrite.isChecked() and not dlg.machine.isChecked(), timeout=30_000)
    assert "Edit ▸ Undo Pre-translate gives the open document's back" in dlg.rule.text()
    assert dlg.options().overwrite_drafts
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.is_running() and win.pretranslation.job is None, timeout=30_000)
    assert dlg.summary.text().splitlines() == [
        "Filled 2 of 2 segments (empty or drafts) as drafts: 2 from the TM (100 % matches), 0 by machine translation.",
        "Replaced 1 of 1 draft; the rest kept (no 100 % match or translation, or the same text).",
        "Edit ▸ Undo Pre-translate (Ctrl+Z) takes back the 2 segments filled in this document."]
    assert [(win.model.segment(r).target.text, win.model.segment(r).status) for r in range(3)] == [
        ("Öffnen Sie die Datei.", "draft"), ("Schließen Sie das Fenster.", "draft"), ("Seite drucken!", "confirmed")]
    assert win.model.segment(1).origin == "tm"                 # the grid shows the replacement at once


def test_without_overwrite_drafts_the_dialog_keeps_my_draft(qtbot, tmp_path):
    folder = seeded(make_project(tmp_path / "p", SOURCES))
    with Project.open(folder) as p:
        p.set_target(p.segments(p.documents()[0].id)[1].id, "Fenster zu")
    win = open_window(qtbot, folder)
    dlg = open_dialog(qtbot, win)
    qtbot.keyClick(dlg, Qt.Key_M, Qt.AltModifier)
    qtbot.waitUntil(lambda: not dlg.machine.isChecked(), timeout=30_000)
    assert not dlg.options().overwrite_drafts and "drafts included, are kept" in dlg.rule.text()
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.is_running() and win.pretranslation.job is None, timeout=30_000)
    assert dlg.summary.text().splitlines()[0].startswith("Filled 1 of 2 empty segments as drafts: 1 from the TM")
    assert win.model.segment(1).target.text == "Fenster zu"
