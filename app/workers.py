"""Long work off the UI thread.

* :class:`Worker` runs one function on the global thread pool and reports
  ``progress``, ``result`` or ``error`` back on the UI thread (Qt queues the
  signals across threads).  The function receives a :class:`Control` to
  report progress and to see whether it was cancelled.
* :class:`LatestOnly` wraps a kind of request (TM lookup, suggestion) so that
  a result arriving for a segment the translator has already left is
  dropped: only the newest request's answer is delivered.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import contextlib
import threading
import time
import traceback
import warnings
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class Cancelled(Exception):
    """Raised inside a job by :meth:`Control.check` once cancel was asked."""


class Control:
    """Handed to a job: report progress, and stop early when cancelled."""

    def __init__(self, emit_progress: Callable[[dict], None]):
        self._cancel = threading.Event()
        self._emit = emit_progress

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled()

    def progress(self, **event: Any) -> bool:
        """Report progress; returns False once cancelled (engine callbacks use that to stop)."""
        self._emit(event)
        return not self._cancel.is_set()


class _Signals(QObject):
    progress = Signal(dict)
    result = Signal(object)
    error = Signal(str)
    cancelled = Signal()
    finished = Signal()


class Worker(QRunnable):
    """``Worker(fn, *args)`` calls ``fn(control, *args)`` on a pool thread."""

    def __init__(self, fn: Callable, *args, **kwargs):
        super().__init__()
        self.setAutoDelete(False)  # we keep a reference so signals stay alive
        self.signals = _Signals()
        self.control = Control(self.signals.progress.emit)
        self._fn, self._args, self._kwargs = fn, args, kwargs
        # Set once every signal is emitted: a job that fails at once can end before a caller
        # connects to ``finished`` (a cross-thread signal with no connection yet is lost).
        self.ended = threading.Event()

    def run(self) -> None:  # pool thread
        try:
            out = self._fn(self.control, *self._args, **self._kwargs)
        except Cancelled:
            self._emit(self.signals.cancelled)
        except Exception as e:  # noqa: BLE001 - shown to the user, not swallowed
            msg = str(e) or e.__class__.__name__
            if not getattr(e, "__module__", "").startswith("engine"):
                msg = f"{msg}\n\n{traceback.format_exc(limit=3)}"
            self._emit(self.signals.error, msg)
        else:
            if self.control.cancelled:
                self._emit(self.signals.cancelled)
            else:
                self._emit(self.signals.result, out)
        finally:
            self._emit(self.signals.finished)
            self.ended.set()

    @staticmethod
    def _emit(signal, *args) -> None:
        """Emit unless the receiving side is gone: a job that ends after its window
        closed (Qt deleted the signals' object) has no one left to tell."""
        try:
            signal.emit(*args)
        except RuntimeError:
            pass

    def cancel(self) -> None:
        self.control.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ended and deliver, on the calling (UI) thread, the signals it
        queued there; True if it ended within ``timeout`` seconds."""
        from PySide6.QtCore import QCoreApplication

        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.ended.wait(0.01):
            QCoreApplication.processEvents()
            if deadline is not None and time.monotonic() > deadline:
                return False
        QCoreApplication.sendPostedEvents()
        return True


_live: set[Worker] = set()


def _ended(worker: Worker) -> None:
    """On the UI thread, once ``finished`` arrived: the pool thread has called the job and emitted
    its last signal, and only returns from ``run`` now.  PySide keeps a reference to every QRunnable
    started on a pool, for good (a Worker outlives its pool: measured), so the Python object is
    never deleted under that thread -- but its job and arguments (a document's segments, a closed
    project's model) would be kept as long: let go of them here, on the UI thread, where a Qt object
    among them may be deleted."""
    _live.discard(worker)
    worker._fn, worker._args, worker._kwargs = None, (), {}
    # Its slots (closures over a window, a project) would be kept as long too: leave them once the
    # slots queued by this last emit have run (posted now, so after them).
    from app.uipost import post

    post(lambda: _disconnect(worker.signals))


def _disconnect(signals: _Signals) -> None:
    for signal in (signals.progress, signals.result, signals.error, signals.cancelled, signals.finished):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # (one with no slot warns)
            with contextlib.suppress(RuntimeError, TypeError, SystemError):
                signal.disconnect()


def start(worker: Worker, pool: QThreadPool | None = None, priority: int = 0) -> Worker:
    """Run ``worker`` on ``pool`` (the global pool by default), keeping it alive until done; of the
    jobs waiting for a thread, those of higher ``priority`` start first (work done ahead: below 0)."""
    _live.add(worker)
    worker.signals.finished.connect(lambda: _ended(worker))
    (pool or QThreadPool.globalInstance()).start(worker, priority)
    return worker


class LatestOnly(QObject):
    """Deliver only the answer to the newest request.

    ``request(key, fn, *args)`` runs ``fn(control, *args)`` in the background;
    when it finishes, ``ready(key, result)`` is emitted only if no newer
    request was made meanwhile.  Older jobs are told to cancel.
    """

    ready = Signal(object, object)   # key, result
    failed = Signal(object, str)     # key, message

    def __init__(self, pool: QThreadPool | None = None, parent=None):
        super().__init__(parent)
        self._pool = pool
        self._generation = 0
        self._current: Worker | None = None
        self.dropped = 0  # results thrown away because they were stale (for tests and the status bar)

    def request(self, key, fn: Callable, *args) -> None:
        self._generation += 1
        gen = self._generation
        if self._current is not None:
            self._current.cancel()
        w = Worker(fn, *args)
        w.signals.result.connect(lambda out, gen=gen, key=key: self._deliver(gen, key, out))
        w.signals.error.connect(lambda msg, gen=gen, key=key: gen == self._generation and self.failed.emit(key, msg))
        w.signals.cancelled.connect(self._count_dropped)
        self._current = w
        start(w, self._pool)

    def _count_dropped(self) -> None:
        self.dropped += 1

    def _deliver(self, gen: int, key, out) -> None:
        if gen != self._generation:
            self.dropped += 1
            return
        self.ready.emit(key, out)

    @property
    def generation(self) -> int:
        """Grows with every request and invalidation: an answer obtained elsewhere
        (a prefetch) is still current while this has not changed."""
        return self._generation

    def invalidate(self) -> None:
        """Forget pending requests (e.g. the document changed)."""
        self._generation += 1
        if self._current is not None:
            self._current.cancel()
