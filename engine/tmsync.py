"""Confirmations reach the TM: the project records what it owes the TM in the
confirm's own transaction (:meth:`engine.store.Project.confirm` with
``tm_meta``), and what is still owed after a crash is sent on the next opening.

The project is the first write and the TM the second; a kill between the two
(or while the TM's writer thread still had the pair queued behind an index
flush) leaves the pair listed by :meth:`~engine.store.Project.tm_pending`.
Sending it again is safe: an exact duplicate only refreshes a unit's metadata.
"""
from __future__ import annotations

from engine.inline import TaggedText, accepted
from engine.store import Project


def add_to_tm(tm, source: TaggedText, target: TaggedText, meta: dict) -> int | None:
    """One confirmed pair into ``tm`` (either backend) with the project's unit metadata."""
    meta = dict(meta)
    target = accepted(target)  # a reviewed target's change marks stay in the project, never in a TM
    origin, creator = meta.pop("origin", "project"), meta.pop("creator", "")
    return tm.add(source, target, origin=origin, creator=creator, meta=meta)


def confirm_to_tm(project: Project, tm, segment_id: int, target: TaggedText | str | None = None,
                  *, meta: dict | None = None, origin: str = "human"):
    """Confirm a segment and write it to ``tm``, durable at every step."""
    seg = project.confirm(segment_id, target, origin=origin, tm_meta=dict(meta or {}))
    add_to_tm(tm, seg.source, seg.target, meta or {})
    project.tm_written([segment_id])
    return seg


def replace_in_tm(tm, source: TaggedText, old: TaggedText, new: TaggedText, meta: dict) -> int | None:
    """The unit ``source`` + ``old`` of ``tm`` takes the target ``new`` (added when it has no such unit):
    adding the old pair finds its id, as an exact duplicate merges into the unit it has."""
    if not old.text.strip() or old.text == new.text:
        return add_to_tm(tm, source, new, meta)
    uid = add_to_tm(tm, source, old, meta)
    return tm.update(uid, target=new)


def send_pending(project: Project, tm) -> int:
    """Write every confirmation the TM may have missed; return how many were sent."""
    pending = project.tm_pending()
    for p in pending:
        if p.replaces is not None:
            replace_in_tm(tm, p.segment.source, p.replaces, p.segment.target, p.meta)
        else:
            add_to_tm(tm, p.segment.source, p.segment.target, p.meta)
        project.tm_written([p.segment.id])
    return len(pending)


__all__ = ["add_to_tm", "confirm_to_tm", "replace_in_tm", "send_pending"]
