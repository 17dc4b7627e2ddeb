"""A pre-translation of the document on screen is one named document step: Ctrl+Z (once the box
has nothing of its own to undo) or Edit ▸ *Undo Pre-translate* gives every segment it changed
its target, status and origin back -- the translator's own drafts included -- and Ctrl+Y fills
them again; a cancelled run's step holds what was filled before the cancel.  No step, older or
newer, writes over a segment that changed after it was recorded: it leaves that segment alone
and says how many it left."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from engine.store import Project

import app.controllers.pretranslate as pretranslating
from editor_helpers import make_project
from test_editor import open_window
from test_pretranslate_dialog import UNITS, open_dialog, seeded
from test_undo_scope import _replace_all, click_row

SOURCES = ["Open the file.", "Close the window.", "Print the page."]


def states(win) -> list[tuple]:
    return [(s.target.text, s.status, s.origin, s.origin_score) for s in win.model.segments()]


def stored(folder) -> list[tuple]:
    with Project.open(folder) as p:
        return [(s.target.text, s.status, s.origin, s.origin_score) for s in p.segments(p.documents()[0].id)]


def pretranslate(qtbot, win, *, overwrite: bool = False):
    dlg = open_dialog(qtbot, win)
    qtbot.keyClick(dlg, Qt.Key_M, Qt.AltModifier)              # TM only
    if overwrite:
        qtbot.keyClick(dlg, Qt.Key_O, Qt.AltModifier)
    qtbot.waitUntil(lambda: not dlg.machine.isChecked() and dlg.overwrite.isChecked() == overwrite, timeout=30_000)
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.is_running() and win.pretranslation.job is None, timeout=30_000)
    summary = dlg.summary.text()
    qtbot.keyClick(dlg, Qt.Key_Escape)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=30_000)
    return summary


def keys(qtbot, key) -> None:
    qtbot.keyClick(QApplication.focusWidget() or QApplication.activeWindow(), key, Qt.ControlModifier)


def test_ctrl_z_takes_back_a_pretranslation_and_ctrl_y_fills_it_again(qtbot, tmp_path):
    folder = seeded(make_project(tmp_path / "p", SOURCES))
    win = open_window(qtbot, folder)
    before = states(win)
    summary = pretranslate(qtbot, win)
    assert "Edit ▸ Undo Pre-translate (Ctrl+Z) takes back the 2 segments filled in this document." in summary
    filled = states(win)
    assert [t for t, *_ in filled] == ["Öffnen Sie die Datei.", "Schließen Sie das Fenster.", ""]
    assert win.actions_by_id["undo_step"].text().replace("&", "") == "Undo Pre-translate (2 segments)"
    click_row(qtbot, win, 2)
    keys(qtbot, Qt.Key_Z)
    assert states(win) == before == stored(folder)            # empty again, status and origin as they were
    assert "Undone: Pre-translate (2 segments)" in win.statusBar().currentMessage()
    keys(qtbot, Qt.Key_Y)
    assert states(win) == filled == stored(folder)


def test_undo_of_overwrite_drafts_gives_back_the_translators_own_drafts(qtbot, tmp_path):
    folder = seeded(make_project(tmp_path / "p", SOURCES))
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        p.set_target(segs[1].id, "Fenster zu")                 # my draft
        p.set_target(segs[2].id, "Seite drucken", origin="mt")  # a machine draft I kept
    win = open_window(qtbot, folder)
    before = states(win)
    summary = pretranslate(qtbot, win, overwrite=True)
    assert "Undo does not" not in summary
    assert states(win)[1][:3] == ("Schließen Sie das Fenster.", "draft", "tm")
    win.actions_by_id["undo_step"].trigger()                   # Edit ▸ Undo Pre-translate (2 segments)
    assert states(win) == before == stored(folder)
    assert states(win)[1][:3] == ("Fenster zu", "draft", "human")


def test_a_cancelled_pretranslation_is_undone_as_far_as_it_went(qtbot, tmp_path, monkeypatch):
    folder = seeded(make_project(tmp_path / "p", SOURCES))
    win = open_window(qtbot, folder)
    before = states(win)
    real = pretranslating.pretranslate

    def cancelled_after_the_first_batch(*a, progress, **kw):
        def first(done, n):
            win.pretranslation.job.cancel()                   # Cancel, as the first batch is written
            return progress(done, n)
        return real(*a, progress=first, **kw | {"batch_size": 1})

    monkeypatch.setattr(pretranslating, "pretranslate", cancelled_after_the_first_batch)
    summary = pretranslate(qtbot, win)
    assert "Cancelled: 2 segments not tried" in summary
    assert [t for t, *_ in states(win)] == ["Öffnen Sie die Datei.", "", ""]
    assert win.actions_by_id["undo_step"].text().replace("&", "") == "Undo Pre-translate (1 segment)"
    win.actions_by_id["undo_step"].trigger()
    assert states(win) == before == stored(folder)


def test_undo_replace_all_leaves_alone_a_segment_pretranslated_since(qtbot, tmp_path, monkeypatch):
    folder = seeded(make_project(tmp_path / "p", SOURCES), UNITS + [("Print the page.", "Drucken Sie die Seite.")])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        p.set_target(segs[0].id, "Datei offen")
        p.set_target(segs[2].id, "Seite offen")
    win = open_window(qtbot, folder)
    assert _replace_all(qtbot, win, monkeypatch, "offen", "auf") == 2
    replaced = states(win)
    pretranslate(qtbot, win, overwrite=True)                   # the drafts "… auf" become the TM's
    filled = states(win)
    assert [t for t, *_ in filled] == ["Öffnen Sie die Datei.", "Schließen Sie das Fenster.", "Drucken Sie die Seite."]
    win.actions_by_id["undo_step"].trigger()                   # the newest step: Pre-translate
    assert states(win) == replaced
    win.actions_by_id["undo_step"].trigger()                   # then Replace all
    assert [t for t, *_ in states(win)] == ["Datei offen", "", "Seite offen"]
    win.actions_by_id["redo_step"].trigger()
    win.actions_by_id["redo_step"].trigger()
    assert states(win) == filled == stored(folder)


def test_an_older_step_never_writes_over_a_segment_changed_outside_the_stack(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", SOURCES)
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        for s, t in zip(segs, ["Datei offen", "Fenster offen", "Seite offen"]):
            p.set_target(s.id, t)
    win = open_window(qtbot, folder)
    assert _replace_all(qtbot, win, monkeypatch, "offen", "auf") == 3
    win.nav.go_to(0)                                            # the translator types in segment 1
    qtbot.keyClicks(win.editor(), " jetzt")
    win.nav.go_to(2)
    with Project.open(folder) as p:                             # and `verso doc pretranslate` fills segment 2
        p.set_target(p.segments(p.documents()[0].id)[1].id, "Schließen Sie das Fenster.", origin="tm",
                     origin_score=1.0)
    win.actions_by_id["undo_step"].trigger()                   # Edit ▸ Undo Replace all (3 segments)
    assert [t for t, *_ in stored(folder)] == ["Datei auf jetzt", "Schließen Sie das Fenster.", "Seite offen"]
    assert [t for t, *_ in states(win)] == ["Datei auf jetzt", "Schließen Sie das Fenster.", "Seite offen"]
    assert "2 segments changed since were left alone" in win.statusBar().currentMessage()
    win.actions_by_id["redo_step"].trigger()                   # redo too: only the segment it undid
    assert [t for t, *_ in stored(folder)] == ["Datei auf jetzt", "Schließen Sie das Fenster.", "Seite auf"]


def test_all_documents_undo_covers_the_open_one_and_the_summary_says_so(qtbot, tmp_path):
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect

    folder = seeded(make_project(tmp_path / "p", SOURCES))
    other = tmp_path / "other.txt"
    other.write_text("Open the file.", encoding="utf-8")
    with Project.open(folder) as p:
        p.import_parsed(ParsedDocument(other.name, "txt", "en", "de", [ParsedSegment("k0", protect("Open the file."))]),
                        other)
    win = open_window(qtbot, folder)
    before = states(win)
    dlg = open_dialog(qtbot, win)
    dlg.scope.setCurrentIndex(dlg.scope.count() - 1)            # All documents (2)
    qtbot.keyClick(dlg, Qt.Key_M, Qt.AltModifier)
    qtbot.waitUntil(lambda: not dlg.machine.isChecked(), timeout=30_000)
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.is_running() and win.pretranslation.job is None, timeout=30_000)
    assert dlg.summary.text().splitlines()[-1] == (
        "Edit ▸ Undo Pre-translate (Ctrl+Z) takes back the 2 segments filled in this document. "
        "Undo covers only this document: the others keep what was filled.")
    win.actions_by_id["undo_step"].trigger()
    assert states(win) == before
    with Project.open(folder) as p:
        assert p.segments(p.documents()[1].id)[0].target.text == "Öffnen Sie die Datei."


def test_ctrl_z_after_confirming_a_pretranslated_segment_leaves_it_confirmed(qtbot, tmp_path):
    folder = seeded(make_project(tmp_path / "p", SOURCES))
    win = open_window(qtbot, folder)
    pretranslate(qtbot, win)
    win.nav.go_to(0)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)     # the TM's draft, confirmed
    assert win.model.segment(0).status == "confirmed"
    click_row(qtbot, win, 2)
    keys(qtbot, Qt.Key_Z)                                               # Undo Pre-translate
    assert states(win)[0][:2] == ("Öffnen Sie die Datei.", "confirmed")
    assert states(win)[1][:2] == ("", "new")
    assert "1 segment changed since was left alone." in win.statusBar().currentMessage()
