"""The TM editor's controller: reads pages of units and writes edits, deletes and their undo
(:mod:`engine.tm.units`) on the project's TM thread (``app/tmservice.py``), so the window
never waits for a TM and a lookup queued after an edit sees it; keeps the dialog's undo and redo
stacks.  A shared TM is written on its server under the user's role: a refusal (a reader
role, the server out of reach) is one line under the table and changes nothing."""
from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

from engine.errors import TMError
from engine.tm.model import TMEntry
from engine.tm.units import UnitChange, UnitFilter, delete_unit, edit_unit, page, undo

from app.dialogs.tm_units import SOURCE
from app.preferences import preferences

#: Units per page, and units read at most per page (a rare filter returns a short page sooner).
PAGE = 100
SCAN = 5000


def editor_name() -> str:
    """The name an edit is recorded under: Settings ▸ Your name."""
    return preferences().user_name


@dataclass(frozen=True)
class Undoable:
    """What one Ctrl+Z takes back: ``changes`` made in TM ``tm`` (an index of the project's
    list), each with the row its unit was shown in; ``edited``: the unit as an edit left it
    (None: deletes)."""

    tm: int
    changes: list[tuple[UnitChange, int]]
    edited: TMEntry | None = None


@dataclass(frozen=True)
class Redoable:
    """What one Ctrl+Y makes again: the units an undo restored in TM ``tm`` (each with its
    row), edited again to ``edited``'s texts, or (None) deleted again."""

    tm: int
    units: list[tuple[TMEntry, int]]
    edited: TMEntry | None = None


class TMEditorController(QObject):
    #: a unit was edited, deleted or restored (the window's TM matches may have changed)
    unitsChanged = Signal()

    def __init__(self, service, dialog, editor: str | None = None):
        super().__init__(dialog)
        self.svc, self.dlg, self.model = service, dialog, dialog.model
        self._editor = editor
        self.tm = 0
        self.flt = UnitFilter()
        self.undo_stack: list[Undoable] = []
        self.redo_stack: list[Redoable] = []
        #: (TM, old id) -> the id a deleted unit came back under (written on the TM thread, read
        #: there before each write: a step queued before the undo that moved it still finds it)
        self._moved: dict[tuple[int, int], int] = {}
        dialog.searchChanged.connect(self.search)
        dialog.tmChosen.connect(self.choose_tm)
        dialog.deleteRequested.connect(self.delete)
        dialog.undoRequested.connect(self.undo)
        dialog.redoRequested.connect(self.redo)
        self.model.wanted.connect(self._read_page)
        self.model.editRequested.connect(self.edit)

    @property
    def editor(self) -> str:
        """Who edits are recorded under: the name given, else Settings ▸ Your name as it is now
        (the dialog stays open while Settings changes it)."""
        return self._editor or editor_name()

    # ------------------------------------------------------------ on the TM thread
    def _handle(self, i: int):
        """The open TM ``i`` (call on the TM thread)."""
        tm = self.svc.tms[i] if i < len(self.svc.tms) else None
        if tm is None:
            raise TMError(f"TM {self.svc.infos[i].name} cannot be reached now (its server does not answer)")
        return tm

    def _run(self, fn, on_result, tm: int | None = None, on_error=None) -> None:
        """``fn(the TM's handle)`` on the TM thread, for the TM shown (or TM ``tm``)."""
        i = self.tm if tm is None else tm
        self.svc.run(lambda control: fn(self._handle(i)), on_result=on_result, on_error=on_error or self._failed)

    def _now(self, tm: int, uid: int) -> int:
        """The id unit ``uid`` of TM ``tm`` has now (an undone delete brings a unit back under a new id)."""
        seen = {uid}
        while (tm, uid) in self._moved and self._moved[tm, uid] not in seen:
            uid = self._moved[tm, uid]
            seen.add(uid)
        return uid

    def _failed(self, msg: str) -> None:
        self.model.stop_loading()
        self.dlg.say(msg)

    # ------------------------------------------------------------ browsing
    def choose_tm(self, i: int) -> None:
        self.tm = i
        self.search(self.flt)

    def search(self, flt: UnitFilter) -> None:
        """Show the units of the chosen TM that pass ``flt`` (a bad filter is said, not run)."""
        try:
            flt.matcher()
        except TMError as e:
            self.dlg.say(str(e))
            return
        self.flt = flt
        self.model.restart()
        self.model.fetchMore()

    def _read_page(self, generation: int, after: int) -> None:
        flt = self.flt

        def shown(p) -> None:
            if not self.model.add_page(generation, p):
                return
            if not p.done and len(p.entries) < PAGE:  # the scan limit came first: read on
                self.model.fetchMore()
            self._say_count()
        self._run(lambda tm: page(tm, flt, after, PAGE, SCAN), shown)

    def _say_count(self) -> None:
        n, m = self.model.rowCount(), self.model
        more = " — searching…" if m.loading else (" — scroll for more" if not m.done else "")
        self.dlg.say(f"{n} unit{'s' if n != 1 else ''} shown{more}")

    # ------------------------------------------------------------ writing
    def edit(self, uid: int, column: int, text: str) -> None:
        """Write the edited source or target of unit ``uid`` under this user's name."""
        self._edit(self.tm, uid, {"source" if column == SOURCE else "target": text}, self.model.row_of(uid))

    def _edit(self, tm: int, uid: int, texts: dict, row: int, redoing: bool = False) -> None:
        editor = self.editor  # read here: the job runs on the TM thread

        def job(handle) -> tuple[UnitChange | None, TMEntry | None]:
            change = edit_unit(handle, self._now(tm, uid), editor=editor, **texts)
            return change, handle.get(change.after_id) if change else None

        def done(result) -> None:
            change, entry = result
            if change is None:
                return
            if tm == self.tm:
                if change.after_id != uid:  # another unit holds it now (a duplicate of it), or a new id
                    self.model.drop(uid)
                self.model.put(entry, row)
            self._did(Undoable(tm, [(change, row)], entry), redoing)
            self.dlg.say(f"Unit edited ({' and '.join(texts)}); Ctrl+Z takes it back.")
        self._run(job, done, tm)

    def delete(self, uids: list[int]) -> None:
        """Delete the units ``uids`` (one Ctrl+Z brings them all back)."""
        self._delete(self.tm, uids, [self.model.row_of(uid) for uid in uids])

    def _delete(self, tm: int, uids: list[int], rows: list[int], redoing: bool = False) -> None:
        def job(handle) -> list[tuple[UnitChange, int, int]]:
            out = []
            for uid, row in zip(uids, rows):
                try:
                    out.append((delete_unit(handle, self._now(tm, uid)), row, uid))
                except TMError:
                    if out:  # the ones deleted so far stay undoable
                        break
                    raise
            return out

        def done(deleted: list[tuple[UnitChange, int, int]]) -> None:
            if tm == self.tm:
                for c, _, asked in deleted:
                    self.model.drop(asked)
                    self.model.drop(c.before.id)
            self._did(Undoable(tm, [(c, row) for c, row, _ in deleted]), redoing)
            n = len(deleted)
            self.dlg.say(f"{n} unit{'s' if n != 1 else ''} deleted; Ctrl+Z brings {'them' if n != 1 else 'it'} "
                         "back.")
        self._run(job, done, tm)

    def _did(self, step: Undoable, redoing: bool) -> None:
        self.undo_stack.append(step)
        if not redoing:
            self.redo_stack.clear()
        self.unitsChanged.emit()

    def undo(self) -> None:
        """Take the last edit or delete back."""
        if not self.undo_stack:
            self.dlg.say("Nothing to undo.")
            return
        step = self.undo_stack.pop()

        def job(handle) -> list[tuple[TMEntry, UnitChange, int]]:
            out = []
            for c, row in reversed(step.changes):
                was = c.before.id
                c = replace(c, before=replace(c.before, id=self._now(step.tm, was)),
                            after_id=None if c.after_id is None else self._now(step.tm, c.after_id))
                entry = undo(handle, c)
                self._moved.pop((step.tm, entry.id), None)  # a live unit's id names that unit
                if entry.id != was:  # back under a new id (or merged into another unit)
                    self._moved[step.tm, was] = entry.id
                out.append((entry, c, row))
            return out

        def done(restored) -> None:
            restored = restored[::-1]  # in the order the rows were shown
            if step.tm == self.tm:
                for entry, change, row in restored:
                    if change.after_id == change.before.id != entry.id:  # merged into another unit
                        self.model.drop(change.after_id)
                    self.model.put(entry, row)
                if restored:
                    self.dlg.select_unit(restored[-1][0].id)
            self.redo_stack.append(Redoable(step.tm, [(e, row) for e, _, row in restored], step.edited))
            self.unitsChanged.emit()
            self.dlg.say(f"Undone: {'the edit' if step.edited else 'the delete'} (Ctrl+Y does it again).")

        def failed(msg: str) -> None:
            self.undo_stack.append(step)  # still there to try again
            self._failed(msg)
        self._run(job, done, step.tm, failed)

    def redo(self) -> None:
        """Make the last edit or delete that was undone again."""
        if not self.redo_stack:
            self.dlg.say("Nothing to redo.")
            return
        step = self.redo_stack.pop()
        if step.edited is not None:
            (entry, row), = step.units
            self._edit(step.tm, entry.id, {"source": step.edited.source, "target": step.edited.target}, row,
                       redoing=True)
        else:
            self._delete(step.tm, [e.id for e, _ in step.units], [row for _, row in step.units], redoing=True)


__all__ = ["TMEditorController", "editor_name", "PAGE"]
