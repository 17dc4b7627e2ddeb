"""Suggestions translated ahead of the translator (issue 37: a suggestion on screen as a segment is
entered), and work for segments the translator has left stopped at once."""
from __future__ import annotations

import threading
import time

import pytest

from app.main_window import MainWindow
from app.segment_flow import LOOKAHEAD
from engine.nmt.search import Stopped
from engine.nmt.server import SLOW_STEP_ENV

from editor_helpers import make_project, open_window
from test_editor import wait_panel

SENTENCES = ["The red dog sees a small cat.", "A big man has the blue car.", "The child likes the ball.",
             "The small cat sees the red car.", "A man likes the big dog.", "The blue ball has a child.",
             "The cat likes the man."]


@pytest.fixture
def win(qtbot, tmp_path, tiny_model) -> MainWindow:
    return open_window(qtbot, make_project(tmp_path / "p", SENTENCES), tiny_model)


def cached(win, sentence: str) -> bool:
    return any(k.startswith(sentence + "\x00") for k in win.nmt.cache)


def test_the_next_rows_are_translated_ahead_and_no_further(qtbot, win):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    ahead = SENTENCES[1:1 + LOOKAHEAD]
    qtbot.waitUntil(lambda: all(cached(win, s) for s in ahead), timeout=120_000)
    qtbot.wait(300)
    assert not any(cached(win, s) for s in SENTENCES[1 + LOOKAHEAD:])
    # entering the next row shows its suggestion from what was translated ahead
    calls = []
    tr = win.nmt.translator  # the engine process's proxy: each call here is one translation there
    real = tr.suggest
    tr.suggest = lambda req, **kw: calls.append(req.source) or real(req, **kw)
    try:
        win.nav.go_to(1)
        wait_panel(qtbot, win, 1, "suggestion", timeout=120_000)
        assert win.suggestion.current.source == SENTENCES[1] and SENTENCES[1] not in calls
        # and the row that came into the window is translated ahead in turn
        qtbot.waitUntil(lambda: cached(win, SENTENCES[1 + LOOKAHEAD]), timeout=120_000)
    finally:
        tr.suggest = real


def slow_translator(win, log: list, monkeypatch):
    """The engine process started again with every search step made slow (0.1 s), stoppable as
    always; ``log``: each translation asked, and whether it was stopped (and on which thread) or finished."""
    monkeypatch.setenv(SLOW_STEP_ENV, "100")
    tr = win.nmt.translator
    tr.restart()  # a new engine process, with the slow steps
    real = tr.suggest

    def logged(req, **kw):
        try:
            out = real(req, **kw)
        except Stopped:
            log.append(("stopped", req.source, threading.current_thread() is threading.main_thread()))
            raise
        log.append(("finished", req.source))
        return out

    real_many = tr.suggest_many

    def logged_many(reqs, **kw):  # the rows ahead, translated together
        try:
            out = real_many(reqs, **kw)
        except Stopped:
            log.extend(("stopped", r.source, threading.current_thread() is threading.main_thread()) for r in reqs)
            raise
        log.extend(("finished", r.source) for r in reqs)
        return out

    tr.suggest, tr.suggest_many = logged, logged_many
    return real


def test_a_suggestion_for_a_row_left_behind_is_stopped_at_once(qtbot, win, monkeypatch):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[1:1 + LOOKAHEAD]), timeout=120_000)
    log: list = []
    real = slow_translator(win, log, monkeypatch)
    asked, logged = {}, win.nmt.translator.suggest

    def seen(req, **kw):
        asked.setdefault(req.source, (req, kw))
        return logged(req, **kw)

    win.nmt.translator.suggest = seen
    try:
        win.nav.go_to(5)                   # not translated ahead: a slow search starts
        qtbot.wait(300)
        t = time.perf_counter()
        win.nav.go_to(1)                   # translated ahead: shown at once, the search for row 5 stops
        wait_panel(qtbot, win, 1, "suggestion", timeout=30_000)
        qtbot.waitUntil(lambda: ("stopped", SENTENCES[5], False) in log, timeout=30_000)
        stopped = time.perf_counter() - t
    finally:
        win.nmt.translator.suggest = real
    assert ("finished", SENTENCES[5]) not in log
    # not the seconds the slow search would take: against that search run to its end here (its steps sleep
    # 0.1 s each, so its time bounds its steps on a busy machine, where a wall-clock constant was the edge)
    req, kw = asked[SENTENCES[5]]
    t = time.perf_counter()
    real(req, **{k: v for k, v in kw.items() if k != "stop"})
    whole = time.perf_counter() - t
    assert stopped < whole / 3, (stopped, whole)


def test_a_prefetch_running_when_a_far_row_is_entered_gives_way(qtbot, win, monkeypatch):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[1:1 + LOOKAHEAD]), timeout=120_000)
    log: list = []
    real = slow_translator(win, log, monkeypatch)
    try:
        win.nmt.cache.clear()
        win.nav.go_to(1)  # rows 2-4 go ahead, slowly: row 2 alone, then 3 and 4 together
        qtbot.waitUntil(lambda: win.nmt._running is not None and len(win.nmt._running[0]) > 1, timeout=30_000)
        running = win.nmt._running
        win.nav.go_to(6)  # far away: the running prefetch stops, row 6 is translated now
        wait_panel(qtbot, win, 6, "suggestion", timeout=30_000)
        assert win.suggestion.current.source == SENTENCES[6]
        assert running[1].cancelled
    finally:
        win.nmt.translator.suggest = real
        vars(win.nmt.translator).pop("suggest_many", None)
    ahead = [k.split("\x00")[0] for k in running[0]]  # the sentences that were being translated ahead, together
    assert ahead == SENTENCES[3:2 + LOOKAHEAD]
    for sentence in ahead:
        assert ("stopped", sentence, False) in log and ("finished", sentence) not in log


def test_the_rows_ahead_are_translated_in_one_batch_each_as_alone_and_served_ready(qtbot, win):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[1:1 + LOOKAHEAD]), timeout=120_000)
    tr, singles, batches = win.nmt.translator, [], []
    real_one, real_many = tr.suggest, tr.suggest_many
    tr.suggest = lambda req, **kw: singles.append(req.source) or real_one(req, **kw)
    tr.suggest_many = lambda reqs, **kw: batches.append([r.source for r in reqs]) or real_many(reqs, **kw)
    try:
        win.nmt.cache.clear()
        win.nav.go_to(3)  # the row entered alone and first, the next alone, the two after it in one request
        wait_panel(qtbot, win, 3, "suggestion", timeout=120_000)
        qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[4:7]), timeout=120_000)
        assert singles == [SENTENCES[3], SENTENCES[4]] and batches == [SENTENCES[5:7]]
        ahead = dict(win.nmt.cache)
        together = {k: v.text for k, v in ahead.items() if k.split("\x00")[0] in SENTENCES[4:7]}
        # the same rows prefetched one by one: the same keys, the same suggestions
        win.nmt.cache.clear()
        for r in range(4, 7):
            win.nmt.prefetch(SENTENCES[r], [], win.flow.context(r), win.flow.suggestion_terms(r))
        qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[4:7]), timeout=120_000)
        assert singles[2:] == SENTENCES[4:7] and len(batches) == 1
        assert {k: v.text for k, v in win.nmt.cache.items() if k.split("\x00")[0] in SENTENCES[4:7]} == together
        win.nmt.cache.clear()
        win.nmt.cache.update(ahead)
        ready = win.nmt.served["ready"]
        win.nav.go_to(4)  # served from what was translated ahead
        wait_panel(qtbot, win, 4, "suggestion", timeout=30_000)
        win.nav.go_to(5)  # and so is a row of the batch
        wait_panel(qtbot, win, 5, "suggestion", timeout=30_000)
        assert win.nmt.served["ready"] == ready + 2 and len(singles) == 5
    finally:
        tr.suggest, tr.suggest_many = real_one, real_many


def test_a_failed_tm_lookup_of_one_row_ahead_leaves_the_others_translated_ahead(qtbot, win, monkeypatch):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[1:1 + LOOKAHEAD]), timeout=120_000)
    tm, real = win.tm, win.tm.search_now
    said: list[str] = []
    tm.failed.connect(said.append)

    def search_now(control, query, k=1):
        if query.text == SENTENCES[3]:
            raise OSError("the shared TM went away")
        return real(control, query, k)

    monkeypatch.setattr(tm, "search_now", search_now)
    win.nmt.cache.clear()
    win.flow._ahead.clear()
    win.nav.go_to(1)  # rows 2-4 looked up ahead: row 3's lookup fails
    wait_panel(qtbot, win, 1, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: cached(win, SENTENCES[2]) and cached(win, SENTENCES[4]), timeout=120_000)
    assert not cached(win, SENTENCES[3]) and any("went away" in m for m in said)
    monkeypatch.setattr(tm, "search_now", real)
    win.nav.go_to(3)  # entered, the row is looked up and translated as any other
    wait_panel(qtbot, win, 3, "suggestion", timeout=120_000)
    assert win.suggestion.current.source == SENTENCES[3]


def test_an_engine_process_that_dies_says_so_in_one_line_and_the_next_suggestion_comes(qtbot, win, monkeypatch):
    import os
    import signal

    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: all(cached(win, s) for s in SENTENCES[1:1 + LOOKAHEAD]), timeout=120_000)
    real = slow_translator(win, [], monkeypatch)
    monkeypatch.delenv(SLOW_STEP_ENV)  # the engine process started next translates at full speed
    try:
        win.nav.go_to(5)  # not translated ahead: a slow search under way in the engine process
        qtbot.wait(300)
        os.kill(win.nmt.translator.proc.pid, signal.SIGKILL)
        qtbot.waitUntil(lambda: "engine stopped" in win.suggestion.status.text(), timeout=30_000)
        msg = win.suggestion.status.text()
        assert msg.startswith("Translation failed: the suggestion engine stopped") and "\n" not in msg
        win.nav.go_to(6)
        wait_panel(qtbot, win, 6, "suggestion", timeout=30_000)
        assert win.suggestion.current.source == SENTENCES[6] and win.nmt.translator.starts == 3
    finally:
        win.nmt.translator.suggest = real
