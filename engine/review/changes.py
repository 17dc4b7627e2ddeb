"""Verso's own tracked changes: what a reviewer changed in a confirmed or received target.

With the project setting ``track_changes`` on (Review ▸ Track Changes), an edit of a segment whose
target was confirmed, or came with the file, keeps the target it had -- the *base* -- in table
``tracked_changes`` (one row per segment, :mod:`engine.store.migrations`), with the author and the
UTC time of the last edit.  The segment's own target is always the edited one, so the TM, QA,
the export and every reader of the store see the reviewer's text; the changes are the word-level
difference of base and target (:mod:`engine.review.diff`), shown struck through / underlined and
written on export in the format's own way (:mod:`engine.review.export`).

Accepting a change moves it into the base; rejecting it takes it out of the target.  When base
and target read the same again the row goes, and a segment whose every change was rejected gets
back its status, origin and times as they were: a received target untouched again exports byte
for byte as the file had it.  A document whose changes are all accepted exports as if edited
directly (no row, nothing to mark).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Iterator

from engine.errors import ProjectError
from engine.identity import user_name
from engine.inline import TaggedText, merge_tags
from engine.review import diff as D
from engine.review import history

SETTING = "track_changes"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Change:
    """One deletion or insertion of a segment's tracked changes."""

    segment_id: int
    index: int      # its place among the segment's diff runs (what accept/reject take)
    kind: str       # "delete" | "insert"
    text: str       # with tag characters
    author: str
    at: str         # ISO UTC


@dataclass(frozen=True)
class Tracked:
    """A segment's base target, its current target and the runs between them."""

    segment_id: int
    base: TaggedText
    target: TaggedText
    author: str
    at: str

    @property
    def ops(self) -> list[D.Op]:
        return D.diff(self.base.text, self.target.text)

    @property
    def tags(self):
        return merge_tags(self.target.tags, self.base.tags)

    def changes(self) -> list[Change]:
        return [Change(self.segment_id, i, o.kind, o.text, self.author, self.at) for i, o in D.changes(self.ops)]


def tracking(project) -> bool:
    return project.setting(SETTING, "0") == "1"


def set_tracking(project, on: bool) -> None:
    project.set_setting(SETTING, "1" if on else "0")


class TrackedChanges:
    """A project's tracked changes: :meth:`recording` around a write, then :meth:`of`, :meth:`accept`,
    :meth:`reject` (one change, a segment's, or a document's)."""

    def __init__(self, project):
        self.project = project
        self._conn = project._conn
        self._tx = project._tx

    @contextmanager
    def recording(self, segment_ids: Iterable[int], author: str = "") -> Iterator[None]:
        """Wrap a write of these segments' targets: with tracking on, a confirmed or received
        target is kept as the base before the write; afterwards a target that reads as its base
        again drops the row (and gets its state back).  Tracking on or off, each changed target
        is a row of the segment's history (:mod:`engine.review.history`).  All in the write's own
        transaction: a write refused (a locked segment) records nothing."""
        ids = list(segment_ids)
        who, now = (author.strip() or user_name()), _now()
        # one transaction with the write it wraps (a savepoint inside): one fsync per confirm, not three
        # (benchmarks/review_recording.py: 10.7 / 16.7 ms per confirm with separate commits, plain 5.1)
        with self._tx():
            old = history.before(self._conn, ids)
            on = bool(ids) and tracking(self.project)
            for sid in ids if on else ():
                row = self._conn.execute(
                    "SELECT target, target_tags, status, origin, origin_score, updated_at, confirmed_at, created_at"
                    " FROM segments WHERE id = ?", (sid,)).fetchone()
                if row is None or not row[0] or not (row[2] == "confirmed" or row[3] == "file"):
                    continue
                self._conn.execute(
                    "INSERT INTO tracked_changes (segment_id, base_text, base_tags, base_status, base_origin,"
                    " base_score, base_updated_at, base_confirmed_at, author, changed_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(segment_id) DO UPDATE SET"
                    " author = excluded.author, changed_at = excluded.changed_at",
                    (sid, row[0], row[1], row[2], row[3], row[4], row[5], row[6], who, now))
            yield  # a write that fails rolls all of it back
            if on:
                self._settle(ids)
            history.record(self._conn, old, who, now)

    def _settle(self, ids: Iterable[int]) -> None:
        """Rows whose target reads as the base again go, the segment's state restored."""
        with self._tx():
            for sid in ids:
                r = self._conn.execute(
                    "SELECT t.base_text, t.base_tags, t.base_status, t.base_origin, t.base_score, t.base_updated_at,"
                    " t.base_confirmed_at, s.target FROM tracked_changes t JOIN segments s ON s.id = t.segment_id"
                    " WHERE t.segment_id = ?", (sid,)).fetchone()
                if r is None or r[0] != r[7]:
                    continue
                if r[5] is not None:  # NULL: a change was accepted, the target is not the one it had
                    self._conn.execute(
                        "UPDATE segments SET target = ?, target_tags = ?, status = ?, origin = ?, origin_score = ?,"
                        " updated_at = ?, confirmed_at = ? WHERE id = ?", (*r[:7], sid))
                self._conn.execute("DELETE FROM tracked_changes WHERE segment_id = ?", (sid,))

    # ------------------------------------------------------------- reading
    def of(self, segment_id: int) -> Tracked | None:
        r = self._conn.execute(
            "SELECT t.base_text, t.base_tags, t.author, t.changed_at, s.target, s.target_tags"
            " FROM tracked_changes t JOIN segments s ON s.id = t.segment_id WHERE t.segment_id = ?",
            (segment_id,)).fetchone()
        if r is None or r[0] == r[4]:
            return None
        return Tracked(segment_id, TaggedText.from_parts(r[0], r[1]), TaggedText.from_parts(r[4], r[5]), r[2], r[3])

    def in_document(self, document_id: int) -> dict[int, Tracked]:
        """segment id -> its tracked changes, for the segments of a document that have some."""
        rows = self._conn.execute(
            "SELECT t.segment_id FROM tracked_changes t JOIN segments s ON s.id = t.segment_id"
            " WHERE s.document_id = ? ORDER BY s.idx", (document_id,)).fetchall()
        out = {}
        for (sid,) in rows:
            t = self.of(sid)
            if t is not None:
                out[sid] = t
        return out

    # ------------------------------------------------------------- resolving
    def accept(self, segment_id: int, index: int | None = None) -> None:
        """Accept one change (``index`` of :class:`Change`) or all of the segment's."""
        self._resolve(segment_id, index, accept=True)

    def reject(self, segment_id: int, index: int | None = None) -> None:
        """Reject one change or all of the segment's (all: the target as it was, state included)."""
        self._resolve(segment_id, index, accept=False)

    def accept_document(self, document_id: int) -> int:
        return self._resolve_document(document_id, accept=True)

    def reject_document(self, document_id: int) -> int:
        return self._resolve_document(document_id, accept=False)

    def _resolve_document(self, document_id: int, accept: bool) -> int:
        ids = list(self.in_document(document_id))
        with self._tx():
            for sid in ids:
                self._resolve(sid, None, accept)
        return len(ids)

    def _resolve(self, segment_id: int, index: int | None, accept: bool) -> None:
        t = self.of(segment_id)
        if t is None:
            return
        ops = t.ops
        if index is None:
            ops = [D.Op("equal", D.new_text(ops) if accept else D.old_text(ops))]
        else:
            ops = D.resolve(ops, index, accept)
        base, target = D.old_text(ops), D.new_text(ops)
        if target != t.target.text:
            r = self._conn.execute("SELECT locked, idx FROM segments WHERE id = ?", (segment_id,)).fetchone()
            if r and r[0]:  # a locked target may not change (engine/store/locks.py), a rejection included
                raise ProjectError(f"{self.project.folder}: segment {r[1] + 1} is locked; unlock it to reject "
                                   "its changes")
        with self._tx():
            if target != t.target.text:  # a rejection: the target loses the change, keeps its status
                self._conn.execute("UPDATE segments SET target = ?, target_tags = ? WHERE id = ?",
                                   (target, TaggedText(target, t.tags).tags_json(), segment_id))
            if accept and base == target:
                self._conn.execute("DELETE FROM tracked_changes WHERE segment_id = ?", (segment_id,))
                return
            self._conn.execute("UPDATE tracked_changes SET base_text = ?, base_tags = ?,"
                               " base_updated_at = CASE WHEN ? THEN NULL ELSE base_updated_at END WHERE segment_id = ?",
                               (base, TaggedText(base, t.tags).tags_json(), accept, segment_id))
        self._settle([segment_id])
