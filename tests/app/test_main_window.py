"""The first editor window, driven offscreen as a translator would."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from app.segment_model import COL_STATUS, COL_TARGET  # noqa: E402
from engine.formats.base import ParsedDocument, ParsedSegment  # noqa: E402
from engine.inline import protect  # noqa: E402
from engine.store import Project  # noqa: E402


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    original = tmp_path / "guide.txt"
    original.write_text("x", encoding="utf-8")
    segs = [ParsedSegment("k0", protect("Click <b>Save</b>.")),
            ParsedSegment("k1", protect("Close the window.")),
            ParsedSegment("k2", protect("Open the file."))]
    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de") as p:
        p.import_parsed(ParsedDocument("guide.txt", "txt", "en", "de", segs), original)
    return tmp_path / "proj"


@pytest.fixture
def window(qtbot, project_dir: Path) -> MainWindow:
    win = MainWindow(Project.open(project_dir))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win, timeout=30_000)
    return win


def _type_and_confirm(qtbot, win: MainWindow, text: str) -> None:
    editor = win.delegate.editor
    assert editor is not None, "entering a segment opens its target for typing"
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Return, Qt.ControlModifier)


def test_grid_shows_source_target_status(window: MainWindow):
    m = window.model
    assert m.rowCount() == 3
    assert m.index(0, 1).data() == "Click <b>Save</b>."
    assert m.index(0, COL_STATUS).data() == "new"
    assert "Verso" in window.windowTitle() and "en → de" in window.windowTitle()


def test_ctrl_enter_confirms_saves_and_moves_on(qtbot, window: MainWindow, project_dir: Path):
    assert window.current_row() == 0
    _type_and_confirm(qtbot, window, "Klicken Sie auf <b>Speichern</b>.")
    assert window.current_row() == 1
    assert window.model.index(0, COL_STATUS).data().startswith("confirmed")
    # Saved as it goes: another connection sees the confirmed target with real tags.
    with Project.open(project_dir) as other:
        seg = other.segments(other.documents()[0].id)[0]
    assert seg.status == "confirmed"
    assert seg.target.display() == "Klicken Sie auf <b>Speichern</b>."
    assert seg.target.tag_count == 2  # typed short tags became the source's protected tags


def test_confirm_skips_to_next_unconfirmed_and_wraps(qtbot, window: MainWindow):
    window.nav.go_to(2)
    _type_and_confirm(qtbot, window, "Öffnen Sie die Datei.")
    assert window.current_row() == 0  # wraps to the first unconfirmed
    _type_and_confirm(qtbot, window, "Klicken <b>Sie</b>.")
    assert window.current_row() == 1


def test_empty_target_is_not_confirmed(qtbot, window: MainWindow):
    qtbot.keyClick(window.delegate.editor, Qt.Key_Return, Qt.ControlModifier)
    assert window.model.segment(0).status == "new"
    assert window.current_row() == 0


def test_ctrl_down_and_up_navigate_and_keep_typed_text(qtbot, window: MainWindow):
    qtbot.keyClicks(window.delegate.editor, "Entwurf")
    qtbot.keyClick(window.delegate.editor, Qt.Key_Down, Qt.ControlModifier)
    assert window.current_row() == 1
    assert window.model.segment(0).status == "draft"
    assert window.model.index(0, COL_TARGET).data() == "Entwurf"
    qtbot.keyClick(window.delegate.editor, Qt.Key_Up, Qt.ControlModifier)
    assert window.current_row() == 0


def test_reopen_after_close_shows_confirmed_work(qtbot, window: MainWindow, project_dir: Path):
    _type_and_confirm(qtbot, window, "Erster <b>Satz</b>.")
    window.close()
    win2 = MainWindow(Project.open(project_dir))
    qtbot.addWidget(win2)
    assert win2.model.index(0, COL_TARGET).data() == "Erster <b>Satz</b>."
    assert win2.current_row() == 1  # opens on the first unconfirmed segment
