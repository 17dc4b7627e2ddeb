"""Which segments the grid shows: up to two filters at once, both to pass (status, a finding,
repetitions, locked, or where the target came from: "Fuzzy / draft" and "From the TM") and the find
bar's text (in the source, the target or both; plain, whole word, case, regular expression).  Widget-free: the proxy model behind the grid and what it
matches; the search controller (``app/controllers/search.py``) sets them."""
from __future__ import annotations

import re
from typing import Collection

from PySide6.QtCore import QSortFilterProxyModel

from engine.inline import strip_tags
from engine.qa import check_segments, received_ids, tag_issues
from engine.qa_types import Issue
from engine.store import Segment
from engine.store.qa_ignore import Key, key

FILTERS = {
    "all": "All segments",
    "untranslated": "Untranslated",
    "fuzzy": "Fuzzy / draft",
    "confirmed": "Confirmed",
    "tag_error": "With tag errors",
    "qa": "With QA findings",
    "repetitions": "Repetitions",
    "tm": "From the TM",
    "mt": "From machine translation",
    "human": "Translated by you",
    "received": "As received (the file's own target)",
    "locked": "Locked",
}
#: Filters whose rows a check over the whole document picks (off the UI thread: the QA check
#: of a 10,000-segment document took 2.4 s, the tag check alone 0.6 s).
CHECKED = ("tag_error", "qa")
#: Where the find text is looked for: (source, target).
FIND_IN = {"both": (True, True), "source": (True, False), "target": (False, True)}


def matches_filter(seg: Segment, mode: str) -> bool:
    """Whether ``seg`` passes the filter ``mode`` that needs no document-wide check."""
    if mode == "untranslated":
        return seg.status == "new" or not seg.target.text.strip()
    if mode == "fuzzy":
        return seg.status == "draft"
    if mode == "confirmed":
        return seg.status == "confirmed"
    if mode in ("tm", "mt", "human"):
        return seg.origin == mode and bool(seg.target.text)
    if mode == "received":
        return seg.as_received
    if mode == "locked":
        return seg.locked
    return True


def qa_findings(segments: list[Segment], qa_options=None, ignored: Collection[Key] = ()) -> list[Issue]:
    """The project's QA check over ``segments`` as the grid marks and filters them: findings about
    one segment, spelling aside (the target box underlines it), less those the translator ignored
    (``ignored``: :meth:`engine.store.qa_ignore.IgnoreList.keys`, read on the UI thread)."""
    issues = check_segments(segments, qa_options, spelling=None, received=received_ids(segments))
    return [i for i in issues if i.segment_id and i.check != "no-dictionary" and key(i) not in ignored]


def flagged_ids(segments: list[Segment], mode: str, qa_options=None, ignored: Collection[Key] = ()) -> frozenset[int]:
    """Ids of the segments the check of ``mode`` (one of :data:`CHECKED`) finds something in:
    tag errors as the Status column marks them, or a QA finding not ignored (:func:`qa_findings`)."""
    if mode == "tag_error":
        return frozenset(s.id for s in segments
                         if s.target.text and tag_issues(s.id, s.idx, s.source, s.target))
    if mode == "qa":
        return frozenset(i.segment_id for i in qa_findings(segments, qa_options, ignored))
    raise ValueError(f"no document check for the filter {mode!r}")


def compile_find(text: str, *, case: bool = False, regex: bool = False, word: bool = False) -> re.Pattern:
    """The find text as a pattern; ``word``: only where no letter or digit is glued to it.
    A regular expression that does not compile is looked for as plain text."""
    flags = 0 if case else re.IGNORECASE
    try:
        body = text if regex else re.escape(text)
        re.compile(body)
    except re.error:
        body = re.escape(text)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)" if word else body, flags)


class SegmentFilter(QSortFilterProxyModel):
    """The rows of the grid: those that pass every filter of ``modes`` and match the find text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.modes: tuple[str, ...] = ()             # the filters in force, all to pass (none: all rows)
        self.flagged: frozenset[int] = frozenset()   # segment ids every CHECKED filter of modes picked
        self.pattern: re.Pattern | None = None
        self.in_source = True
        self.in_target = True
        #: rows shown whatever the find text says: those a replacement just changed (so the
        #: grid does not empty itself when the new text no longer matches)
        self.pinned: frozenset[int] = frozenset()

    def pin(self, rows) -> None:
        self.beginFilterChange()
        self.pinned = frozenset(rows)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_mode(self, mode: str, flagged: frozenset[int] = frozenset()) -> None:
        """Show the rows of filter ``mode``; a :data:`CHECKED` one shows the ids ``flagged``."""
        self.set_modes((mode,), flagged)

    def set_modes(self, modes, flagged: frozenset[int] = frozenset()) -> None:
        """Show the rows that pass every filter of ``modes`` ("all" passes everything); the
        :data:`CHECKED` ones among them pass the ids ``flagged`` (what all their checks found)."""
        for mode in modes:
            if mode not in FILTERS:
                raise ValueError(f"unknown filter {mode!r}")
        self.beginFilterChange()
        self.modes, self.flagged = tuple(dict.fromkeys(m for m in modes if m != "all")), frozenset(flagged)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    @property
    def mode(self) -> str:
        """The first filter in force ("all" when none is)."""
        return self.modes[0] if self.modes else "all"

    def set_find(self, text: str, *, case: bool = False, regex: bool = False, word: bool = False,
                 source: bool = True, target: bool = True) -> None:
        self.beginFilterChange()
        self.pinned = frozenset()
        self.pattern = compile_find(text, case=case, regex=regex, word=word) if text else None
        self.in_source, self.in_target = source, target
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def refilter(self) -> None:
        """Filter again after targets changed (replace)."""
        self.beginFilterChange()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, row, parent):  # noqa: N802
        m = self.sourceModel()
        seg = m.segment(row)
        for mode in self.modes:
            if mode in CHECKED:
                if seg.id not in self.flagged:
                    return False
            elif mode == "repetitions":
                if not m.is_repeated(row):
                    return False
            elif not matches_filter(seg, mode):
                return False
        if self.pattern is None or row in self.pinned:
            return True
        return bool((self.in_source and self.pattern.search(strip_tags(seg.source.text)))
                    or (self.in_target and self.pattern.search(strip_tags(seg.target.text))))
