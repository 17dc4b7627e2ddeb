"""Replace in the document's targets, and writing states to many segments, with the TM kept true.

Replace all (and Replace in one segment) is a **document step** of the edit history
(:mod:`app.history`): undone only by its named Edit-menu entry (see :mod:`app.undo`).  A
confirmed segment that stays confirmed with a new target -- a replacement kept confirmed,
or the undo or redo of one -- is confirmed again with the TM write it owes recorded in the
same transaction (``Project.confirm(tm_meta=...)``), and on the TM thread the unit holding
the old source + target is **updated** to the new target, so the TM never keeps the old
text beside the new one (and pre-translation cannot bring the old text back).

A locked segment is never replaced in: Replace all leaves it out (the preview counts it as
skipped), Replace says it is locked, and the undo of a step leaves a segment locked since.
"""
from __future__ import annotations


from app.history import Edit, TargetState
from app.segment_model import replace_in_target
from app.statewrite import write_states
from app.undo import document_changed


def _edits(win, before: list, rows: list[int]) -> list[Edit]:
    return [Edit(seg.id, TargetState.of(seg), TargetState.of(win.model.segment(r))) for seg, r in zip(before, rows)]


def replace_all(win, *, ask: bool = True, keep_confirmed: bool = True) -> int:
    """Replace in every target of the document (tags untouched), after a preview of every
    change (``ask``) in which the translator chooses whether confirmed segments stay
    confirmed; ONE document step ("Undo Replace all" in the Edit menu).  Returns the
    number of segments changed."""
    win.nav.commit_editor()
    plan = win.search.replace_plan()
    skipped = sum(1 for r, _ in plan if win.model.segment(r).locked)
    plan = [(r, new) for r, new in plan if not win.model.segment(r).locked]
    locked = f"{skipped} locked segment{'s' if skipped != 1 else ''} skipped" if skipped else ""
    if not plan:
        win.findbar.result.setText("nothing to replace" + (f" ({locked})" if locked else ""))
        return 0
    if ask:
        from app.dialogs.replace import ReplacePreviewDialog

        dlg = ReplacePreviewDialog(win, [(r, win.model.segment(r), new) for r, new in plan], skipped=skipped)
        if not dlg.exec():
            return 0
        plan = dlg.chosen()
        keep_confirmed = dlg.keep_confirmed()
    rows = [r for r, _ in plan]
    before = [win.model.segment(r) for r in rows]
    changes = []
    for (r, new), seg in zip(plan, before):
        status = seg.status if keep_confirmed and seg.status == "confirmed" else "draft"
        changes.append((r, TargetState(new, status, "human", None)))
    write_states(win, changes)
    edits = _edits(win, before, rows)
    label = f"Replace all ({len(edits)} segment{'s' if len(edits) != 1 else ''})"
    win.editing.history.push(label, edits)
    document_changed(win, rows)
    win.findbar.result.setText(f"replaced in {len(edits)} segment{'s' if len(edits) != 1 else ''}"
                               + (f", {locked}" if locked else "") + f" (Edit ▸ Undo {label} takes it back)")
    return len(edits)


def replace_current(win) -> None:
    """Replace in the current segment's target (its status kept), then go to the next row;
    a document step ("Undo Replace in segment N")."""
    pat = win.search.find_pattern()
    if pat is None or win.model is None:
        return
    win.nav.commit_editor()
    row = win.current_row()
    if win.editing.locking.refuse(row):  # skipped: on to the next
        win.nav.step(+1)
        return
    seg = win.model.segment(row)
    new = replace_in_target(seg, pat, win.findbar.replace_edit.text(), regex=win.findbar.regex.isChecked())
    if new is not None:
        status = seg.status if seg.status == "confirmed" else "draft"
        write_states(win, [(row, TargetState(new, status, "human", None))])
        win.editing.history.push(f"Replace in segment {row + 1}", _edits(win, [seg], [row]))
        document_changed(win, [row])
    win.nav.step(+1)
