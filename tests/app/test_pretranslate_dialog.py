"""Tools ▸ Pre-translate (Ctrl+Shift+P), driven as a translator would: the dialog opened by its
keys, machine translation unticked with Alt+M, Enter to start; the grid's rows filled as drafts
while it runs, the summary (from the TM, by the machine, left empty and why); Escape stops a run
within a second keeping what was filled; a project without a model of its pair is told why."""
from __future__ import annotations

from PySide6.QtCore import Qt

from engine.inline import protect
from engine.store import Project
from engine.tm import TranslationMemory

from app.dialogs.pretranslate import PretranslateDialog
from editor_helpers import make_project
from test_editor import open_window

SOURCES = ["Open the file.", "Close the window.", "Print the page."]
UNITS = [("Open the file.", "Öffnen Sie die Datei."), ("Close the window.", "Schließen Sie das Fenster.")]


def seeded(folder, units=UNITS):
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        for s, t in units:
            tm.add(protect(s), protect(t))
    return folder


def open_dialog(qtbot, win) -> PretranslateDialog:
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    qtbot.keyClick(win.focusWidget() or win, Qt.Key_P, Qt.ControlModifier | Qt.ShiftModifier)
    dlg = win.pretranslation.dialog
    assert isinstance(dlg, PretranslateDialog) and dlg.isVisible()
    qtbot.waitExposed(dlg, timeout=30_000)
    dlg.activateWindow()
    qtbot.waitUntil(dlg.isActiveWindow, timeout=30_000)  # (a window manager activates it; offscreen does not)
    return dlg


def test_ctrl_shift_p_fills_empty_segments_from_the_tm_and_says_why_the_rest_stays_empty(qtbot, tmp_path):
    folder = seeded(make_project(tmp_path / "p", SOURCES))
    win = open_window(qtbot, folder)
    dlg = open_dialog(qtbot, win)
    assert dlg.scope.currentText().startswith("This document")
    assert dlg.machine.isChecked()                            # the demo model translates en -> de
    qtbot.keyClick(dlg, Qt.Key_M, Qt.AltModifier)
    qtbot.waitUntil(lambda: not dlg.machine.isChecked(), timeout=30_000)
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.is_running() and win.pretranslation.job is None, timeout=30_000)
    assert dlg.summary.text().splitlines() == [
        "Filled 2 of 3 empty segments as drafts: 2 from the TM (100 % matches), 0 by machine translation.",
        "1 left empty: no 100 % TM match, and machine translation was off.",
        "Edit ▸ Undo Pre-translate (Ctrl+Z) takes back the 2 segments filled in this document."]
    assert dlg.progress.value() == dlg.progress.maximum() == 3
    seg = win.model.segment(0)                                 # the grid shows them at once
    assert (seg.target.text, seg.status, seg.origin) == ("Öffnen Sie die Datei.", "draft", "tm")
    assert win.model.segment(2).target.text == ""
    assert "2 draft · 1 new" in win.counts_label.text()
    with Project.open(folder) as p:
        assert [s.target.text for s in p.segments(win.model.document_id)][:2] == [t for _, t in UNITS]
    qtbot.keyClick(dlg, Qt.Key_Escape)
    assert not dlg.isVisible()
    win.nav.go_to(0)
    assert win.editor().segment_text() == "Öffnen Sie die Datei."  # the target box opens on the draft


def test_escape_stops_a_machine_run_within_a_second_and_keeps_what_was_filled(qtbot, tmp_path):
    sources = [f"Open the file number {i} and close the window." for i in range(120)]
    folder = make_project(tmp_path / "p", sources, tm=False)
    win = open_window(qtbot, folder)
    dlg = open_dialog(qtbot, win)
    assert dlg.machine.isChecked()
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: dlg.progress.value() > 0, timeout=120_000)  # the model loaded, a batch done
    assert win.model.segment(0).target.text and win.model.segment(0).origin == "mt"  # the grid fills as it goes
    report = win.pretranslation.report
    tried = report.done  # (the job thread's count: the bar may be behind it)
    qtbot.keyClick(dlg, Qt.Key_Escape)
    qtbot.waitUntil(lambda: win.pretranslation.job is None, timeout=30_000)
    # stopped after the batch under way (4 segments, well within a second), not at the end: counted in segments,
    # not seconds, as a busy machine slows each batch (a batch more may have ended before the key was handled)
    assert report.done <= tried + 2 * 4, (tried, report.done)
    filled = sum(d.result.mt for d in report.documents)
    assert report.stopped and 0 < filled < len(sources)
    assert f"Cancelled: {len(sources) - filled} segments not tried; what was filled stays." in dlg.summary.text()
    assert dlg.isVisible() and dlg.cancel_button.text() == "Close"
    with Project.open(folder) as p:
        drafts = [s for s in p.segments(win.model.document_id) if s.target.text]
    assert len(drafts) == filled and all(s.status == "draft" and s.origin == "mt" for s in drafts)
    assert [win.model.segment(r).target.text for r in range(filled)] == [s.target.text for s in drafts]


def test_a_project_without_a_model_of_its_pair_fills_from_the_tm_and_says_why(qtbot, tmp_path):
    folder_fr = tmp_path / "fr"
    with Project.create(folder_fr, src_lang="en", tgt_lang="fr") as p:
        from engine.formats.base import ParsedDocument, ParsedSegment

        original = tmp_path / "fr-doc.txt"
        original.write_text("\n\n".join(SOURCES), encoding="utf-8")
        p.import_parsed(ParsedDocument(original.name, "txt", "en", "fr",
                                       [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(SOURCES)]), original)
    win = open_window(qtbot, folder_fr)
    dlg = open_dialog(qtbot, win)
    assert not dlg.machine.isEnabled() and not dlg.machine.isChecked()
    assert "no model for en -> fr" in dlg.machine.toolTip()
    qtbot.keyClick(dlg, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.is_running() and win.pretranslation.job is None, timeout=30_000)
    lines = dlg.summary.text().splitlines()
    assert lines[0] == "Filled 0 of 3 empty segments as drafts: 0 from the TM (100 % matches), 0 by machine translation."
    assert lines[1:] == ["3 left empty: no 100 % TM match, and no model translates this pair.",
                         "No machine translation: no model for en -> fr (demo: en -> de): train one (Tools ▸ Train a Model) or "
                         "choose one (Tools ▸ Models)."]
