"""The QA findings a translator ignored: remembered in the project, so they stay ignored.

A finding is known by its segment, its check and its text (:class:`engine.qa_types.Issue`'s
``segment_id``, ``check``, ``message``).  Ignored, it is left out of later runs for as long as a
run finds it with that same text; a finding whose text changes is another one and comes back
(``number 5 of the source is not in the target`` is not ``number 6 ...``; a consistency finding
names its segments, so a new segment in the group brings it back).  Editing the segment alone
does not: the translator looked at the finding and judged it, not the words around it.  A
segment's entries go with the segment (``ON DELETE CASCADE``).  Table ``qa_ignored``
(migration 5, :mod:`engine.store.migrations`): ``IgnoreList(project)``.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Iterable

from engine.errors import ProjectError
from engine.qa_types import Issue

Key = tuple[int, str, str]


def key(issue: Issue) -> Key:
    """What identifies a finding across QA runs."""
    return (issue.segment_id, issue.check, issue.message)


class IgnoreList:
    """The project's ignored findings: :meth:`ignore`, :meth:`restore`, :meth:`split` a run's findings."""

    def __init__(self, project):
        # the project's own connection and transactions (one writer at a time, as every store write)
        self._conn = project._conn
        self._tx = project._tx

    def ignore(self, issues: Issue | Iterable[Issue]) -> int:
        """Remember ``issues`` as ignored (again: no change); returns how many were new."""
        issues = [issues] if isinstance(issues, Issue) else list(issues)
        for i in issues:
            if i.idx < 0:  # (segment_id 0: a note about the whole run)
                raise ProjectError(f"QA ignore list: {i.check!r} is not about one segment; turn its check off "
                                   "in the project's QA options instead")
        rows = [(*key(i), _now()) for i in issues]
        try:
            with self._tx():
                before = self._conn.total_changes
                self._conn.executemany("INSERT OR IGNORE INTO qa_ignored (segment_id, check_id, message, "
                                       "ignored_at) VALUES (?, ?, ?, ?)", rows)
                return self._conn.total_changes - before
        except sqlite3.IntegrityError:  # a segment that is not (or no longer) in the project
            raise ProjectError(f"QA ignore list: segment {_missing(self._conn, rows)} is not in the "
                               "project (removed with its document?)") from None

    def restore(self, issues: Issue | Iterable[Issue]) -> int:
        """Show ``issues`` again (un-ignore); returns how many were ignored."""
        rows = [key(i) for i in ([issues] if isinstance(issues, Issue) else issues)]
        with self._tx():
            before = self._conn.total_changes
            self._conn.executemany("DELETE FROM qa_ignored WHERE segment_id = ? AND check_id = ? AND message = ?",
                                   rows)
            return self._conn.total_changes - before

    def keys(self) -> set[Key]:
        return {(r[0], r[1], r[2]) for r in
                self._conn.execute("SELECT segment_id, check_id, message FROM qa_ignored")}

    def __contains__(self, issue: Issue) -> bool:
        return self._conn.execute("SELECT 1 FROM qa_ignored WHERE segment_id = ? AND check_id = ? AND message = ?",
                                  key(issue)).fetchone() is not None

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM qa_ignored").fetchone()[0]

    def split(self, issues: Iterable[Issue]) -> tuple[list[Issue], list[Issue]]:
        """(the findings to show, the ignored ones), each in the given order."""
        ignored = self.keys()
        shown, hidden = [], []
        for i in issues:
            (hidden if key(i) in ignored else shown).append(i)
        return shown, hidden


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _missing(conn: sqlite3.Connection, rows: list[tuple]) -> int | str:
    for r in rows:
        if conn.execute("SELECT 1 FROM segments WHERE id = ?", (r[0],)).fetchone() is None:
            return r[0]
    return "?"


__all__ = ["IgnoreList", "key"]
