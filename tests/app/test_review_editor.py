"""Review menu in the editor: with Track Changes on, a reviewer's edit of a received target is kept
as a tracked change signed with Settings ▸ Your name; the keys accept or reject it; an LQA error goes
on the selected span and the Quality Report counts it."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from engine.inline import deleted_text, revision
from engine.review.changes import TrackedChanges
from engine.review.lqa import Lqa
from engine.store import Project

from app.preferences import preferences
from app.segment_model import COL_TARGET, ROLE_SHOWN, ROLE_TAGGED
from test_editor import open_window

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="1"><source>The red house.</source><target state="translated">Das rote Haus.</target></trans-unit>
<trans-unit id="2"><source>Close it.</source><target state="translated">Schliessen.</target></trans-unit>
</body></file></xliff>
"""


def _window(qtbot, tmp_path):
    src = tmp_path / "a.xlf"
    src.write_text(XLF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    preferences().user_name = "Rita Reviewer"
    return open_window(qtbot, tmp_path / "p")


def _retype(qtbot, win, row, text):
    win.nav.go_to(row)
    ed = win.editor()
    ed.selectAll()
    qtbot.keyClicks(ed, text)
    qtbot.keyClick(ed, Qt.Key_Return, Qt.ControlModifier)


def test_track_changes_records_a_reviewers_edit_and_the_keys_reject_it(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    qtbot.keyClick(win.grid, Qt.Key_T, Qt.ControlModifier | Qt.AltModifier | Qt.ShiftModifier)
    assert win.project.setting("track_changes") == "1"
    assert win.actions_by_id["track_changes"].isChecked()
    _retype(qtbot, win, 0, "Das blaue Haus.")
    seg = win.model.segment(0)
    t = TrackedChanges(win.project).of(seg.id)
    assert [(c.kind, c.text, c.author) for c in t.changes()] == [
        ("delete", "rote", "Rita Reviewer"), ("insert", "blaue", "Rita Reviewer")]
    win.nav.go_to(0)
    win.actions_by_id["reject_changes"].trigger()
    assert win.model.segment(0).target.text == "Das rote Haus."
    assert win.model.segment(0).as_received  # untouched again: exports as the file had it
    assert TrackedChanges(win.project).of(seg.id) is None


def test_without_track_changes_an_edit_is_not_recorded(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    _retype(qtbot, win, 0, "Das blaue Haus.")
    assert TrackedChanges(win.project).of(win.model.segment(0).id) is None


def test_accept_all_keeps_the_edits_and_leaves_no_changes(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    win.actions_by_id["track_changes"].trigger()
    _retype(qtbot, win, 0, "Das blaue Haus.")
    _retype(qtbot, win, 1, "Schließen.")
    win.actions_by_id["accept_all_changes"].trigger()
    assert TrackedChanges(win.project).in_document(win.model.document_id) == {}
    assert [win.model.segment(r).target.text for r in (0, 1)] == ["Das blaue Haus.", "Schließen."]


def test_lqa_error_on_the_selected_span_is_in_the_quality_report(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    win.nav.go_to(0)
    ed = win.editor()
    cur = ed.textCursor()
    cur.setPosition(4)
    cur.setPosition(8, QTextCursor.KeepAnchor)   # "rote"
    ed.setTextCursor(cur)
    dlg = win.review.add_lqa_error()
    dlg.category.setCurrentIndex(0)   # accuracy
    dlg.severity.setCurrentIndex(1)   # major
    dlg.comment.setText("red is rot")
    dlg.accept()
    panel = win.comments_panel
    assert any(panel.list.item(i).text() == "LQA · major accuracy · Rita Reviewer\n“rote”: red is rot"
               for i in range(panel.list.count()))   # the Comments panel lists it
    errors = Lqa(win.project).of_segment(win.model.segment(0).id)
    assert [(e.start, e.end, e.category, e.severity, e.author) for e in errors] == [
        (4, 8, "accuracy", "major", "Rita Reviewer")]
    out = win.review.quality_report(str(tmp_path / "q.html"))
    page = out.read_text(encoding="utf-8")
    # 5 points (one major) over 5 source words: 1,000 points per 1,000 words
    assert "FAIL" in page and "1000.00 penalty points per 1,000 words" in page and "rote" in page


def test_the_grid_draws_a_tracked_change_struck_through_and_underlined_but_the_box_gets_the_text(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    win.actions_by_id["track_changes"].trigger()
    _retype(qtbot, win, 0, "Das blaue Haus.")
    idx = win.model.index(0, COL_TARGET)
    shown = idx.data(ROLE_SHOWN)
    assert [deleted_text(t) for t in shown.tags if revision(t) == "deleted"] == ["rote"]
    assert sum(1 for t in shown.tags if revision(t) == "inserted") == 2   # the pair around "blaue"
    assert idx.data(ROLE_TAGGED).text == "Das blaue Haus."                # what the target box edits
    win.nav.go_to(0)
    win.actions_by_id["accept_changes"].trigger()
    assert not any(revision(t) for t in win.model.index(0, COL_TARGET).data(ROLE_SHOWN).tags)


def test_segment_changes_shows_the_history_and_r_rejects_the_selected_change(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    win.actions_by_id["track_changes"].trigger()
    _retype(qtbot, win, 0, "Das blaue Haus.")
    win.nav.go_to(0)
    dlg = win.review.segment_changes()
    qtbot.addWidget(dlg)
    page = dlg.view.toPlainText()
    assert "Rita Reviewer" in page and "History" in page
    assert [dlg.list.item(i).text() for i in range(dlg.list.count())] == ["Deleted: rote", "Inserted: blaue"]
    dlg.list.setCurrentRow(1)
    qtbot.keyClick(dlg.list, Qt.Key_R)   # reject the insertion of "blaue"
    assert win.project.segment(win.model.segment(0).id).target.text == "Das  Haus."  # "rote" still deleted
    qtbot.keyClick(dlg.list, Qt.Key_R)   # and the deletion of "rote": back as received
    dlg.close()
    assert win.model.segment(0).target.text == "Das rote Haus." and win.model.segment(0).as_received


def test_replace_all_on_confirmed_segments_is_tracked(qtbot, tmp_path):
    from editor_helpers import make_project

    folder = make_project(tmp_path / "q", ["Open the album.", "Close the album."])
    with Project.open(folder) as p:
        for seg, text in zip(p.segments(p.documents()[0].id), ["Öffne das Album.", "Schließe das Album."]):
            p.confirm(seg.id, text)
    preferences().user_name = "Rita Reviewer"
    win = open_window(qtbot, folder)
    win.actions_by_id["track_changes"].trigger()
    win.search.open_find(replace=True)
    win.findbar.find_edit.setText("Album")
    win.findbar.replace_edit.setText("Fotoalbum")
    assert win.search.replace_all(ask=False, keep_confirmed=True) == 2
    tracked = TrackedChanges(win.project).in_document(win.model.document_id)
    assert [[(c.kind, c.text, c.author) for c in t.changes()] for t in tracked.values()] == [
        [("delete", "Album", "Rita Reviewer"), ("insert", "Fotoalbum", "Rita Reviewer")]] * 2
    assert {win.model.segment(r).status for r in (0, 1)} == {"confirmed"}
