"""A segment's history: every edit of its target made in the editor -- the target before and after,
the segment's status after, who (Settings ▸ Your name) and when (UTC) -- in table ``target_history``
(:mod:`engine.store.migrations`), written by :meth:`engine.review.changes.TrackedChanges.recording`
around each write, Track Changes on or off.  Review ▸ Segment Changes shows it as differences."""
from __future__ import annotations

from dataclasses import dataclass

from engine.inline import TaggedText


@dataclass(frozen=True)
class Version:
    old: TaggedText
    new: TaggedText
    status: str
    author: str
    at: str


def before(conn, segment_ids) -> dict[int, tuple[str, str]]:
    """The targets (text, tags JSON) of ``segment_ids`` now, before a write."""
    out = {}
    for sid in segment_ids:
        r = conn.execute("SELECT target, target_tags FROM segments WHERE id = ?", (sid,)).fetchone()
        if r is not None:
            out[sid] = (r[0], r[1])
    return out


def record(conn, old: dict[int, tuple[str, str]], author: str, at: str) -> None:
    """A history row for each segment whose target the write changed (inside the caller's transaction)."""
    for sid, (text, tags) in old.items():
        r = conn.execute("SELECT target, target_tags, status FROM segments WHERE id = ?", (sid,)).fetchone()
        if r is None or r[0] == text:
            continue
        conn.execute("INSERT INTO target_history (segment_id, old_text, old_tags, new_text, new_tags, status, author,"
                     " changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (sid, text, tags, r[0], r[1], r[2], author, at))


def of(project, segment_id: int) -> list[Version]:
    """The segment's edits, oldest first."""
    return [Version(TaggedText.from_parts(r[0], r[1]), TaggedText.from_parts(r[2], r[3]), r[4], r[5], r[6])
            for r in project._conn.execute(
                "SELECT old_text, old_tags, new_text, new_tags, status, author, changed_at FROM target_history"
                " WHERE segment_id = ? ORDER BY id", (segment_id,))]
