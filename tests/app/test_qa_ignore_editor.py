"""Ignoring a QA finding from the QA check (issue 38): Delete on a finding ignores it, it
stays ignored in the next run and after reopening the project, comes back when its text
changes, and the export's question lists what is left -- segment by segment -- instead of a
count."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from engine.store import Project

from editor_helpers import make_project
from test_editor import open_window

SOURCES = ["Buy 5 apples.", "Open the file."]


def _translate(qtbot, win, texts) -> None:
    for text in texts:
        qtbot.keyClicks(win.editor(), text)
        qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)


def _open_qa(qtbot, win):
    for w in QApplication.topLevelWidgets():  # the run before, if still open
        if w.windowTitle() == "QA check":
            w.close()
    qtbot.keyClick(win, Qt.Key_F8)
    qtbot.waitUntil(lambda: any(w.windowTitle() == "QA check" and w.isVisible()
                                for w in QApplication.topLevelWidgets()), timeout=30_000)
    dlg = next(w for w in QApplication.topLevelWidgets() if w.windowTitle() == "QA check" and w.isVisible())
    qtbot.addWidget(dlg)
    return dlg


def _numbers(dlg):
    return [i for i in dlg.issues if i.check == "number"]


def _select(dlg, issues) -> None:
    from PySide6.QtCore import QItemSelectionModel

    dlg.table.clearSelection()
    for i in issues:
        dlg.table.selectionModel().select(dlg.table.model().index(dlg.issues.index(i), 0),
                                          QItemSelectionModel.Select | QItemSelectionModel.Rows)


def test_a_finding_ignored_with_delete_stays_ignored_until_its_text_changes(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    win = open_window(qtbot, folder)
    _translate(qtbot, win, ["Kaufen Sie 6 Äpfel.", "Öffnen Sie die Datei."])
    dlg = _open_qa(qtbot, win)
    found = _numbers(dlg)  # 5 is missing, 6 is extra
    assert len(found) == 2
    dlg.table.setFocus()
    _select(dlg, found)
    qtbot.keyClick(dlg.table, Qt.Key_Delete)
    assert not _numbers(dlg) and "2 ignored" in dlg.summary.text()
    dlg.close()

    assert not _numbers(_open_qa(qtbot, win))  # the next run
    win.close()
    win = open_window(qtbot, folder)  # the project reopened
    assert not _numbers(_open_qa(qtbot, win))

    win.nav.go_to(0)
    win.editor().replace_text("Kaufen Sie 7 Äpfel.")
    win.editing.confirm_and_next()
    again = _numbers(_open_qa(qtbot, win))  # "7 is extra" is another finding; "5 is missing" was judged
    assert [i.message for i in again] == ["number 7 is in the target but not in the source"]


def test_show_ignored_lists_them_and_restore_brings_one_back(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", SOURCES, tm=False)
    win = open_window(qtbot, folder)
    _translate(qtbot, win, ["Kaufen Sie 6 Äpfel."])
    dlg = _open_qa(qtbot, win)
    missing = next(i for i in _numbers(dlg) if "source is not in the target" in i.message)
    _select(dlg, [missing])
    dlg.ignore_button.click()
    assert missing not in _numbers(dlg) and len(_numbers(dlg)) == 1
    dlg.show_ignored.setChecked(True)
    row = dlg.issues.index(missing)
    assert dlg.table.item(row, 1).text() == "ignored"
    _select(dlg, [missing])
    assert dlg.ignore_button.text() == "&Restore"
    dlg.ignore_button.click()
    dlg.show_ignored.setChecked(False)
    assert missing in _numbers(dlg)
    with Project.open(folder) as p:
        from engine.store.qa_ignore import IgnoreList

        assert len(IgnoreList(p)) == 0


def test_the_export_question_lists_the_findings_and_leaves_out_ignored_ones(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", ["Buy 5 apples.", "Sell 8 pears.", "Open the file."], tm=False)
    win = open_window(qtbot, folder)
    _translate(qtbot, win, ["Kaufen Sie 6 Äpfel.", "Verkaufen Sie 9 Birnen.", "Öffnen Sie die Datei."])
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.No)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    win.delivery.export_document_dialog()
    assert "segment 1:" in asked[0] and "segment 2:" in asked[0] and "thing(s)" not in asked[0]
    for w in QApplication.topLevelWidgets():  # "No" opened the QA check
        if w.windowTitle() == "QA check" and w.isVisible():
            dlg = w
    qtbot.addWidget(dlg)
    _select(dlg, [i for i in _numbers(dlg) if i.idx == 0])
    dlg.ignore_button.click()
    dlg.close()
    asked.clear()
    win.delivery.export_document_dialog()
    assert "segment 2:" in asked[0] and "segment 1:" not in asked[0]
