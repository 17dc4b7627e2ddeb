"""The Review menu: Track Changes (a per-project switch; the reviewer's edits of confirmed or received
targets kept as deletions and insertions, signed Settings ▸ Your name, UTC), accept or reject them
for the segment or the document, a segment's changes (dialogs/compare.py: one change at a time),
LQA errors on the selected span (dialogs/lqa.py) and the quality report (HTML or CSV).  The store
and the arithmetic are the engine's (``engine/review/``)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog

from engine import identity
from engine.errors import VersoError
from engine.review import report
from engine.review.changes import TrackedChanges, set_tracking, tracking
from engine.review.lqa import Lqa, weights

from app.controllers.base import Controller
from app.preferences import preferences


def lqa_lines(project, seg) -> list[tuple[str, str]]:
    """The Comments panel's lines for ``seg``'s LQA errors: (severity category · author, marked text: comment)."""
    out = []
    for e in Lqa(project).of_segment(seg.id):
        span = seg.target.with_text(seg.target.text[e.start:e.end]).display()
        out.append((f"{e.severity} {e.category} · {e.author}", f"“{span}”" + (f": {e.comment}" if e.comment else "")))
    return out


class ReviewController(Controller):
    def __init__(self, win):
        super().__init__(win)
        identity.use(str(preferences().store.value("user/name", "") or ""))  # the engine signs as the editor
        win.proxy.sourceModelChanged.connect(self.show_state)  # another project or document: its switch

    def show_state(self) -> None:
        """Review ▸ Track Changes is checked while the project records changes."""
        act = getattr(self.win, "actions_by_id", {}).get("track_changes")
        if act is not None:
            act.setCheckable(True)
            act.setChecked(self.win.project is not None and tracking(self.win.project))

    # ------------------------------------------------------------ track changes
    def toggle_track_changes(self) -> None:
        """Review ▸ Track Changes: on or off for this project."""
        p = self.win.project
        if p is None:
            self.say("Open a project to track its changes.")
            return
        on = not tracking(p)
        set_tracking(p, on)
        self.show_state()
        self.say("Track Changes is on: edits of confirmed and received targets are recorded as changes "
                 f"signed {identity.user_name()}." if on else "Track Changes is off for this project.")

    def accept_segment(self) -> None:
        self._segment(True)

    def reject_segment(self) -> None:
        self._segment(False)

    def _segment(self, accept: bool) -> None:
        win = self.win
        if win.model is None or not win.model.rowCount():
            return
        win.nav.commit_editor()
        row = win.current_row()
        seg = win.model.segment(row)
        tc = TrackedChanges(win.project)
        if tc.of(seg.id) is None:
            self.say("This segment has no tracked changes.")
            return
        try:
            (tc.accept if accept else tc.reject)(seg.id)
        except VersoError as e:
            self.say(str(e), 6000)
            return
        self._reload([row])
        self.say(f"Segment {row + 1}: changes {'accepted' if accept else 'rejected'}.")

    def accept_document(self) -> None:
        self._document(True)

    def reject_document(self) -> None:
        self._document(False)

    def _document(self, accept: bool) -> None:
        win = self.win
        if win.model is None:
            return
        win.nav.commit_editor()
        tc = TrackedChanges(win.project)
        ids = list(tc.in_document(win.model.document_id))
        try:
            n = tc.accept_document(win.model.document_id) if accept else tc.reject_document(win.model.document_id)
        except VersoError as e:  # a locked segment: none rejected (one transaction)
            self.say(str(e), 6000)
            return
        rows = win.model.rows_by_id()
        self._reload([rows[i] for i in ids if i in rows])
        self.say(f"{n} segments: changes {'accepted' if accept else 'rejected'}.")

    def segment_changes(self):
        """Review ▸ Segment Changes…: the current segment's changes, one by one."""
        from app.dialogs.compare import SegmentChangesDialog

        win = self.win
        if win.model is None or not win.model.rowCount():
            return None
        win.nav.commit_editor()
        row = win.current_row()
        seg = win.model.segment(row)
        dlg = SegmentChangesDialog(win, win.project, seg.id, row + 1, Lqa(win.project).of_segment(seg.id))
        dlg.finished.connect(lambda _=0: dlg.changed and self._reload([row]))
        dlg.open()
        return dlg

    def _reload(self, rows: list[int]) -> None:
        for r in rows:
            self.win.model.reload_row(r)
        cur = self.win.current_row()
        if cur in rows:
            self.win.nav.refresh_editor(cur)

    # ------------------------------------------------------------ LQA
    def add_lqa_error(self):
        """Review ▸ Add LQA Error…: on the target text selected in the box (none: the whole target)."""
        from app.dialogs.lqa import LqaErrorDialog

        win = self.win
        if win.model is None or not win.model.rowCount():
            return None
        ed = win.editor()
        start = end = 0
        if ed is not None:
            cur = ed.textCursor()
            start, end = cur.selectionStart(), cur.selectionEnd()
        win.nav.commit_editor()
        row = win.current_row()
        seg = win.model.segment(row)
        if start == end:
            start, end = 0, len(seg.target.text)
        try:
            w = weights(win.project)
        except VersoError as e:
            self.say(str(e), 6000)
            return None
        dlg = LqaErrorDialog(win, seg.target.with_text(seg.target.text[start:end]).display(), w)
        dlg.finished.connect(lambda result: result == QDialog.Accepted and self._add(seg.id, row, start, end, dlg))
        dlg.open()
        return dlg

    def _add(self, segment_id: int, row: int, start: int, end: int, dlg) -> None:
        category, severity, comment = dlg.values()
        try:
            Lqa(self.win.project).add(segment_id, start, end, category, severity, comment)
        except VersoError as e:
            self.say(str(e), 6000)
            return
        self.win.comments.refresh(marks=False)  # the Comments panel lists it
        self.say(f"Segment {row + 1}: {severity} {category} error added.")

    def quality_report(self, out: str | None = None) -> Path | None:
        """Review ▸ Quality Report…: the document's LQA report, HTML or CSV by the name chosen."""
        win = self.win
        if win.model is None:
            self.say("Open a document to report on.")
            return None
        info = win.project.document(win.model.document_id)
        if out is None:
            default = str(win.project.folder / "exports" / f"{Path(info.name).stem}.quality.html")
            out, _ = QFileDialog.getSaveFileName(win, "Quality Report", default, "HTML (*.html);;CSV (*.csv)")
            if not out:
                return None
        try:
            rep = report.build(win.project, info.id)
            path = report.write(rep, Path(out))
        except VersoError as e:
            self.say(str(e), 6000)
            return None
        self.say(f"Quality report: {'PASS' if rep.passed else 'FAIL'}, {rep.per_1000:.2f} points per 1,000 words "
                 f"({rep.errors} errors) -> {path}", 10000)
        return path
