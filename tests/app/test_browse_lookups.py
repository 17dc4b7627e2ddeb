"""Browsing: a row's TM matches looked up ahead are shown as it is entered, without a second search
of the TM (a received TM's index rebuilt: each search is a scan of every unit), unless the TM may
have changed since (a confirm's write)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.segment_flow import LOOKAHEAD
from engine.tm import TranslationMemory

from editor_helpers import make_project, open_window
from test_editor import wait_panel

SENTENCES = ["The red dog sees a small cat.", "The red dog sees a small car.", "The child likes the ball.",
             "The small cat sees the red car.", "A man likes the big dog.", "The blue ball has a child."]


@pytest.fixture
def win(qtbot, tmp_path, tiny_model) -> MainWindow:
    folder = make_project(tmp_path / "p", SENTENCES)
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("The child likes the red ball.", "Das Kind mag den roten Ball.")
    return open_window(qtbot, folder, tiny_model)


def sources_shown(win) -> list[str]:
    return [f.match.entry.source.text for f in win.matches.matches]


def searched(win, monkeypatch) -> list[str]:
    """The sources the TM is searched for from now on (on entering a row; the lookups ahead apart)."""
    log: list[str] = []
    real = win.tm.lookup
    monkeypatch.setattr(win.tm, "lookup", lambda key, query, k=5: log.append(query.text) or real(key, query, k))
    return log


def test_a_row_looked_up_ahead_shows_its_matches_without_a_second_search(qtbot, win, monkeypatch):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(r in win.flow._ahead for r in range(1, 1 + LOOKAHEAD)), timeout=120_000)
    log = searched(win, monkeypatch)
    win.nav.go_to(2)
    wait_panel(qtbot, win, 2, "matches")
    assert sources_shown(win) == ["The child likes the red ball."]  # the TM's match, as a search finds it
    assert SENTENCES[2] not in log
    wait_panel(qtbot, win, 2, "suggestion", timeout=120_000)


def test_the_row_after_a_confirm_is_searched_again_and_shows_the_confirmed_segment(qtbot, win, monkeypatch):
    monkeypatch.setattr("app.segment_flow.AHEAD_FRESH_S", 1e9)  # however soon the confirm comes
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(r in win.flow._ahead for r in range(1, 1 + LOOKAHEAD)), timeout=120_000)
    assert SENTENCES[0] not in [f.match.entry.source.text for f in win.flow._ahead[1]]
    log = searched(win, monkeypatch)
    win.nav.go_to(0)
    qtbot.keyClicks(win.editor(), "Der rote Hund sieht eine kleine Katze.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)  # confirm, on to row 1
    wait_panel(qtbot, win, 1, "matches")
    assert SENTENCES[1] in log  # looked up ahead before the confirm: searched again
    assert SENTENCES[0] in sources_shown(win)  # the segment just confirmed is row 1's fuzzy match


def test_a_changed_number_of_tm_matches_makes_the_row_looked_up_ahead_search_again(qtbot, win, monkeypatch):
    from app.preferences import preferences

    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(r in win.flow._ahead for r in range(1, 1 + LOOKAHEAD)), timeout=120_000)
    log = searched(win, monkeypatch)
    before = preferences().tm_matches
    preferences().tm_matches = before + 1
    try:
        win.nav.go_to(2)
        wait_panel(qtbot, win, 2, "matches")
        assert SENTENCES[2] in log
    finally:
        preferences().tm_matches = before
