"""Background work: results come back on the UI thread; stale answers are dropped."""
from __future__ import annotations

import os
import threading
import time

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")

from app.workers import LatestOnly, Worker, start  # noqa: E402


def test_worker_reports_progress_and_result_on_ui_thread(qtbot):
    ui_thread = threading.get_ident()
    seen = []

    def job(control, n):
        for i in range(n):
            control.progress(step=i)
        return threading.get_ident()

    w = Worker(job, 3)
    w.signals.progress.connect(lambda e: seen.append((e["step"], threading.get_ident())))
    with qtbot.waitSignal(w.signals.result, timeout=30_000) as blocker:
        start(w)
    assert blocker.args[0] != ui_thread          # ran off the UI thread
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=30_000)
    assert all(t == ui_thread for _, t in seen)   # delivered on the UI thread


def test_cancel_stops_a_job(qtbot):
    started = threading.Event()

    def job(control):
        started.set()
        while True:
            control.check()
            time.sleep(0.005)

    w = Worker(job)
    with qtbot.waitSignal(w.signals.cancelled, timeout=30_000):
        start(w)
        started.wait(5)
        w.cancel()


def test_error_message_reaches_the_ui(qtbot):
    from engine.errors import FormatError

    def job(control):
        raise FormatError("memory.tmx", "not well-formed XML", "line 7")

    w = Worker(job)
    with qtbot.waitSignal(w.signals.error, timeout=30_000) as blocker:
        start(w)
    assert blocker.args[0] == "memory.tmx, line 7: not well-formed XML"


def test_latest_only_drops_the_answer_for_a_segment_already_left(qtbot):
    latest = LatestOnly()
    got = []
    latest.ready.connect(lambda key, out: got.append((key, out)))
    release = threading.Event()

    def slow(control, seg):
        release.wait(5)
        return f"suggestion for {seg}"

    def fast(control, seg):
        return f"suggestion for {seg}"

    latest.request(1, slow, 1)      # the translator enters segment 1 ...
    latest.request(2, fast, 2)      # ... and moves on to segment 2 before it answers
    qtbot.waitUntil(lambda: got == [(2, "suggestion for 2")], timeout=30_000)
    release.set()
    qtbot.waitUntil(lambda: latest.dropped == 1, timeout=30_000)
    assert got == [(2, "suggestion for 2")]


def test_a_job_that_ended_before_anyone_waited_can_still_be_waited_on_and_its_slots_ran(qtbot):
    """A refused file fails at once: the job can end before the caller waits; waiting then
    must neither hang nor return before the job's result reached the UI thread's slots."""
    got = []
    w = Worker(lambda control: "refused")
    w.signals.result.connect(got.append)
    start(w)
    w.ended.wait(30)      # the job ended while the UI thread did not listen
    time.sleep(0.05)
    assert w.wait(30) and got == ["refused"]


def test_a_finished_job_lets_go_of_what_it_was_given(qtbot):
    """A job's function, arguments and slots (a whole document's segments, a closed window) are let
    go once it ended: PySide keeps every QRunnable started on a pool for good, so a job that held
    them kept them for the life of the process."""
    import gc
    import weakref

    class Segments(list):
        pass

    given, window = Segments(range(1000)), Segments()
    gone, closed = weakref.ref(given), weakref.ref(window)
    w = Worker(lambda control, segs: len(segs), given)
    w.signals.result.connect(lambda n, window=window: window.append(n))   # a slot over a window
    with qtbot.waitSignal(w.signals.finished, timeout=30_000):
        start(w)
    qtbot.waitUntil(lambda: closed() == [1000], timeout=10_000)
    del given, window
    qtbot.waitUntil(lambda: (gc.collect(), gone() is None and closed() is None)[1], timeout=10_000)
