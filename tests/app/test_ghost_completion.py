"""Issue 47: the engine's completion of what the translator types, grey after the cursor in the
target box (ghost text), asked again as they type; Ctrl+Right takes its next word, Tab the rest; it
is painted, never part of the segment (never saved, confirmed or undone)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app import keymap
from app.ghost import Ghost
from app.main_window import MainWindow
from app.suggest import COMPLETION_BEAM
from engine.store import Project

from editor_helpers import make_project
from test_editor import wait_panel

SENTENCES = ["The red dog sees a small cat.", "A big man has the blue car.", "The child likes the ball."]
ROW = 2  # "Der Kind Ball mag." in the toy language: "Ein K" is not how the suggestion starts


@pytest.fixture
def model_project(tmp_path, tiny_model) -> Path:
    folder = make_project(tmp_path / "p", SENTENCES)
    with Project.open(folder) as p:
        p.set_setting("model", str(tiny_model))
    return folder


@pytest.fixture
def win(qtbot, model_project) -> MainWindow:
    from app.main_window import settings

    settings().setValue("nmt/threads", 1)
    settings().setValue("nmt/quantize", "false")  # compared with the fp32 engine's own completions
    w = MainWindow(Project.open(model_project))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w, timeout=30_000)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=30_000)
    w.nav.go_to(ROW)
    wait_panel(qtbot, w, ROW, "suggestion", timeout=120_000)
    return w


def completion(tr, typed: str) -> str:
    return tr.translate([SENTENCES[ROW]], beam=COMPLETION_BEAM, prefixes=[typed])[0].text


def type_until_ghost(qtbot, win, typed: str) -> str:
    ed = win.editor()
    qtbot.keyClicks(ed, typed)
    qtbot.waitUntil(lambda: ed.ghost_shown() != "" and ed.ghost.typed == typed, timeout=120_000)
    return ed.ghost_shown()


# -- the text logic ------------------------------------------------------------------------------
def test_ghost_text_follows_typing_along_it_and_clears_on_anything_else():
    g = Ghost()
    g.set("Ein K", "ind mag Ball.")
    assert g.follow("Ein Ki") and g.rest == "nd mag Ball."
    assert g.follow("Ein K") and g.rest == "ind mag Ball."  # Backspace: back along it
    assert g.next_word() == "ind"
    g.set("Ein Kind", " mag Ball.")
    assert g.next_word() == " mag"
    assert not g.follow("Ein Kinx") and g.rest == ""


# -- in the editor ---------------------------------------------------------------------------------
def test_typing_half_a_word_shows_the_engines_completion_of_it_after_the_cursor(qtbot, win, tiny_translator):
    typed = "Ein K"
    expected = completion(tiny_translator, typed)
    assert expected.startswith(typed) and not expected.startswith(win.suggestion.current.text[:len(typed)])
    ghost = type_until_ghost(qtbot, win, typed)
    assert typed + ghost == expected
    assert not ghost[0].isspace()  # the rest of the word typed half way, not a new word
    ed = win.editor()
    assert ed.segment_text() == typed and ed.toPlainText() == typed  # painted, not in the text


def test_ctrl_right_takes_exactly_the_next_word_and_tab_the_rest(qtbot, win):
    typed = "Ein K"
    ghost = type_until_ghost(qtbot, win, typed)
    ed = win.editor()
    word = re.match(r"\s*\S+", ghost).group(0)
    qtbot.keyClick(ed, Qt.Key_Right, Qt.ControlModifier)
    assert ed.segment_text() == typed + word
    assert ed.ghost_shown() == ghost[len(word):]
    qtbot.keyClick(ed, Qt.Key_Tab)
    assert ed.segment_text() == typed + ghost and ed.ghost_shown() == ""
    assert win.editor() is ed and win.current_row() == ROW  # Tab took the ghost text, not the next cell
    qtbot.keyClick(ed, Qt.Key_Z, Qt.ControlModifier)  # an accept is one undo step of the box
    assert ed.segment_text() == typed + word


def test_typing_a_character_the_ghost_text_lacks_asks_for_a_new_completion(qtbot, win, tiny_translator):
    ed = win.editor()
    ghost = type_until_ghost(qtbot, win, "Ein K")
    qtbot.keyClicks(ed, ghost[0])  # along it: it follows at once, no engine call needed
    assert ed.ghost_shown() == ghost[1:]
    other = next(c for c in "aeiou" if c != ghost[1])
    qtbot.keyClicks(ed, other)
    typed = "Ein K" + ghost[0] + other
    assert ed.ghost.typed != typed  # the old one is gone at once
    qtbot.waitUntil(lambda: ed.ghost.typed == typed and ed.ghost_shown() != "", timeout=120_000)
    assert typed + ed.ghost_shown() == completion(tiny_translator, typed)


def test_ghost_text_is_never_saved_or_confirmed(qtbot, win):
    typed = "Ein K"
    type_until_ghost(qtbot, win, typed)
    win.nav.autosave()
    assert win.model.segment(ROW).target.text == typed
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)  # confirm
    seg = win.model.segment(ROW)
    assert seg.target.text == typed and seg.status == "confirmed"


def slow_engine(win, monkeypatch, log: list) -> None:
    """The engine process started again with every search step 40 ms slow (stoppable as always);
    ``log``: each request's prefix as it starts, and whether it finished or was stopped."""
    from engine.nmt.results import Stopped
    from engine.nmt.server import SLOW_STEP_ENV

    monkeypatch.setenv(SLOW_STEP_ENV, "40")
    tr = win.nmt.translator
    tr.restart()
    real = tr.suggest

    def logged(req, **kw):
        log.append(("started", req.prefix))
        try:
            out = real(req, **kw)
        except Stopped:
            log.append(("stopped", req.prefix))
            raise
        log.append(("finished", req.prefix))
        return out

    monkeypatch.setattr(tr, "suggest", logged)


def test_a_keystroke_stops_the_completion_under_way(qtbot, win, monkeypatch):
    log: list = []
    slow_engine(win, monkeypatch, log)
    ed = win.editor()
    qtbot.keyClicks(ed, "Ein K")
    qtbot.waitUntil(lambda: ("started", "Ein K") in log, timeout=30_000)  # its search is under way
    qtbot.keyClicks(ed, "x")
    qtbot.waitUntil(lambda: ("finished", "Ein Kx") in log, timeout=120_000)
    assert ("stopped", "Ein K") in log and ("finished", "Ein K") not in log


def test_a_completion_arriving_after_the_segment_was_left_is_dropped(qtbot, win, monkeypatch):
    log: list = []
    slow_engine(win, monkeypatch, log)
    with qtbot.waitSignal(win.nmt.completion_ready, timeout=120_000):
        qtbot.keyClicks(win.editor(), "Ein K")
        win.nav.go_to(0)
    assert ("finished", "Ein K") in log  # it came back, after the move
    ed = win.editor()
    assert win.current_row() == 0 and ed.ghost_shown() == "" and ed.segment_text() == ""
    assert win.suggestion.completion is None and win.shown_for.get("completion") is None
    assert win.model.segment(0).target.text == ""


def test_visiting_a_segment_with_a_draft_shows_no_ghost_text_and_changes_nothing(qtbot, win):
    qtbot.keyClicks(win.editor(), "Ein")
    win.nav.go_to(0)
    win.nav.go_to(ROW)
    qtbot.wait(1500)  # past the typing pause, whose completion goes to the panel only
    assert win.editor().ghost_shown() == "" and win.model.segment(ROW).target.text == "Ein"


@pytest.mark.parametrize("preset", sorted(keymap.PRESETS))
def test_the_ghost_keys_do_nothing_else_and_are_listed_with_the_shortcuts(qtbot, preset):
    w = MainWindow(nmt=False)
    qtbot.addWidget(w)
    w.apply_preset(preset)
    ghost_keys = set(keymap.shortcuts(preset, "accept_ghost_word") + keymap.shortcuts(preset, "accept_ghost_rest"))
    bound = {k.toString() for a in w.actions_by_id.values() for k in a.shortcuts()}
    assert ghost_keys and not ghost_keys & bound
    dlg = w.help.shortcuts_dialog()
    listed = {what: keys for what, keys in dlg.rows}
    assert listed[keymap.EDITOR_KEYS["accept_ghost_rest"]] == "Tab"
    assert listed[keymap.EDITOR_KEYS["accept_ghost_word"]] == "Ctrl+Right"
    dlg.close()
