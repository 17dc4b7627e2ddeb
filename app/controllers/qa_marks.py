"""The grid's QA marks: the project's QA check runs over the document shown, off the UI thread,
a moment after the document is shown (2,000 segments: about half a second; when a project
opens, once its first TM matches are on screen: :mod:`app.opening`) and after each
confirm or edit (then only the segments that changed are checked again, and the consistency
check over all: a few milliseconds, so the check holds the interpreter lock only briefly while
the translator types); the Status column of a segment with findings says so (" · QA", the findings'
messages as its tooltip), less the findings the translator ignored.  Tag findings are left to
the Status column's own tag mark, an empty target to its status ("new").  Only the newest run's
answer is shown, and none for a document no longer shown.  Owned by the delivery controller
(``win.delivery.marks``)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from engine.qa import TAG_CHECKS, QAOptions, check_consistency, check_segments, received_ids
from engine.qa_types import Issue
from engine.store import Segment
from engine.store.qa_ignore import IgnoreList, key

from app.workers import LatestOnly

#: Findings the Status column already shows in its own words: tag errors, an empty target.
UNMARKED = TAG_CHECKS | {"untranslated", "empty"}
#: How long after an edit the check runs: edits in a row (typing, propagation) make one run.
DELAY_MS = 400


@dataclass(frozen=True)
class Checked:
    """One run's answer: the marks, and each segment's own findings with the segment as checked
    (the next run checks again only the segments that differ from it)."""

    options: QAOptions
    marks: dict[int, tuple[str, ...]]          # segment id -> the messages of its findings
    segments: dict[int, tuple[Segment, tuple[Issue, ...]]]


def check(control, segments: list[Segment], options: QAOptions, ignored, before: Checked | None) -> Checked:
    """The QA check of ``segments`` as :func:`app.filters.qa_findings` runs it (consistency over
    all, spelling aside), less the ``ignored`` findings; the one-segment checks only for the
    segments that changed since ``before``.  On a pool thread."""
    known = before.segments if before is not None and before.options == options else {}
    done: dict[int, tuple[Segment, tuple[Issue, ...]]] = {}
    todo = []
    for s in segments:
        hit = known.get(s.id)
        if hit is not None and hit[0] == s:
            done[s.id] = hit
        else:
            todo.append(s)
    control.check()
    found: dict[int, list[Issue]] = defaultdict(list)
    for i in check_segments(todo, options.with_check("consistency", False), spelling=None,
                            received=received_ids(todo)):
        found[i.segment_id].append(i)
    for s in todo:
        done[s.id] = (s, tuple(found.get(s.id, ())))
    issues = [i for s in segments for i in done[s.id][1]]
    if "consistency" in options.enabled:
        issues += check_consistency([s for s in segments if not s.locked])
    out: dict[int, list[str]] = defaultdict(list)
    for i in issues:
        if i.segment_id and i.check not in UNMARKED and key(i) not in ignored:
            out[i.segment_id].append(i.message)
    return Checked(options, {sid: tuple(msgs) for sid, msgs in out.items()}, done)


class QAMarks(QObject):
    #: marks for the document shown were applied (tests wait on it)
    updated = Signal()

    def __init__(self, win):
        super().__init__(win)
        self.win = win
        self._model = None
        self._last: Checked | None = None  # the last answer applied for the document shown
        # not a child of the window: a run that ends after the window closed finds it still there
        # (and no one connected to it)
        self._runs = LatestOnly()
        self._runs.ready.connect(self._apply)
        self._runs.failed.connect(self._failed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self._stale = 0
        win.proxy.sourceModelChanged.connect(self._document_shown)

    @property
    def dropped(self) -> int:
        """Answers thrown away: a newer run was asked for, or their document is no longer shown."""
        return self._runs.dropped + self._stale

    def _document_shown(self) -> None:
        model = self.win.model
        if model is self._model:
            return
        self._model, self._last = model, None
        self._runs.invalidate()  # a run for the document shown before is not shown
        if model is not None:
            model.segmentChanged.connect(lambda _row, model=model: model is self._model and self._timer.start())
            opening = getattr(self.win, "opening", None)
            if opening is not None:  # a project opens: once its first matches are on screen (app/opening.py)
                opening.after_matches(self._timer.start)
            else:
                self._timer.start()  # after the document's first paint, not competing with it

    def refresh(self) -> None:
        """Check the document shown again, off the UI thread (the newest run wins)."""
        self._timer.stop()
        win, model = self.win, self.win.model
        if model is None or win.project is None:
            self._runs.invalidate()
            return
        self._runs.request(model, check, model.segments(), win.project.qa_options(),
                           IgnoreList(win.project).keys(), self._last)

    def _failed(self, _model, msg: str) -> None:
        self.win.statusBar().showMessage(f"The QA marks could not be updated: {msg.splitlines()[0]}", 8000)

    def _apply(self, model, answer: Checked) -> None:
        if model is not self.win.model:
            self._stale += 1
            return
        self._last = answer
        model.set_qa_findings(answer.marks)
        self.updated.emit()
