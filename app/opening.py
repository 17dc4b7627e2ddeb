"""What a project's opening starts at once, and what waits for the first TM matches.

When a project opens, the TM thread opens the TMs and looks the first segment up, and the
suggestion engine loads its model (torch).  Each is Python work on its own thread, and the UI
thread must win the interpreter lock from all of them for every paint and every key.  With the
spelling dictionary (hunspell read in Python: ~3 s for German) and the QA marks (~0.5 s for 2,000
segments) started at the same moment, the first TM match came 2.6-3.3 s after ``show()`` and the
UI thread's longest wait was 171-200 ms; with those two started once the first segment's matches
are on screen (and libtorch loaded as :mod:`app.torch_preload` does), 1.45-1.57 s and 120-139 ms
(``python -m benchmarks.opening_gaps``: 100k-unit TM being re-indexed, demo model, 2,000
segments, 2-core machine).

:meth:`Opening.after_matches` runs its callables once the first segment's TM matches are on
screen (or there is no TM, or it failed); :meth:`Opening.later` once the model has loaded too
(or there is none, or it failed); both run anyway :data:`FALLBACK_MS` after the opening.
Until the dictionary has loaded nothing is underlined; until the check has run no segment has
a QA mark.

While a project opens, and until its dictionary has loaded, the heap is frozen every
:data:`FREEZE_MS` (``gc.freeze``, as :func:`app.controllers.documents.freeze_heap` does once):
the threads loading the model and the dictionary make millions of objects, and each time the
heap had grown by a quarter a full collection walked all of them with the interpreter lock held
-- 5-7 collections of 55-215 ms, growing, in the 2 s after the first match; frozen every 200 ms,
none over 50 ms (``benchmarks.opening_gaps``, 3 runs each).  Objects frozen then are still freed
by reference counting; only cycles among them wait for the next document's ``freeze_heap``.

The first segment's lookup is asked as its document starts loading (SegmentFlow.look_up_first):
the TM thread opens the TMs and searches while the UI thread builds the document's rows, and an
answer that comes after ``show()`` waits for the window's first paint.
"""
from __future__ import annotations

import gc
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal

#: the latest the deferred work starts after a project opens (a TM or a model that takes longer)
FALLBACK_MS = 15_000
#: how often the heap is frozen while the opening's loads run
FREEZE_MS = 200
#: the longest the heap is frozen for (a dictionary that never answers)
FREEZE_FOR_MS = 2 * FALLBACK_MS


class Opening(QObject):
    """The window's project opening, in two steps: :meth:`after_matches` runs its callables once
    the first segment's TM matches are on screen, :meth:`later` once the model has loaded too."""

    matched = Signal()
    settled = Signal()

    def __init__(self, win):
        super().__init__(win)
        self.win = win
        self.done = True                   # no opening under way: later() runs at once
        self.matched_done = True
        self._after_matches: list[Callable[[], None]] = []
        self._waiting: list[Callable[[], None]] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FALLBACK_MS)
        self._timer.timeout.connect(self._settle)
        win.panelUpdated.connect(self._panel_updated)
        self._freezer = QTimer(self)
        self._freezer.setInterval(FREEZE_MS)
        self._freezer.timeout.connect(self._freeze)
        self._freezes_left = 0

    def begin(self) -> None:
        """A project opened (its TM service and suggestion engine started): what :meth:`later` and
        :meth:`after_matches` are given from now on waits; what waited for the project before
        is dropped."""
        self.done = self.matched_done = False
        self._after_matches, self._waiting = [], []
        self._timer.start()
        self._freezes_left = FREEZE_FOR_MS // FREEZE_MS
        self._freezer.start()
        tm = self.win.tm
        if tm is not None:
            tm.failed.connect(self._tm_answered)
            tm.lookups.failed.connect(self._tm_answered)
        self._watch_model()
        QTimer.singleShot(0, self, self._check)  # no TM, no model, no document: settled at once

    def after_matches(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once the first segment's TM matches are on screen (at once when they are)."""
        if self.matched_done:
            fn()
        else:
            self._after_matches.append(fn)

    def later(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` once the opening has settled (at once when it has)."""
        if self.done:
            fn()
        else:
            self._waiting.append(fn)

    @property
    def freezing(self) -> bool:
        """The heap is being frozen as the opening's loads run."""
        return self._freezer.isActive()

    def _freeze(self) -> None:
        gc.freeze()
        self._freezes_left -= 1
        if self._freezes_left <= 0 or (self.done and getattr(self.win.delivery, "spell_ready", True)):
            self._freezer.stop()

    def _watch_model(self) -> None:
        nmt = self.win.nmt
        if nmt is not None:
            nmt.loaded.connect(self._check)
            nmt.unavailable.connect(self._check)
            nmt.failed.connect(self._check)

    def _panel_updated(self, _row: int, what: str) -> None:
        if what == "matches" and not self.done:
            self._tm_answered()

    def _tm_answered(self, *_args) -> None:  # an error is an answer too: the panel says it
        if not self.matched_done:
            self._matches_shown()
        self._check()

    def _matches_shown(self) -> None:
        nmt = self.win.nmt
        self.matched_done = True
        todo, self._after_matches = self._after_matches, []
        for fn in todo:
            fn()
        if self.win.nmt is not nmt:  # one of them started the suggestion engine
            self._watch_model()
        self.matched.emit()

    def _check(self, *_args) -> None:
        if self.done:
            return
        win = self.win
        if not self.matched_done:
            tm, model = win.tm, win.model
            if tm is None or not tm.infos or model is None or model.rowCount() == 0:
                self._matches_shown()
            else:
                return
        nmt = win.nmt
        if nmt is None or nmt.translator is not None or nmt.error is not None:
            self._settle()

    def _settle(self) -> None:
        if self.done:
            return
        self._timer.stop()
        if not self.matched_done:  # the fallback: whatever happened
            self._matches_shown()
        self.done = True
        waiting, self._waiting = self._waiting, []
        for fn in waiting:
            fn()
        self.settled.emit()
