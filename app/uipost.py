"""Hand work from a background thread to the UI thread without touching a Qt object there.

A thread (a pool job, a child process's reader, a checker's callback) must never emit a signal on,
or call, a QObject the UI thread may be deleting at that moment (an editor's highlighter, a
window's TMService): the emit races the C++ deletion (a thread emitting on an object the UI
thread deletes segfaulted 8 runs of 8 of tests/app/test_uipost.py's stress script, 500
create/emit/delete cycles; 0 of 8 through here).  :func:`post_to` emits instead on one object
that lives as long as the process, on the UI thread; its queued slot runs there, where nothing
is being deleted under it, and calls the target only if it still exists.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import gc
import threading
import time
import weakref
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal, Slot


class _Post(QObject):
    """The one object background threads emit on; never deleted (see :func:`_poster`)."""

    call = Signal(object)   # a callable of no arguments, run on the UI thread

    def __init__(self):
        super().__init__()
        self.call.connect(self._run, Qt.QueuedConnection)

    @Slot(object)
    def _run(self, fn) -> None:
        fn()


_poster: _Post | None = None
_lock = threading.Lock()


def _post_object() -> _Post:
    global _poster
    if _poster is None:
        with _lock:
            if _poster is None:
                p = _Post()
                app = QCoreApplication.instance()
                if app is not None and p.thread() is not app.thread():
                    p.moveToThread(app.thread())  # made on a worker thread: its slot still runs on the UI thread
                _poster = p
    return _poster


def prepare() -> None:
    """Make the post object now (call on the UI thread, e.g. when a window or service is made)."""
    _post_object()


def post(fn: Callable[[], Any]) -> None:
    """Run ``fn()`` on the UI thread, later (from any thread; from the UI thread too, never at once)."""
    _post_object().call.emit(fn)


def post_to(obj: QObject | weakref.ref, fn: Callable[[Any], Any]) -> None:
    """Run ``fn(obj)`` on the UI thread, later, if ``obj`` still exists then (neither collected nor
    deleted by Qt).  Holds ``obj`` only weakly: a closed window's object is not kept alive.  A thread
    that keeps ``weakref.ref(obj)`` may pass that, and never hold the object itself."""
    ref = obj if isinstance(obj, weakref.ref) else weakref.ref(obj)

    def deliver() -> None:
        from shiboken6 import isValid

        target = ref()
        if target is not None and isValid(target):
            fn(target)
    post(deliver)


class _Collector(QObject):
    """Python's cycle collector, run on the UI thread only (:func:`collect_on_ui_thread`)."""

    #: CPython defers a full pass until the objects that survived since the last one reach a quarter of
    #: those kept; it does not tell us those counts, so a full pass comes at most this often instead
    #: (a full pass over an editor's heap is the 70-120 ms UI pause ``gc.freeze`` was made to avoid).
    FULL_EVERY_S = 30.0

    def __init__(self, interval_ms: int):
        super().__init__()
        self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        self._timer.start(interval_ms)

    @Slot()
    def collect(self) -> None:
        """Collect the generations whose counts passed their thresholds, as the collector itself would."""
        counts, limits = gc.get_count(), gc.get_threshold()
        generation = -1
        for g in range(3):
            if counts[g] > limits[g]:
                generation = g
        if generation == 2:
            if time.monotonic() - self._last_full < self.FULL_EVERY_S:
                generation = 1
            else:
                self._last_full = time.monotonic()
        if generation >= 0:
            gc.collect(generation)

    def stop(self) -> None:
        self._timer.stop()


_collector: _Collector | None = None


def collect_on_ui_thread(interval_ms: int = 250) -> None:
    """Run Python's cycle collector on the UI thread only (call there, once a QCoreApplication is made).

    Left on, the collector runs on whichever thread allocates when a threshold is passed -- often a
    pool thread -- and frees there the garbage cycles it finds: a closed window's controllers with a
    parentless QObject and its timer are then deleted off the UI thread (a cycle holding a QObject
    with a running QTimer, collected while two threads allocated, segfaulted 3 runs of 3 of
    tests/app/test_uipost.py's script; 0 once collected here).  Objects without cycles are still
    freed at once, on any thread, by their reference counts."""
    global _collector
    if _collector is None:
        _collector = _Collector(interval_ms)
        gc.disable()


def stop_collecting_on_ui_thread() -> None:
    """Hand collection back to Python's own collector (tests of the editor: the rest of a run has no
    event loop to run the timer)."""
    global _collector
    if _collector is not None:
        _collector.stop()
        _collector.deleteLater()
        _collector = None
        gc.enable()
