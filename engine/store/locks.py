"""Locked segments: a target that may not change until the segment is unlocked.

A segment is locked by its file (XLIFF ``translate="no"``, SDL ``locked``, memoQ ``mq:locked``:
:attr:`engine.formats.base.ParsedSegment.locked`, stored on import) or by the translator --
one segment, a selection, or every 100 % TM match after pre-translation.  The store refuses to
write the target or status of a locked segment (:class:`SegmentLockedError` from
``Project.set_targets`` and ``Project.confirm``), so nothing fills or replaces it by mistake.
Locking and unlocking never count as an edit (``updated_at`` stays): an untouched segment still
exports as the original had it.  Column ``segments.locked`` (migration 6,
:mod:`engine.store.migrations`): ``SegmentLocks(project)``.
"""
from __future__ import annotations

import sqlite3
from typing import Iterable

from engine.errors import ProjectError

#: What pre-translation writes for a 100 % TM match (origin ``tm``, score 1.0).
EXACT = 1.0


class SegmentLockedError(ProjectError):
    """A write to a locked segment's target was refused."""


def refusal(conn: sqlite3.Connection, folder, segment_id: int) -> ProjectError:
    """Why an update of ``segment_id``'s target changed no row: it is locked, or not in the project."""
    row = conn.execute("SELECT idx, locked FROM segments WHERE id = ?", (segment_id,)).fetchone()
    if row is None:
        return ProjectError(f"{folder}: no segment {segment_id}")
    return SegmentLockedError(f"segment {row[0] + 1} is locked: unlock it to change its target")


class SegmentLocks:
    """Lock and unlock a project's segments (:meth:`lock`, :meth:`unlock`, :meth:`lock_exact_matches`)."""

    def __init__(self, project):
        # the project's own connection and transactions (one writer at a time, as every store write)
        self._conn = project._conn
        self._tx = project._tx
        self._folder = project.folder

    def lock(self, segment_ids: int | Iterable[int]) -> int:
        """Lock these segments; returns how many were not locked yet."""
        return self._set(segment_ids, 1)

    def unlock(self, segment_ids: int | Iterable[int]) -> int:
        """Unlock these segments (a lock the file set too); returns how many were locked."""
        return self._set(segment_ids, 0)

    def lock_exact_matches(self, document_id: int) -> list[int]:
        """Lock every segment of the document whose target is a 100 % TM match as it was
        inserted (origin ``tm``, score 1.0: pre-translation, a match taken or propagated);
        returns the ids locked now."""
        with self._tx():
            ids = [r[0] for r in self._conn.execute(
                "SELECT id FROM segments WHERE document_id = ? AND locked = 0 AND origin = 'tm'"
                " AND origin_score >= ? AND target != '' ORDER BY idx", (document_id, EXACT))]
            self._conn.executemany("UPDATE segments SET locked = 1 WHERE id = ?", [(i,) for i in ids])
        return ids

    def is_locked(self, segment_id: int) -> bool:
        row = self._conn.execute("SELECT locked FROM segments WHERE id = ?", (segment_id,)).fetchone()
        if row is None:
            raise ProjectError(f"{self._folder}: no segment {segment_id}")
        return bool(row[0])

    def locked_ids(self, document_id: int) -> list[int]:
        """The document's locked segments, in document order."""
        return [r[0] for r in self._conn.execute(
            "SELECT id FROM segments WHERE document_id = ? AND locked = 1 ORDER BY idx", (document_id,))]

    def _set(self, segment_ids: int | Iterable[int], value: int) -> int:
        ids = [segment_ids] if isinstance(segment_ids, int) else list(segment_ids)
        with self._tx():
            changed = 0
            for i in ids:
                cur = self._conn.execute("UPDATE segments SET locked = ? WHERE id = ? AND locked != ?",
                                         (value, i, value))
                if cur.rowcount == 0 and self._conn.execute(
                        "SELECT 1 FROM segments WHERE id = ?", (i,)).fetchone() is None:
                    raise ProjectError(f"{self._folder}: no segment {i}")
                changed += cur.rowcount
        return changed


__all__ = ["EXACT", "SegmentLockedError", "SegmentLocks"]
