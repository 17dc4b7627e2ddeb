"""Tools ▸ Pre-translate: the dialog's options (:mod:`app.dialogs.pretranslate`) run through
:func:`engine.pretranslate.pretranslate`, as ``verso doc pretranslate`` does, on the TM thread
(it searches the TMs the editor has open there), with progress per batch; the grid's rows are
reloaded as they are filled; Cancel stops after the batch running (batches of a few segments
when a model translates, so within a second) and keeps what was filled.

What it changes in the document on screen is one step of the edit history (:mod:`app.history`),
"Undo Pre-translate (12 segments)": every batch's segments with their target, status and origin
before and after, a cancelled run's as far as it went; Ctrl+Z takes it back (with *Overwrite
drafts*, the translator's drafts come back) and Ctrl+Y fills again.  The states before are read
from the grid when Start is pressed (the dialog is window-modal: nothing else edits meanwhile),
the states after from the store once the job is over.  Other documents are not covered: the
history holds the document on screen and starts afresh when another is shown, so a step for
them would be gone at the first switch; the summary says so."""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.pretranslate import BATCH, PretranslateResult, pretranslate, to_fill

from app import undo as undoing
from app.controllers.base import Controller
from app.history import Edit, TargetState

#: segments per model call while the editor waits on Cancel (the command line batches 16)
MT_BATCH = 4


@dataclass
class DocumentDone:
    name: str
    result: PretranslateResult


@dataclass
class PretranslateReport:
    """Filled in by the job as it goes (read on the UI thread once it has finished)."""

    total: int = 0                # segments to fill in the chosen documents (engine.pretranslate.to_fill)
    drafts: int = 0               # of them, drafts (Overwrite drafts)
    done: int = 0                 # of them, tried
    overwrite: bool = False       # Overwrite drafts was ticked
    note: str = ""                # why no model translated ("" when one did, or was not asked for)
    machine: bool = False         # machine translation was asked for
    documents: list[DocumentDone] = field(default_factory=list)
    stopped: bool = False         # cancelled: segments after the last batch not tried
    undoable: int = 0             # segments of the document on screen changed: the Undo step's

    def summary(self) -> str:
        tm = sum(d.result.tm for d in self.documents)
        mt = sum(d.result.mt for d in self.documents)
        empty = sum(d.result.empty for d in self.documents)
        what = f"{self.total} segments (empty or drafts)" if self.overwrite else f"{self.total} empty segments"
        lines = [f"Filled {tm + mt} of {what} as drafts: {tm} from the TM (100 % matches), "
                 f"{mt} by machine translation."]
        if self.overwrite:
            replaced = sum(d.result.replaced or 0 for d in self.documents)
            lines.append(f"Replaced {replaced} of {self.drafts} draft{'s' if self.drafts != 1 else ''}; the rest "
                         "kept (no 100 % match or translation, or the same text).")
        if empty:
            why = ("no model translates this pair" if self.note else "machine translation was off"
                   if not self.machine else "the model gave no translation")
            lines.append(f"{empty} left empty: no 100 % TM match, and {why}.")
        if self.note:
            lines.append(f"No machine translation: {self.note}.")
        left = self.total - self.done
        if self.stopped and left:
            lines.append(f"Cancelled: {left} segments not tried; what was filled stays.")
        return "\n".join(lines + self._undo_line(tm + mt))

    def _undo_line(self, filled: int) -> list[str]:
        """What Undo takes back: the document on screen only."""
        elsewhere = filled > self.undoable
        if self.undoable:
            n = self.undoable
            return [f"Edit ▸ Undo Pre-translate (Ctrl+Z) takes back the {n} segment{'s' if n != 1 else ''} filled in "
                    "this document." + (" Undo covers only this document: the others keep what was filled."
                                        if elsewhere else "")]
        return ["Undo does not take back what was filled in documents not open in the editor."] if elsewhere else []


def no_model_note(why: str) -> str:
    return f"{why}: train one (Tools ▸ Train a Model) or choose one (Tools ▸ Models)"


def todo_rows(model, overwrite_drafts: bool = False) -> list[int]:
    """The rows pre-translation fills, in its order (engine.pretranslate's rule)."""
    return [r for r, s in enumerate(model.segments()) if to_fill(s, overwrite_drafts)]


def run(control, project, service, opts, model_dir, beam: int, report: PretranslateReport) -> PretranslateReport:
    """The job, on the TM thread: ``service.tms`` are the TMs the editor searches."""
    from engine.tm import open_tm, tm_ref

    docs = [project.document(d) for d in opts.documents]
    filled = {d.id: [s for s in project.segments(d.id) if to_fill(s, opts.overwrite_drafts)] for d in docs}
    todo = {d: len(segs) for d, segs in filled.items()}
    report.total = sum(todo.values())
    report.drafts = sum(1 for segs in filled.values() for s in segs if s.target.text.strip())
    control.progress(done=0, total=report.total, text="")
    translator = None
    if model_dir is not None and report.total:
        from engine.nmt.translator import Translator

        control.progress(done=0, total=report.total, text="Loading the model…")
        translator = Translator.load(model_dir)
    extra = [open_tm(tm_ref(opts.extra_tm), create=False, src_lang=project.src_lang,
                     tgt_lang=project.tgt_lang)] if opts.extra_tm else []
    tms = [t for t in service.tms if t is not None] + extra
    base = 0
    try:
        for d in docs:
            if control.cancelled:
                report.stopped = True
                break

            def progress(done: int, n: int, d=d, base=base) -> bool:
                report.done = base + done
                return control.progress(document=d.id, in_document=done, done=base + done, total=report.total,
                                        text=f"Pre-translating {d.name}…")

            res = pretranslate(project, d.id, tms=tms, translator=translator, min_score=opts.min_score, beam=beam,
                               progress=progress, batch_size=MT_BATCH if translator is not None else BATCH,
                               overwrite_drafts=opts.overwrite_drafts)
            report.documents.append(DocumentDone(d.name, res))
            report.note = report.note or res.note
            if res.stopped:
                report.stopped = True
                break
            base = report.done = base + todo[d.id]
    finally:
        for tm in extra:
            tm.close()
    return report


class PretranslateController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.dialog = None    # the open Pre-translate dialog
        self.job = None       # its Worker while it runs
        self.report: PretranslateReport | None = None

    def pretranslate_dialog(self):
        """Tools ▸ Pre-translate (Ctrl+Shift+P).  Returns the dialog (open, window-modal)."""
        from engine.resources import model_choice

        from app.dialogs.pretranslate import PretranslateDialog
        from app.preferences import preferences

        win, project = self.win, self.win.project
        if project is None or win.tm is None:
            self.say("Open a project first.")
            return None
        choice = model_choice(project)
        current = None
        if win.model is not None:
            current = (win.model.document_id, win.doc_combo.currentText())
        docs = [(d.id, d.name) for d in project.documents()]
        if not docs:
            self.say("Import a document first (File ▸ Import Document).")
            return None
        dlg = PretranslateDialog(win, current=current, documents=docs,
                                 model=choice.folder.name if choice.folder is not None else "",
                                 no_model=no_model_note(choice.why) if choice.folder is None else "",
                                 min_score=int(preferences().memory_min_score))
        dlg.startRequested.connect(lambda opts: self.start(dlg, opts, choice.folder, choice.why))
        dlg.cancelRequested.connect(self.cancel)
        dlg.finished.connect(lambda _: self._closed(dlg))
        self.dialog = dlg
        dlg.open()
        return dlg

    def _closed(self, dlg) -> None:
        if self.dialog is dlg:
            self.dialog = None
        dlg.deleteLater()

    def start(self, dlg, opts, model_dir, why: str) -> None:
        from app.preferences import preferences

        win, project = self.win, self.win.project
        win.nav.commit_editor()  # what is typed is a target: kept
        report = self.report = PretranslateReport(machine=opts.machine, overwrite=opts.overwrite_drafts)
        if model_dir is None:
            report.note = no_model_note(why)
        shown = win.model.document_id if win.model is not None else None
        rows = todo_rows(win.model, opts.overwrite_drafts) if shown in opts.documents else []
        before = [TargetState.of(win.model.segment(r)) for r in rows]  # the Undo step's "before"
        state = {"reloaded": 0}

        def progress(ev: dict) -> None:
            dlg.show_progress(ev.get("done", 0), ev.get("total", 0), ev.get("text", ""))
            if ev.get("document") == shown and win.model is not None and win.model.document_id == shown:
                upto = min(len(rows), ev.get("in_document", 0))
                for r in rows[state["reloaded"]:upto]:
                    win.model.reload_row(r)
                state["reloaded"] = max(state["reloaded"], upto)

        def over(failed: str = "") -> None:
            self.job = None
            if win.model is not None and win.model.document_id == shown:
                for r in rows[state["reloaded"]:]:
                    win.model.reload_row(r)
                self._push_step(rows, before, report)
                win.documents.update_counts()
            text = f"Pre-translation stopped: {failed}" if failed else report.summary()
            dlg.finish(text)
            self.say(text.splitlines()[0], 8000)

        dlg.running(0)
        self.job = win.tm.run(run, project, win.tm, opts, model_dir if opts.machine else None,
                              int(preferences().beam), report, on_result=lambda _: over(),
                              on_error=lambda msg: over(msg.splitlines()[0] if msg else msg), on_progress=progress)
        self.job.signals.cancelled.connect(lambda: (setattr(report, "stopped", True), over()))

    def _push_step(self, rows: list[int], before: list[TargetState], report: PretranslateReport) -> None:
        """The segments of the document on screen that the run changed: one step of Edit ▸ Undo."""
        win = self.win
        segs = [win.model.segment(r) for r in rows]
        edits = [Edit(s.id, b, TargetState.of(s)) for s, b in zip(segs, before) if TargetState.of(s) != b]
        report.undoable = n = len(edits)
        win.editing.history.push(f"Pre-translate ({n} segment{'s' if n != 1 else ''})", edits, from_segment=True)
        for r in rows:
            win.nav.refresh_editor(r)  # an open box shows its new target (its own undo starts afresh)
        if win.model.rowCount():
            win.editing.seg_states.enter(win.model.segment(win.current_row()), force=True)
        undoing.steps_changed(win)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def busy(self) -> bool:
        return self.job is not None
