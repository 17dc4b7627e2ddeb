"""Visiting is never editing: a Trados or memoQ review file with tracked changes walked
through with Ctrl+Down comes out as it went in; an edit accepts the segment's changes."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from engine.inline import revision
from engine.store import Project

from test_editor import open_window

DATA = Path(__file__).parent / "data"


def _segments(folder):
    with Project.open(folder) as p:
        return [(s.status, s.origin, s.target, s.updated_at) for s in p.segments(p.documents()[0].id)]


@pytest.mark.parametrize("name", ["tracked-changes.sdlxliff", "tracked-changes.mqxliff"])
def test_walking_a_review_file_changes_nothing_and_keeps_its_tracked_changes(qtbot, tmp_path, name):
    src = tmp_path / name
    shutil.copy(DATA / name, src)
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    before = _segments(folder)
    assert any(revision(t) for t in before[1][2].tags)
    win = open_window(qtbot, folder)
    for _ in range(3):
        qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    win.nav.go_to(1)
    assert "tracked changes" in win.statusBar().currentMessage()
    assert win.editor().segment_text() == before[1][2].text       # the editor holds the changes too
    win.nav.go_to(0)
    win.close()
    assert _segments(folder) == before
    out = tmp_path / f"out-{name}"
    with Project.open(folder) as p:
        p.export_document(p.documents()[0].id, out)
    assert out.read_bytes() == src.read_bytes()                    # untouched: the client's file, byte for byte


def test_editing_a_segment_with_tracked_changes_accepts_them(qtbot, tmp_path):
    name = "tracked-changes.sdlxliff"
    src = tmp_path / name
    shutil.copy(DATA / name, src)
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    win = open_window(qtbot, folder)
    win.nav.go_to(1)
    ed = win.editor()
    ed.moveCursor(ed.textCursor().MoveOperation.End)
    qtbot.keyClicks(ed, " Jetzt.")
    win.nav.commit_editor()
    seg = win.model.segment(1)
    assert seg.target.text == "Das neue Fenster schließen. Jetzt."    # deleted text gone, inserted kept
    assert not any(revision(t) for t in seg.target.tags) and seg.status == "draft"
