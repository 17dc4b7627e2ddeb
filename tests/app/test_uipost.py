"""A background thread's news reaches the UI thread without touching an object the UI thread
may be deleting (app/uipost.py): no crash when a window, editor or service closes mid-emit."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

shiboken6 = pytest.importorskip("shiboken6")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")

from PySide6.QtCore import QObject, Signal  # noqa: E402

from app.uipost import post, post_to  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# One thread per cycle reports on an object whose parent the UI thread deletes meanwhile.
# "emit": the thread emits on the object itself (what the spelling checker and the TM thread
# did) -- 8 of 8 runs of 500 cycles segfaulted on a 2-core VM; "post": through app.uipost, 0 of 8.
STRESS = r'''
import sys, threading
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
app = QCoreApplication([])
from app.uipost import post_to
mode, cycles = sys.argv[1], int(sys.argv[2])

class Service(QObject):
    state = Signal(str)
    def __init__(self, parent):
        super().__init__(parent)
        self.seen = 0
        self.state.connect(self.count)
    def count(self, msg):
        self.seen += 1

def report(box, stop):
    while not stop.is_set():
        try:
            if mode == "emit":
                box[0].state.emit("offline")
            else:
                post_to(box[0], lambda s: s.state.emit("offline"))
        except RuntimeError:  # deleted already: Python saw it
            pass

for _ in range(cycles):
    window = QObject()
    box, stop = [Service(window)], threading.Event()
    t = threading.Thread(target=report, args=(box, stop))
    t.start()
    QCoreApplication.processEvents()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    del window
    stop.set()
    t.join()
    QCoreApplication.processEvents()
print("survived", cycles)
'''


# A closed window's controllers: a cycle holding a parentless QObject with a running timer, left
# to the cycle collector while two job threads allocate.  "threads": the collector runs wherever a
# threshold is passed -- 3 of 3 runs of 20000 cycles segfaulted on a 2-core VM; "ui": collected on
# the UI thread only (app.uipost.collect_on_ui_thread).
GC_STRESS = r'''
import sys, threading
from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal
app = QCoreApplication([])
from app.uipost import collect_on_ui_thread
mode, cycles = sys.argv[1], int(sys.argv[2])
if mode == "ui":
    collect_on_ui_thread()

class Controller(QObject):
    changed = Signal()
    def __init__(self):
        super().__init__()
        self.timer = QTimer(self)
        self.timer.start(1000)
        self.changed.connect(self.refresh)
        self.me = self
    def refresh(self):
        pass

stop = threading.Event()
def job():
    while not stop.is_set():
        [[] for _ in range(1000)]
jobs = [threading.Thread(target=job) for _ in range(2)]
for t in jobs:
    t.start()
for i in range(cycles):
    c = Controller()
    c.changed.emit()
    del c
    if i % 50 == 0:
        QCoreApplication.processEvents()
stop.set()
for t in jobs:
    t.join()
print("survived", cycles)
'''


def _stress(mode: str, cycles: int, script: str = STRESS) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", script, mode, str(cycles)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_thread_reporting_while_its_object_is_deleted_does_not_crash():
    res = _stress("post", 500)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "survived 500" in res.stdout


class _Svc(QObject):
    state = Signal(str)


def test_posted_news_runs_on_the_ui_thread_for_a_live_object(qtbot):
    ui = threading.get_ident()
    svc, seen = _Svc(), []
    svc.state.connect(lambda msg: seen.append((msg, threading.get_ident())))
    t = threading.Thread(target=post_to, args=(svc, lambda s: s.state.emit("offline")))
    t.start()
    t.join()
    assert seen == []   # not run on the thread
    qtbot.waitUntil(lambda: seen == [("offline", ui)], timeout=10_000)


def test_news_for_a_deleted_object_is_dropped(qtbot):
    parent = QObject()
    svc, seen = _Svc(parent), []
    svc.state.connect(seen.append)
    post_to(svc, lambda s: s.state.emit("late"))
    del svc
    shiboken6.delete(parent)   # the window closes before the news has its turn
    done = threading.Event()
    post(done.set)  # posted after: once it ran, the news before it had its turn
    qtbot.waitUntil(done.is_set, timeout=10_000)
    assert seen == []


def test_garbage_holding_qt_objects_is_collected_on_the_ui_thread_only():
    res = _stress("ui", 20000, GC_STRESS)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "survived 20000" in res.stdout
    assert "another thread" not in res.stderr   # (Qt: "Timers cannot be stopped from another thread")


def test_the_collector_on_the_ui_thread_frees_cycles(qtbot):
    import gc
    import weakref

    from app.uipost import collect_on_ui_thread

    was = gc.isenabled()
    collect_on_ui_thread(interval_ms=10)
    try:
        class Node:
            pass
        a = Node()
        a.me = a
        gone = weakref.ref(a)
        del a
        more = [Node() for _ in range(2000)]   # past the first threshold (700 allocations by default)
        qtbot.waitUntil(lambda: gone() is None, timeout=10_000)
        del more
    finally:
        if was:
            gc.enable()


def test_the_collector_on_the_ui_thread_makes_a_full_pass_at_most_every_30_s(qtbot, monkeypatch):
    """A full pass over the editor's heap is a UI pause of 70-120 ms: however much is allocated,
    the UI thread's collector runs one at most every FULL_EVERY_S seconds."""
    import gc

    from app import uipost

    uipost.stop_collecting_on_ui_thread()   # a collector of this test's own, with a clock it sets
    now = [1000.0]
    monkeypatch.setattr(uipost.time, "monotonic", lambda: now[0])
    passes = []
    record = lambda phase, info: phase == "start" and passes.append(info["generation"])  # noqa: E731
    gc.callbacks.append(record)
    try:
        uipost.collect_on_ui_thread(interval_ms=60_000)
        collector = uipost._collector
        monkeypatch.setattr(gc, "get_count", lambda: (1000, 20, 20))   # every generation past its threshold
        collector.collect()
        now[0] += 10
        collector.collect()
        now[0] += uipost._Collector.FULL_EVERY_S
        collector.collect()
    finally:
        gc.callbacks.remove(record)
        uipost.stop_collecting_on_ui_thread()
        uipost.collect_on_ui_thread()
    assert passes == [1, 1, 2]
