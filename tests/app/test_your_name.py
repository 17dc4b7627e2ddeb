"""Settings ▸ Your name (OmegaT's User ID): what the editor signs with -- the TM unit a confirm
writes, an edit in the TM editor, a comment.  Unset, it is the login name (or $VERSO_USER)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from engine.identity import user_name
from engine.store import Project
from engine.store.comments import Comments
from engine.tm import TranslationMemory
from engine.tm.units import author

from app.dialogs.settings import SettingsDialog
from app.preferences import preferences
from editor_helpers import make_project
from test_comments_editor import _add_by_keyboard
from test_editor import open_window
from test_tm_editor import _seed, edit_target, find, open_editor, target_of

NAME = "Mira Kovač"


def set_name_in_settings(qtbot, name: str) -> None:
    dlg = SettingsDialog()
    qtbot.addWidget(dlg)
    dlg.user_name.setText(name)  # (QTest.keyClicks aborts the process on "č" here)
    dlg.accept()


def test_your_name_starts_as_the_login_name_and_an_empty_field_goes_back_to_it(qtbot, monkeypatch):
    monkeypatch.setenv("VERSO_USER", "ana.login")
    dlg = SettingsDialog()
    qtbot.addWidget(dlg)
    assert dlg.user_name.text() == "ana.login" == user_name()
    dlg.accept()                                   # not changed: nothing stored, the login is followed
    monkeypatch.setenv("VERSO_USER", "ana.renamed")
    assert preferences().user_name == "ana.renamed"
    set_name_in_settings(qtbot, f"  {NAME} ")
    assert preferences().user_name == NAME
    assert SettingsDialog().user_name.text() == NAME
    set_name_in_settings(qtbot, "")
    assert preferences().user_name == "ana.renamed"


def test_a_confirmed_segment_goes_to_the_tm_signed_with_your_name(qtbot, tmp_path):
    set_name_in_settings(qtbot, NAME)
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window."])
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Öffnen Sie die Datei.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: win.current_row() == 1 and not win.tm.busy(), timeout=30_000)
    with TranslationMemory(folder / "tm") as tm:
        unit = tm.search("Open the file.", k=1)[0]
    assert (unit.target.text, unit.score) == ("Öffnen Sie die Datei.", 1.0)
    assert unit.meta["creator"] == NAME


def test_an_edit_in_the_tm_editor_is_recorded_under_your_name_even_renamed_while_it_is_open(qtbot, tmp_path):
    set_name_in_settings(qtbot, NAME)
    folder = make_project(tmp_path / "p", ["Close the window."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    qtbot.waitUntil(lambda: len(dlg.model.entries) == 3, timeout=30_000)
    find(qtbot, dlg, "window", ["Close the window"])
    edit_target(qtbot, dlg, 0, "Schließen Sie das Fenster")
    qtbot.waitUntil(lambda: target_of(dlg, 0) == "Schließen Sie das Fenster", timeout=30_000)
    assert author(dlg.model.entries[0]) == NAME
    set_name_in_settings(qtbot, "Jon")               # Settings, while the TM editor stays open
    edit_target(qtbot, dlg, 0, "Fenster schließen!")
    qtbot.waitUntil(lambda: target_of(dlg, 0) == "Fenster schließen!", timeout=30_000)
    assert author(dlg.model.entries[0]) == "Jon"


def test_a_comment_is_signed_with_your_name(qtbot, tmp_path):
    set_name_in_settings(qtbot, NAME)
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window."])
    win = open_window(qtbot, folder)
    _add_by_keyboard(qtbot, win, "Is it a document or a folder?")
    qtbot.waitUntil(lambda: win.comments_panel.list.count() == 1, timeout=30_000)
    assert NAME in win.comments_panel.list.item(0).text()
    with Project.open(folder) as p:
        seg = p.segments(p.documents()[0].id)[0]
        assert [c.author for c in Comments(p).for_segment(seg.id)] == [NAME]
