"""The TM editor's undo and redo through several edits and deletes of several units, to the
bottom of the stack and back (a deleted unit that Ctrl+Z brings back may get a new id: the
steps below it still find it)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from engine.tm import TranslationMemory

from test_tm_editor import _seed, edit_target, open_editor, shown, target_of
from editor_helpers import make_project
from test_editor import open_window

ORIGINAL = {"Open the file": "Datei öffnen", "Close the window": "Fenster schließen", "Print the page": "Seite drucken"}


def pairs(folder) -> dict[str, str]:
    with TranslationMemory(folder / "tm") as tm:  # another reader: what is committed
        return {e.source.plain(): e.target.plain() for e in (tm.get(i) for i in _ids(tm))}


def _ids(tm) -> list[int]:
    return [r[0] for r in tm.conn.execute("SELECT id FROM units ORDER BY id")]


def key(qtbot, dlg, k, mod=Qt.ControlModifier) -> str:
    """Press ``k`` in the table and wait for the line under it; returns that line."""
    dlg.say("")
    dlg.table.setFocus()
    qtbot.keyClick(dlg.table, k, mod)
    qtbot.waitUntil(lambda: dlg.status.text() != "", timeout=30_000)
    return dlg.status.text()


def row_of(dlg, source: str) -> int:
    return shown(dlg).index(source)


def test_undo_and_redo_run_through_edits_and_deletes_of_several_units_to_the_bottom_of_the_stack(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Close the window."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    qtbot.waitUntil(lambda: len(dlg.model.entries) == 3, timeout=30_000)

    def edit(source: str, target: str) -> None:
        dlg.say("")
        edit_target(qtbot, dlg, row_of(dlg, source), target)
        qtbot.waitUntil(lambda: "edited" in dlg.status.text(), timeout=30_000)

    def delete(source: str) -> None:
        dlg.table.selectRow(row_of(dlg, source))
        assert "deleted" in key(qtbot, dlg, Qt.Key_Delete, Qt.NoModifier)

    edit("Close the window", "Schließen Sie das Fenster")
    delete("Close the window")
    edit("Open the file", "Öffnen Sie die Datei")
    delete("Open the file")
    edit("Print the page", "Drucken Sie die Seite")
    steps = 5
    after = {"Print the page": "Drucken Sie die Seite"}
    assert pairs(folder) == after

    for _ in range(2):  # to the bottom and back up, twice
        for _ in range(steps):
            assert key(qtbot, dlg, Qt.Key_Z).startswith("Undone")
        assert pairs(folder) == ORIGINAL
        assert sorted(shown(dlg)) == sorted(ORIGINAL)
        assert {e.source.plain(): target_of(dlg, i) for i, e in enumerate(dlg.model.entries)} == ORIGINAL
        assert key(qtbot, dlg, Qt.Key_Z) == "Nothing to undo."

        for _ in range(steps):
            assert "Ctrl+Z" in key(qtbot, dlg, Qt.Key_Y)
        assert key(qtbot, dlg, Qt.Key_Y) == "Nothing to redo."
        assert pairs(folder) == after
        assert shown(dlg) == ["Print the page"] and target_of(dlg, 0) == "Drucken Sie die Seite"


def test_ctrl_z_pressed_twice_at_once_after_an_edit_and_a_delete_brings_the_unit_back_as_it_was(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Close the window."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    qtbot.waitUntil(lambda: len(dlg.model.entries) == 3, timeout=30_000)
    edit_target(qtbot, dlg, row_of(dlg, "Open the file"), "Öffnen Sie die Datei")
    qtbot.waitUntil(lambda: "edited" in dlg.status.text(), timeout=30_000)
    dlg.table.selectRow(row_of(dlg, "Open the file"))
    assert "deleted" in key(qtbot, dlg, Qt.Key_Delete, Qt.NoModifier)

    dlg.table.setFocus()
    qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier)  # the second before the first is done
    qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not win.memory.tm_editor.controller.undo_stack and "Undone: the edit" in
                    dlg.status.text(), timeout=30_000)
    assert pairs(folder) == ORIGINAL
    qtbot.waitUntil(lambda: sorted(shown(dlg)) == sorted(ORIGINAL), timeout=30_000)
    assert target_of(dlg, row_of(dlg, "Open the file")) == "Datei öffnen"
