"""The QA list is filtered by check from the keyboard: Alt+W to the Show box, a check chosen,
only its findings listed; All checks lists them all again."""
from __future__ import annotations

from PySide6.QtCore import Qt

from editor_helpers import make_project
from test_editor import open_window
from test_qa_ignore_editor import _open_qa, _translate


def visible_checks(dlg) -> list[str]:
    return [dlg.issues[r].check for r in range(dlg.table.rowCount()) if not dlg.table.isRowHidden(r)]


def test_the_qa_list_is_filtered_by_check_from_the_keyboard(qtbot, tmp_path):
    win = open_window(qtbot, make_project(tmp_path / "p", ["Page 12 of 30.", "Close the window."]))
    _translate(qtbot, win, ["Seite 13 von 30.", "Close the window."])  # a number, a copy of the source
    dlg = _open_qa(qtbot, win)
    every = visible_checks(dlg)
    assert "number" in every and len(set(every)) >= 2
    dlg.activateWindow()
    qtbot.waitUntil(dlg.isActiveWindow, timeout=30_000)
    qtbot.keyClick(dlg, Qt.Key_W, Qt.AltModifier)
    assert dlg.focusWidget() is dlg.check_filter
    dlg.check_filter.setCurrentIndex(dlg.check_filter.findData("number"))
    assert visible_checks(dlg) == ["number"] * every.count("number")
    qtbot.keyClick(dlg.check_filter, Qt.Key_Home)  # back to All checks
    assert visible_checks(dlg) == every
