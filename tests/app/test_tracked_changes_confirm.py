"""A reviewer's file: editing a segment that carries Trados/memoQ tracked changes and
confirming it accepts the changes as those tools do -- no false tag errors, the segment stays
confirmed and goes to the TM, and the export writes exactly what the editor showed."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.segment_model import COL_TARGET
from engine.inline import revision
from engine.store import Project

from test_editor import open_window

DATA = Path(__file__).parent / "data"
NAMES = ["tracked-changes.sdlxliff", "tracked-changes.mqxliff"]


def _project(tmp_path, name) -> Path:
    src = tmp_path / name
    shutil.copy(DATA / name, src)
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        p.set_setting("tms", '[{"path": "tm", "writable": true}]')
    return folder


def _no_question(monkeypatch):
    def fail(*a, **k):
        pytest.fail(f"asked about tag errors: {a[2] if len(a) > 2 else a}")
    monkeypatch.setattr(QMessageBox, "question", fail)
    monkeypatch.setattr(QMessageBox, "warning", fail)


@pytest.mark.parametrize("name", NAMES)
def test_confirming_an_edited_review_segment_accepts_its_changes_without_tag_errors(
        qtbot, tmp_path, monkeypatch, name):
    _no_question(monkeypatch)
    folder = _project(tmp_path, name)
    win = open_window(qtbot, folder)
    win.nav.go_to(1)
    ed = win.editor()
    ed.moveCursor(ed.textCursor().MoveOperation.End)
    qtbot.keyClicks(ed, " Jetzt.")
    qtbot.keyClick(ed, Qt.Key_Return, Qt.ControlModifier)
    seg = win.model.segment(1)
    assert seg.status == "confirmed"
    assert seg.target.text == "Das neue Fenster schließen. Jetzt."
    assert not any(revision(t) for t in seg.target.tags)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    win.close()
    with Project.open(folder) as p:
        out = tmp_path / f"out-{name}"
        p.export_document(p.documents()[0].id, out)
    text = out.read_text(encoding="utf-8")
    assert "x-sdl-deleted" not in text and "x-sdl-added" not in text and "x-mq-tc" not in text
    assert "alte" not in text
    assert "Das neue Fenster schließen. Jetzt.</" in text


@pytest.mark.parametrize("name", NAMES)
def test_confirming_a_review_segment_unedited_keeps_it_confirmed_and_its_changes(
        qtbot, tmp_path, monkeypatch, name):
    _no_question(monkeypatch)
    folder = _project(tmp_path, name)
    win = open_window(qtbot, folder)
    win.nav.go_to(1)
    before = win.model.segment(1)
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    seg = win.model.segment(1)
    assert seg.status == "confirmed" and seg.target.text == before.target.text


@pytest.mark.parametrize("name", NAMES)
def test_typing_after_a_click_on_a_review_segment_is_kept_with_its_changes_accepted(qtbot, tmp_path, name):
    folder = _project(tmp_path, name)
    win = open_window(qtbot, folder)
    idx = win.proxy.mapFromSource(win.model.index(1, COL_TARGET))
    qtbot.mouseClick(win.grid.viewport(), Qt.LeftButton, pos=win.grid.visualRect(idx).center())
    qtbot.waitUntil(lambda: win.current_row() == 1, timeout=30_000)
    qtbot.keyClicks(win.focusWidget(), "X")          # the first key opens the box and goes in
    qtbot.waitUntil(lambda: win.nav.typed_text(1) is not None, timeout=30_000)
    qtbot.keyClicks(win.editor(), "yz")
    win.nav.go_to(2)
    seg = win.model.segment(1)
    assert seg.target.text == "Das neue Fenster schließen.Xyz"
    assert not any(revision(t) for t in seg.target.tags)


def _tm_units(folder, source) -> list[str]:
    from engine.tm import TranslationMemory
    with TranslationMemory(folder / "tm") as tm:
        assert len(tm) == 1
        return [m.target.plain() + (" (with change marks)" if any(revision(t) for t in m.target.tags) else "")
                for m in tm.search(source.text, k=5) if m.score >= 0.99]


@pytest.mark.parametrize("first", ["tm-holds-the-accepted-text", "confirmed-unedited-first"])
@pytest.mark.parametrize("name", NAMES)
def test_correcting_a_confirmed_review_segment_leaves_one_tm_unit_with_the_accepted_text(
        qtbot, tmp_path, monkeypatch, name, first):
    from engine.inline import accepted
    from engine.tm import TranslationMemory
    _no_question(monkeypatch)
    folder = _project(tmp_path, name)
    with Project.open(folder) as p:
        seg = p.segments(p.documents()[0].id)[1]
    if first == "tm-holds-the-accepted-text":   # the received target, as the reviewer's TM has it
        with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
            tm.add(seg.source, accepted(seg.target))
    win = open_window(qtbot, folder)
    win.nav.go_to(1)
    if first == "confirmed-unedited-first":
        qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
        qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
        assert _tm_units(folder, seg.source) == [accepted(seg.target).plain()]  # no change marks in a TM
        win.nav.go_to(1)
    ed = win.editor()
    ed.moveCursor(ed.textCursor().MoveOperation.End)
    qtbot.keyClicks(ed, " Jetzt.")
    qtbot.keyClick(ed, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    win.close()
    assert _tm_units(folder, seg.source) == ["Das neue Fenster schließen. Jetzt."]
