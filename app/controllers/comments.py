"""Comments on segments in the editor: Segment ▸ Add Comment… puts the cursor in the Comments
panel's box (Ctrl+Enter adds), the panel shows the current segment's comments -- the file's own,
read-only, and the project's (``engine/store/comments.py``) -- to edit, resolve, reopen or
delete; the grid marks the rows with an open comment.  The panel says whether the document's
format keeps comments on export or the project alone does."""
from __future__ import annotations

from PySide6.QtCore import QTimer

from engine.errors import VersoError
from engine.formats.comments_export import has_place
from engine.store.comments import Comments

from app.controllers.base import Controller
from app.controllers.review import lqa_lines
from app.preferences import preferences

PLACES = {
    "xliff12": "Open comments are exported as notes (<note>) of the XLIFF unit.",
    "xliff20": "Open comments are exported as notes (<notes>) of the XLIFF unit.",
    "po": "Open comments are exported as translator comments (# …) of the PO entry.",
    "docx": "Open comments are exported as Word comments on the paragraph.",
}
NO_PLACE = "This format has no place for comments: they are kept in the project only, not exported."


class CommentsController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self._sm = None
        self._place = NO_PLACE
        p = win.comments_panel
        p.addRequested.connect(self.add)
        p.editRequested.connect(self.edit)
        p.resolveRequested.connect(self.set_resolved)
        p.deleteRequested.connect(self.delete)
        p.leaveRequested.connect(self._back_to_target)
        win.proxy.sourceModelChanged.connect(lambda: QTimer.singleShot(0, self.document_shown))

    # --------------------------------------------------------- actions
    def add_comment(self) -> None:
        """Segment ▸ Add Comment…: the Comments panel's box, for the current segment."""
        win = self.win
        if win.model is None or not win.model.rowCount():
            self.say("Open a document to comment on its segments.")
            return
        win.nav.commit_editor()
        win.dock_comments.show()
        win.dock_comments.raise_()
        self.refresh()
        win.comments_panel.start()

    def resolve_comment(self) -> None:
        """Segment ▸ Resolve/Reopen Comment: the comment selected in the panel, else the segment's
        latest open one."""
        panel = self.win.comments_panel
        cid = panel.selected()
        if cid is None:
            open_ = [i for i, resolved in panel.comment_ids() if not resolved]
            if not open_:
                self.say("This segment has no open comment.")
                return
            cid = open_[-1]
        resolved = dict(panel.comment_ids()).get(cid, False)
        self.set_resolved(cid, not resolved)

    # --------------------------------------------------------- what the panel asks
    def add(self, text: str) -> None:
        seg = self._segment()
        if seg is None:
            return
        try:
            c = Comments(self.win.project).add(seg.id, text, author=preferences().user_name)
        except VersoError as e:
            self.say(str(e), 6000)
            return
        self.refresh(select=c.id)
        self.win.comments_panel.box.clear()
        self.say(f"Comment added to segment {self.win.current_row() + 1}.")

    def edit(self, comment_id: int, text: str) -> None:
        try:
            Comments(self.win.project).edit(comment_id, text)
        except VersoError as e:
            self.say(str(e), 6000)
            return
        self.refresh(select=comment_id)
        self.win.comments_panel.box.clear()
        self.say("Comment saved.")

    def set_resolved(self, comment_id: int, resolved: bool) -> None:
        comments = Comments(self.win.project)
        try:
            (comments.resolve if resolved else comments.reopen)(comment_id)
        except VersoError as e:
            self.say(str(e), 6000)
            return
        self.refresh(select=comment_id)
        self.say("Comment resolved: it stays in the project and is not exported." if resolved
                 else "Comment reopened.")

    def delete(self, comment_id: int) -> None:
        Comments(self.win.project).delete(comment_id)
        self.refresh()
        self.say("Comment deleted.")

    # --------------------------------------------------------- showing
    def document_shown(self) -> None:
        """A document is shown: follow its current row, mark its commented rows."""
        win = self.win
        sm = win.grid.selectionModel()
        if sm is not None and sm is not self._sm:
            self._sm = sm
            sm.currentRowChanged.connect(lambda *_: self.refresh(marks=False))
        self._place = ""
        if win.project is not None and win.model is not None:
            fmt = win.project.document(win.model.document_id).format
            self._place = (PLACES.get("docx" if fmt.startswith("docx") else fmt, NO_PLACE) if has_place(fmt)
                           else NO_PLACE) + " Resolved comments stay in the project."
        self.refresh()

    def refresh(self, select: int | None = None, marks: bool = True) -> None:
        """The panel for the current segment (and the grid's marks), from the project."""
        win, panel = self.win, self.win.comments_panel
        seg = self._segment()
        if seg is None:
            panel.show_segment(None)
            win.delegate.set_commented(())
            return
        comments = Comments(win.project)
        panel.show_segment(win.current_row() + 1, seg.note, comments.for_segment(seg.id), self._place)
        panel.add_lqa(lqa_lines(win.project, seg))
        if select is not None:
            panel.select(select)
        if marks:
            open_ids = comments.open_segments(win.model.document_id)
            segs = win.model.segments()  # one list copy, not a method call per row (2,000 rows: 2-4 ms)
            win.delegate.set_commented((r for r, s in enumerate(segs) if s.id in open_ids),
                                       (r for r, s in enumerate(segs) if s.note))

    def _segment(self):
        win = self.win
        if win.project is None or win.model is None or not win.model.rowCount():
            return None
        row = win.current_row()
        return win.model.segment(row) if 0 <= row < win.model.rowCount() else None

    def _back_to_target(self) -> None:
        self.win.nav.go_to(self.win.current_row())
