"""Undo that stays where the translator is (issue 36, item 8).

* **Ctrl+Z / Ctrl+Y** belong to the segment being edited: the target box's own undo stack
  holds the typing *and* the window's insertions into it (a TM match, the machine
  suggestion, the source), each insertion one command of its own.  So Ctrl+Z takes back
  what was typed after an insertion, then the insertion; Ctrl+Y puts the insertion back
  and then the typing after it.  When undo or redo lands on a text the segment had --
  as it was entered, or just before or after an insertion -- the segment gets that
  state's status and origin back (:class:`SegmentStates`): undoing a TM match restores
  "new", undoing back to a confirmed target restores "confirmed".  With nothing left in
  the box, or with focus in the grid, Ctrl+Z changes **no** segment: it says so, naming
  the document step the Edit menu can undo.
* **Document steps** (Replace all, Replace in one segment) are in the window's
  :class:`~app.history.EditHistory` and undone or redone only by the Edit menu's named
  entries, "Undo Replace all (3 segments)", and the status bar says what was undone.  A split
  or join ("Undo Split (segment 3)") is a step too; Ctrl+Z / Ctrl+Y on one of its segments
  takes it back or repeats it once the box has nothing of its own left to undo.  So is a
  pre-translation of the document on screen ("Undo Pre-translate (12 segments)"), which Ctrl+Z /
  Ctrl+Y reach from any segment once its box has nothing left: it changed only unconfirmed
  segments, and its undo gives the translator's drafts back rather than taking work away.
* **No step writes over newer work**: undo and redo change only the segments still as the step
  left them; one changed since (typed in, propagated to, written by the command line) is left
  alone, and the status bar says how many were (:func:`app.history.plan`).
"""
from __future__ import annotations

from engine.errors import VersoError

from app.history import TargetState, plan
from app.statewrite import write_states


class SegmentStates:
    """The states the open segment's own undo/redo can return to: target text -> state."""

    def __init__(self):
        self.segment_id: int | None = None
        self._known: dict[str, TargetState] = {}
        #: the segment's state when the translator entered it (a confirmed text edited and
        #: confirmed again replaces its TM unit instead of adding a second one)
        self.entered: TargetState | None = None
        self.entered_target = None  # its TaggedText: a reviewed target's change marks in its table

    def enter(self, seg, *, force: bool = False) -> None:
        """The translator is on ``seg``: its present state is the first one known."""
        if force or seg.id != self.segment_id:
            self.segment_id = seg.id
            self._known = {seg.target.text: TargetState.of(seg)}
            self.entered = TargetState.of(seg)
            self.entered_target = seg.target

    def record(self, seg, after: TargetState) -> None:
        """An insertion took ``seg`` (its state before) to ``after``."""
        if seg.id != self.segment_id:
            self.enter(seg, force=True)
        self._known[seg.target.text] = TargetState.of(seg)
        self._known[after.text] = after

    def state_for(self, segment_id: int, text: str) -> TargetState | None:
        return self._known.get(text) if segment_id == self.segment_id else None


def _editor_row(win):
    """(editor, row) of the target box open on the current row, or (None, row)."""
    if win.model is None:
        return None, None
    row = win.current_row()
    ed = win.editor()
    return (ed if ed is not None and win.nav.typed_text(row) is not None else None), row


def undo_in_segment(win, redo: bool = False) -> None:
    """Ctrl+Z / Ctrl+Y: the current segment's own edits, never another segment's."""
    ed, row = _editor_row(win)
    if ed is not None:
        doc = ed.document()
        if doc.isRedoAvailable() if redo else doc.isUndoAvailable():
            ed.redo() if redo else ed.undo()
            settle(win, row, ed)
            return
    step = win.editing.history.peek_redo() if redo else win.editing.history.peek_undo()
    if step is not None and (step.from_segment or step.change is not None and _about_row(win, step, row, redo)):
        undo_step(win, redo)  # a pre-translation, or a split or join of this segment: Ctrl+Z takes it back
        return
    word = "redo" if redo else "undo"
    msg = f"Nothing more to {word} in this segment." if ed is not None else f"Nothing to {word} here."
    if step is not None:
        msg += f" Edit ▸ {'Redo' if redo else 'Undo'} {step.label} {'repeats' if redo else 'takes back'} " \
               "that step for the whole document."
    win.statusBar().showMessage(msg, 8000)


def _about_row(win, step, row: int | None, redo: bool) -> bool:
    """Whether a split or join step holds the segment of ``row`` (as the grid shows it now)."""
    if row is None:
        return False
    shown = step.change.before if redo else step.change.after
    return win.model.segment(row).id in {s.id for s in shown}


def settle(win, row: int, ed) -> None:
    """After undo/redo in the box: a text the segment had gets that state back at once."""
    seg = win.model.segment(row)
    st = win.editing.seg_states.state_for(seg.id, ed.segment_text())
    if st is None:
        return  # a text of the translator's own: saved as a draft by the autosave
    win.nav.autosave_timer.stop()
    if TargetState.of(seg) != st:
        win.model.set_target(row, st.text, origin=st.origin, origin_score=st.origin_score, status=st.status)


def put_in_editor(win, text: str, *, origin: str, score: float | None) -> None:
    """Replace the target with an insertion: one command of the box's own undo stack, apart
    from the typing before and after it; the states before and after are remembered."""
    row = win.current_row()
    win.nav.commit_editor()  # what was typed so far is the "before" of this insertion
    seg = win.model.segment(row)
    win.editing.seg_states.enter(seg)
    ed = win.editor()
    if ed is None:
        win.nav.go_to(row)
        ed = win.editor()
    if ed is not None:
        # Qt merges consecutive edits of a modified document into one undo command; an
        # unmodified one starts a new command, so the typing before, the insertion and the
        # typing after are three.
        ed.document().setModified(False)
        ed.blockSignals(True)
        ed.replace_text(text)
        ed.blockSignals(False)
        ed.document().setModified(False)
        ed.setFocus()
        text = ed.segment_text()
    new = win.model.set_target(row, seg.source.with_text(text), origin=origin, origin_score=score)
    win.editing.seg_states.record(seg, TargetState.of(new))


def undo_step(win, redo: bool = False) -> None:
    """Edit ▸ Undo/Redo <step>: the newest document step (Replace all), statuses and TM included."""
    if win.model is None:
        return
    win.nav.commit_editor()
    step = win.editing.history.redo() if redo else win.editing.history.undo()
    if step is None:
        win.statusBar().showMessage(f"No document step to {'redo' if redo else 'undo'}.", 3000)
        steps_changed(win)
        return
    if step.change is not None:  # a split or join (app/controllers/splitjoin.py)
        if not win.editing.splitjoin.apply_step(step, redo):
            win.editing.history.undo() if redo else win.editing.history.redo()  # refused: it stays
        else:
            win.statusBar().showMessage(f"{'Redone' if redo else 'Undone'}: {step.label}.", 8000)
        steps_changed(win)
        return
    model = win.model
    rows = model.rows_by_id()
    now = _stored(win.project, [e.segment_id for e in step.edits if e.segment_id in rows])
    writes, left = plan(step, now, redo)  # a segment changed since the step is left alone
    stale = [rows[sid] for sid in left if sid in rows and TargetState.of(model.segment(rows[sid])) != now.get(sid)]
    for row in stale:  # written outside the window (the command line): the grid shows the store
        model.reload_row(row)
    changes = [(rows[sid], st) for sid, st in writes if sid in rows]
    touched = write_states(win, changes)
    if len(touched) == 1 and touched[0] != win.current_row():
        win.nav.go_to(touched[0])
    document_changed(win, touched + stale)
    said = f"{'Redone' if redo else 'Undone'}: {step.label}." + _left_alone(len(left), len(changes) - len(touched))
    win.statusBar().showMessage(said, 10000)
    win.findbar.result.setText(said)  # not "replaced in N segments" any more


def _stored(project, ids: list[int]) -> dict[int, TargetState]:
    """The segments' states as stored, by id (one read each: 2,000 took 49 ms here, where the
    whole 20,000-segment document took 369 ms -- /tmp script, this 2-core machine)."""
    out = {}
    for sid in ids:
        try:
            out[sid] = TargetState.of(project.segment(sid))
        except VersoError:  # gone from the store since (left alone)
            continue
    return out


def _left_alone(changed: int, locked: int) -> str:
    """The status line's tail: how many segments the step left alone, changed since or locked."""
    out = ""
    if changed:
        out += f" {changed} segment{'s' if changed != 1 else ''} changed since {'were' if changed != 1 else 'was'} " \
               "left alone."
    if locked:
        out += f" {locked} locked segment{'s' if locked != 1 else ''} left as {'they are' if locked != 1 else 'it is'}."
    return out


def document_changed(win, rows: list[int]) -> None:
    """After a document step (or its undo): open boxes show the new targets (their own undo
    starts afresh), the changed rows stay in view, the Edit menu names the steps."""
    for row in rows:
        win.nav.refresh_editor(row)
    if win.model is not None and win.model.rowCount():
        win.editing.seg_states.enter(win.model.segment(win.current_row()), force=True)
    win.proxy.pin(rows)
    win.proxy.refilter()
    steps_changed(win)


def steps_changed(win) -> None:
    """Name the document steps in the Edit menu: "Undo Replace all (3 segments)"."""
    acts = getattr(win, "actions_by_id", {})
    for aid, step, word in (("undo_step", win.editing.history.peek_undo(), "Undo"),
                            ("redo_step", win.editing.history.peek_redo(), "Redo")):
        act = acts.get(aid)
        if act is None:
            continue
        act.setEnabled(step is not None)
        act.setText(f"{word} {step.label}" if step is not None else f"{word} Replace All")
