"""Review ▸ Segment Changes…: a segment's tracked changes -- the target as it was and as it is, the
difference struck through / underlined, who changed it and when -- each change accepted (A) or
rejected (R) from the list, the whole segment with Accept All / Reject All; its history (every edit
made in Verso, who and when, as differences: engine/review/history.py) and its LQA errors."""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QListWidgetItem, QTextBrowser, QVBoxLayout

from engine.errors import VersoError
from engine.review import history
from engine.review.changes import TrackedChanges
from engine.review.compare import diff_html


class SegmentChangesDialog(QDialog):
    def __init__(self, parent, project, segment_id: int, number: int, lqa=()):
        super().__init__(parent)
        self.project, self.segment_id = project, segment_id
        self.changed = False
        self.setWindowTitle(f"Segment {number}: changes")
        lay = QVBoxLayout(self)
        self.who = QLabel(self)
        lay.addWidget(self.who)
        self.view = QTextBrowser(self)
        lay.addWidget(self.view)
        self.list = QListWidget(self)
        lay.addWidget(self.list)
        self.lqa = QLabel("\n".join(f"LQA: {e.category}, {e.severity}: {e.comment}" for e in lqa), self)
        lay.addWidget(self.lqa)
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        self.accept_all = buttons.addButton("Accept &All", QDialogButtonBox.ActionRole)
        self.reject_all = buttons.addButton("Reject A&ll", QDialogButtonBox.ActionRole)
        self.accept_all.clicked.connect(lambda: self._resolve(True, None))
        self.reject_all.clicked.connect(lambda: self._resolve(False, None))
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.list.installEventFilter(self)  # A / R on the list: the selected change
        self.refresh()
        self.list.setFocus()

    def refresh(self) -> None:
        t = TrackedChanges(self.project).of(self.segment_id)
        self.list.clear()
        past = "".join(f"<li>{html.escape(v.author)}, {html.escape(v.at)} UTC, {v.status}: "
                       f"{diff_html(v.old.display(), v.new.display())}</li>"
                       for v in reversed(history.of(self.project, self.segment_id)))
        past = f"<h4>History (latest first)</h4><ul>{past}</ul>" if past else "<p>No edits recorded in Verso.</p>"
        if t is None:
            self.who.setText("No tracked changes.")
            self.view.setHtml(f"<p>{html.escape(self.project.segment(self.segment_id).target.display())}</p>{past}")
            return
        self.who.setText(f"Changed by {t.author}, {t.at} (UTC). A accepts the selected change, R rejects it.")
        self.view.setHtml(f"<p>{diff_html(t.base.display(), t.target.display())}</p>{past}")
        for c in t.changes():
            shown = t.target.with_text(c.text).display()
            item = QListWidgetItem(f"{'Deleted' if c.kind == 'delete' else 'Inserted'}: {shown}")
            item.setData(Qt.UserRole, c.index)
            self.list.addItem(item)
        self.list.setCurrentRow(0)

    def eventFilter(self, obj, e) -> bool:  # noqa: N802
        if obj is self.list and e.type() == QEvent.KeyPress and not e.modifiers() and e.key() in (Qt.Key_A, Qt.Key_R):
            self._one(e.key() == Qt.Key_A)
            return True
        return super().eventFilter(obj, e)

    def _one(self, accept: bool) -> None:
        """The selected change accepted or rejected."""
        item = self.list.currentItem()
        if item is not None:
            self._resolve(accept, int(item.data(Qt.UserRole)))

    def _resolve(self, accept: bool, index: int | None) -> None:
        tc = TrackedChanges(self.project)
        try:
            (tc.accept if accept else tc.reject)(self.segment_id, index)
        except VersoError as e:  # a locked segment
            self.who.setText(str(e))
            return
        self.changed = True
        self.refresh()
