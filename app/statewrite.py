"""Writing target states to many segments with the TM kept true: what Replace all (app/replace.py)
and the undo and redo of a document step (app/undo.py) both do, in a module of its own so that
neither imports the other.

A confirmed segment that stays confirmed with a new target is confirmed again with the TM write it
owes recorded in the same transaction (``Project.confirm(tm_meta=...)``), and on the TM thread the
unit holding the old source + target is **updated** to the new target, so the TM never keeps the
old text beside the new one.
"""
from __future__ import annotations

from app.history import TargetState
from app.preferences import preferences
from engine.inline import accepted
from engine.qa import tag_issues
from engine.review.changes import TrackedChanges


def tm_meta(win) -> dict | None:
    """The unit metadata of a confirmation in this window (None: no writable TM), signed with
    Settings ▸ Your name."""
    if win.tm is None or win.tm.writable_info() is None or win.project is None:
        return None
    return {"origin": win.project.name, "creator": preferences().user_name,
            "document": win.doc_combo.currentText(), "project": win.project.tm_key}


def write_states(win, changes: list[tuple[int, TargetState]]) -> list[int]:
    """Give each ``(row, state)`` its state; a confirmed segment whose confirmed text changes
    updates its TM unit (see the module doc).  Returns the rows written."""
    model, project = win.model, win.project
    meta = tm_meta(win)
    rows = []
    for row, st in changes:
        seg = model.segment(row)
        if TargetState.of(seg) == st or seg.locked:
            continue
        target = seg.source.with_text(st.text)
        if (meta is not None and seg.status == "confirmed" and st.status == "confirmed"
                and st.text != seg.target.text and st.text.strip()
                and not tag_issues(0, row, seg.source, target)):
            with TrackedChanges(project).recording([seg.id]):  # Review ▸ Track Changes (engine/review/changes.py)
                new = project.confirm(seg.id, target, origin=st.origin, origin_score=st.origin_score, tm_meta=meta,
                                      tm_replaces=seg.target)
            model.reload_row(row)
            win.tm.replace(new.source, accepted(seg.target), accepted(new.target), meta,
                           on_written=lambda sid=seg.id: project.tm_written([sid]))
        else:
            model.set_target(row, st.text, origin=st.origin, origin_score=st.origin_score, status=st.status)
        rows.append(row)
    return rows
