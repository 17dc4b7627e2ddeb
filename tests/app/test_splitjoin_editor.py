"""Split and join in the editor, from the keyboard as a translator would: Ctrl+T opens the source
with a cursor, the arrow keys place it and Enter splits the segment there; both pieces are
translated and the export gives the one paragraph; Ctrl+J joins the pieces again, or two sentences
of one paragraph, and Ctrl+Z brings both back as they were; the next paragraph and locked
segments refuse in one line."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from app.dialogs.split_segment import SplitSegmentDialog
from engine.store import Project

from test_editor import open_window

TXT = "Open the file and close the window. Save it.\n\nPrint it.\n"
SPLIT = (Qt.Key_T, Qt.ControlModifier)
JOIN = (Qt.Key_J, Qt.ControlModifier)


def _project(tmp_path):
    original = tmp_path / "guide.txt"
    original.write_text(TXT, encoding="utf-8")
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(original)
        p.set_setting("tms", '[{"path": "tm", "writable": true}]')
    return folder


def _split_at_fourth_word(qtbot, win) -> list[int]:
    """Ctrl+T, then Home and Ctrl+Right three times (before "and"), then Enter."""
    seen = []

    def place_cursor():
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, SplitSegmentDialog)
        qtbot.keyClick(dlg.view, Qt.Key_Home)
        for _ in range(3):
            qtbot.keyClick(dlg.view, Qt.Key_Right, Qt.ControlModifier)
        seen.append(dlg.position())
        qtbot.keyClick(dlg.view, Qt.Key_Return)

    QTimer.singleShot(0, place_cursor)
    qtbot.keyClick(win.editor(), *SPLIT)
    win.activateWindow()  # as the window manager does when the dialog closes (offscreen does not)
    qtbot.waitUntil(win.isActiveWindow, timeout=30_000)
    return seen


def _sources(win) -> list[str]:
    return [s.source.text for s in win.model.segments()]


def _translate_both(qtbot, win) -> None:
    qtbot.keyClicks(win.editor(), "Öffnen Sie die Datei")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.current_row() == 1
    qtbot.keyClicks(win.editor(), "und schließen Sie das Fenster.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)


def test_ctrl_t_splits_at_the_cursor_in_the_source_and_the_export_is_one_paragraph(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, _project(tmp_path))
    assert _sources(win) == ["Open the file and close the window.", "Save it.", "Print it."]
    assert _split_at_fourth_word(qtbot, win) == [14]
    assert _sources(win) == ["Open the file", "and close the window.", "Save it.", "Print it."]
    assert win.current_row() == 0 and win.editor() is not None
    _translate_both(qtbot, win)
    assert [s.status for s in win.model.segments()] == ["confirmed", "confirmed", "new", "new"]
    out = tmp_path / "guide.de.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    findings = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: findings.append(a[2]) or QMessageBox.Yes)
    win.delivery.export_document_dialog()
    assert "segment 3: the target is empty" in findings[0]  # "Save it.", now the third segment
    assert out.read_text(encoding="utf-8") == ("Öffnen Sie die Datei und schließen Sie das Fenster. Save it.\n\n"
                                               "Print it.\n")


def test_ctrl_j_joins_the_pieces_and_ctrl_z_restores_both_as_they_were(qtbot, tmp_path):
    win = open_window(qtbot, _project(tmp_path))
    _split_at_fourth_word(qtbot, win)
    _translate_both(qtbot, win)
    qtbot.waitUntil(lambda: not win.project.tm_pending(), timeout=30_000)  # the TM has both pieces
    pieces = win.model.segments()[:2]
    win.nav.go_to(0)
    qtbot.keyClick(win.editor(), *JOIN)
    joined = win.model.segment(0)
    assert _sources(win) == ["Open the file and close the window.", "Save it.", "Print it."]
    assert (joined.target.text, joined.status) == ("Öffnen Sie die Datei und schließen Sie das Fenster.", "draft")
    assert win.actions_by_id["undo_step"].text() == "Undo Join (segment 1)"
    qtbot.keyClick(win.editor(), Qt.Key_Z, Qt.ControlModifier)
    assert win.model.segments()[:2] == pieces  # targets, status, origin, ids
    assert win.project.segments(win.model.document_id)[:2] == pieces
    assert win.actions_by_id["redo_step"].text() == "Redo Join (segment 1)"
    qtbot.keyClick(win.editor(), Qt.Key_Y, Qt.ControlModifier)  # and Ctrl+Y joins them again
    assert _sources(win) == ["Open the file and close the window.", "Save it.", "Print it."]
    assert win.model.segment(0).target.text == "Öffnen Sie die Datei und schließen Sie das Fenster."


def test_the_target_is_cut_where_its_cursor_stands(qtbot, tmp_path):
    win = open_window(qtbot, _project(tmp_path))
    ed = win.editor()
    qtbot.keyClicks(ed, "Öffnen Sie die Datei und schließen Sie das Fenster.")
    qtbot.keyClick(ed, Qt.Key_Home)
    for _ in range(4):
        qtbot.keyClick(ed, Qt.Key_Right, Qt.ControlModifier)  # before "und"
    _split_at_fourth_word(qtbot, win)
    a, b = win.model.segments()[:2]
    assert (a.target.text, b.target.text) == ("Öffnen Sie die Datei", "und schließen Sie das Fenster.")
    assert (a.status, b.status) == ("draft", "draft")


def test_ctrl_z_right_after_a_split_puts_the_segment_back(qtbot, tmp_path):
    win = open_window(qtbot, _project(tmp_path))
    before = win.model.segments()
    _split_at_fourth_word(qtbot, win)
    assert win.model.rowCount() == 4
    qtbot.keyClick(win.editor(), Qt.Key_Z, Qt.ControlModifier)
    assert win.model.segments() == before
    assert win.statusBar().currentMessage() == "Undone: Split (segment 1)."


def test_ctrl_j_joins_two_sentences_of_a_paragraph_and_the_export_is_the_paragraph(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, _project(tmp_path))
    qtbot.keyClick(win.editor(), *JOIN)
    assert _sources(win) == ["Open the file and close the window. Save it.", "Print it."]
    qtbot.keyClicks(win.editor(), "Öffnen Sie die Datei, schließen Sie das Fenster und speichern Sie sie.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.model.segment(0).status == "confirmed"
    out = tmp_path / "guide.de.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)  # "Print it." untranslated
    win.delivery.export_document_dialog()
    assert out.read_text(encoding="utf-8") == ("Öffnen Sie die Datei, schließen Sie das Fenster und speichern Sie "
                                               "sie.\n\nPrint it.\n")


def test_join_refuses_the_next_paragraph_in_one_line(qtbot, tmp_path):
    win = open_window(qtbot, _project(tmp_path))
    win.nav.go_to(1)
    qtbot.keyClick(win.editor(), *JOIN)
    assert win.model.rowCount() == 3
    assert win.statusBar().currentMessage() == ("segments 2 and 3 are in different paragraphs or units of the "
                                                "file: they cannot be joined")


def test_a_locked_segment_is_not_split(qtbot, tmp_path):
    win = open_window(qtbot, _project(tmp_path))
    qtbot.keyClick(win.editor(), Qt.Key_L, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.keyClick(win.editor(), *SPLIT)  # refused before any dialog opens
    assert win.model.rowCount() == 3
    assert win.statusBar().currentMessage().startswith("Segment 1 is locked")
