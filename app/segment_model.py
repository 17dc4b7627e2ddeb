"""The segment grid's Qt model: a thin view over :class:`engine.store.Project` (the filter
proxy in front of it is :mod:`app.filters`), and replacing in a target without touching a tag."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from engine.inline import TaggedText, accept_revisions, from_display
from engine.qa import tag_issues
from engine.review.changes import TrackedChanges
from engine.review.export import marked
from engine.store import Project, Segment
from engine.store.locks import SegmentLocks

COLUMNS = ("#", "Source", "Target", "Status")
COL_NUM, COL_SOURCE, COL_TARGET, COL_STATUS = range(4)
#: Role giving the :class:`TaggedText` of the source/target cell (chips are drawn from it).
ROLE_TAGGED = Qt.UserRole + 1
#: Role of setData taking segment text with tag characters as they are (the chip editor).
ROLE_RAW = Qt.UserRole + 2
#: Role telling whether the row's segment is locked (its target box opens read-only).
ROLE_LOCKED = Qt.UserRole + 3
#: Role of the cell as drawn: ROLE_TAGGED, but a target with Review ▸ Track Changes changes shows
#: them as received ones are (struck through / underlined); the target box still gets ROLE_TAGGED.
ROLE_SHOWN = Qt.UserRole + 4
#: The Status column's mark of a locked segment: a word, not U+1F512, which many Linux desktops
#: have no font for (under Xvfb it drew as an empty box).
LOCK_MARK = "locked · "
#: The Status column's mark of a segment with QA findings (their messages are its tooltip).
QA_MARK = " · QA"

STATUS_COLOURS = {
    "new": QColor("#ffffff"),
    "draft": QColor("#fff6d5"),
    "confirmed": QColor("#e3f4e1"),
}
_BRUSHES = {k: QBrush(c) for k, c in STATUS_COLOURS.items()}
_WHITE = QBrush(QColor("#ffffff"))
_LOCKED = QBrush(QColor("#e9ecef"))
_DISPLAY = (Qt.DisplayRole, Qt.EditRole)
_SHOWN_COL = {COL_SOURCE: 0, COL_TARGET: 1, COL_STATUS: 2}
_ALIGN_NUM = int(Qt.AlignRight | Qt.AlignTop)
_FLAGS = Qt.ItemIsEnabled | Qt.ItemIsSelectable
_FLAGS_TARGET = _FLAGS | Qt.ItemIsEditable
#: The roles :meth:`SegmentTableModel.data` answers; the view asks for a dozen per
#: cell on every repaint, and the others are answered before any other work.
_ROLES = frozenset((Qt.DisplayRole, Qt.EditRole, ROLE_TAGGED, Qt.BackgroundRole, Qt.ToolTipRole,
                    Qt.TextAlignmentRole, ROLE_LOCKED, ROLE_SHOWN))
def status_text(seg: Segment) -> str:
    """What the Status column shows: status plus where the target came from, and a mark
    when the target's tags do not match the source's (as received: the file's own target);
    a locked segment's begins with the lock mark."""
    if seg.locked:
        return LOCK_MARK + status_text(replace(seg, locked=False))
    if seg.status == "new":
        return "new"
    origin = {"tm": "TM", "mt": "MT", "file": "file", "human": ""}.get(seg.origin, "")
    if seg.origin == "tm" and seg.origin_score is not None:
        origin = f"TM {round(seg.origin_score * 100)}%"
    text = f"{seg.status} ({origin})" if origin else seg.status
    if seg.target.text and tag_issues(seg.id, seg.idx, seg.source, seg.target):
        text += " · tags as received" if seg.as_received else " · tag error"
    return text


class SegmentTableModel(QAbstractTableModel):
    """Rows are the segments of one document; the Target column is editable.

    Every edit is written to the project at once (as a draft), so nothing
    typed is lost if the application dies.
    """

    segmentChanged = Signal(int)  # row

    def __init__(self, project: Project, document_id: int, parent=None):
        super().__init__(parent)
        self.project = project
        self.document_id = document_id
        self._rows: list[Segment] = project.segments(document_id)
        # Display strings (and the target's TaggedText) per row: the grid asks for them on
        # every repaint (hundreds of calls per keystroke); they change only when the row
        # does (_emit_row).
        self._shown: dict[int, tuple[str, str, str]] = {}
        self._target_tt: dict[int, TaggedText] = {}
        self._tracked = set(TrackedChanges(project).in_document(document_id))  # ids with tracked changes
        self._marked: dict[int, TaggedText] = {}
        # Sources change only by a split or join (restructure): rows by source text (auto-propagation looks identical
        # segments up here instead of scanning the document on every confirm).
        self._by_source: dict[str, list[int]] = {}
        for r, seg in enumerate(self._rows):
            self._by_source.setdefault(seg.source.text, []).append(r)
        self._counts: Counter[str] = Counter(seg.status for seg in self._rows)
        # segment id -> the messages of its QA findings (app/controllers/qa_marks.py, off the UI thread)
        self._qa: dict[int, tuple[str, ...]] = {}

    # -- Qt model API ------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return COLUMNS[section]
        return None

    def flags(self, index):  # asked for every cell on every repaint: no flag arithmetic per call
        return _FLAGS_TARGET if index.column() == COL_TARGET else _FLAGS

    def data(self, index, role=Qt.DisplayRole):
        # Called a dozen times per cell on every repaint: roles we do not answer leave first.
        if role not in _ROLES or not index.isValid():
            return None
        row = index.row()
        col = index.column()
        if role in _DISPLAY:
            if col == COL_NUM:
                return row + 1
            shown = self._shown.get(row)
            if shown is None:
                seg = self._rows[row]
                status = status_text(seg) + (QA_MARK if seg.id in self._qa else "")
                shown = self._shown[row] = (seg.source.display(), seg.target.display(), status)
            return shown[_SHOWN_COL[col]]
        if role == ROLE_SHOWN:
            if col == COL_TARGET and self._rows[row].id in self._tracked:
                return self._marked_target(row)
            role = ROLE_TAGGED
        if role == ROLE_TAGGED:
            if col == COL_SOURCE:
                return self._rows[row].source
            if col == COL_TARGET:
                tt = self._target_tt.get(row)
                if tt is None:
                    seg = self._rows[row]
                    src_tags = {s.n for s in seg.source.tags}
                    tt = self._target_tt[row] = TaggedText(seg.target.text, seg.source.tags + tuple(
                        t for t in seg.target.tags if t.n not in src_tags))
                return tt
            return None
        if role == Qt.BackgroundRole:
            if col not in (COL_TARGET, COL_STATUS):
                return None
            seg = self._rows[row]
            return _LOCKED if seg.locked else _BRUSHES.get(seg.status, _WHITE)
        if role == ROLE_LOCKED:
            return self._rows[row].locked
        if role == Qt.ToolTipRole:
            if col == COL_STATUS:
                found = self._qa.get(self._rows[row].id)
                return "QA: " + "\n".join(found) if found else None
            if col != COL_SOURCE:
                return None
            seg = self._rows[row]
            parts = [p for p in (seg.context, seg.note) if p]
            return "\n".join(parts) or None
        if role == Qt.TextAlignmentRole and col == COL_NUM:
            return _ALIGN_NUM
        return None

    def setData(self, index, value, role=Qt.EditRole):  # noqa: N802
        if role not in (Qt.EditRole, ROLE_RAW) or index.column() != COL_TARGET:
            return False
        seg = self._rows[index.row()]
        text = str(value) if role == ROLE_RAW else from_display(str(value), seg.source.tags)
        if text == seg.target.text or seg.locked:
            return False  # looking at a segment changes nothing; a locked one cannot change
        self.set_target(index.row(), self.edited_target(row=index.row(), text=text))
        return True

    # -- helpers -------------------------------------------------------------
    def segment(self, row: int) -> Segment:
        return self._rows[row]

    def segments(self) -> list[Segment]:
        return list(self._rows)

    def rows_by_id(self) -> dict[int, int]:
        """Segment id -> row."""
        return {seg.id: r for r, seg in enumerate(self._rows)}

    def set_target(self, row: int, text: str | TaggedText, *, origin: str = "human",
                   origin_score: float | None = None, status: str = "draft") -> Segment:
        """Store a target for ``row`` (a draft by default; committed on return)."""
        seg = self._rows[row]
        tt = text if isinstance(text, TaggedText) else seg.source.with_text(text)
        with self._tracked_write([seg.id]):
            self.project.set_target(seg.id, tt, status=status, origin=origin, origin_score=origin_score)
        self._replace(row, self.project.segment(seg.id))
        return self._rows[row]

    def set_targets(self, rows: list[int], text: TaggedText, *, origin: str = "human",
                    origin_score: float | None = None, status: str = "draft") -> None:
        """Store the same target for several rows in one write (auto-propagation)."""
        if not rows:
            return
        with self._tracked_write([self._rows[r].id for r in rows]):
            self.project.set_targets([(self._rows[r].id, text) for r in rows], status=status, origin=origin,
                                     origin_score=origin_score)
        segs = [self.project.segment(self._rows[r].id) for r in rows]
        for r, seg in zip(rows, segs):
            self._replace(r, seg)

    def confirm_target(self, row: int, text: str | None = None) -> TaggedText:
        """The target :meth:`confirm` would store for ``row`` with ``text`` typed."""
        seg = self._rows[row]
        return seg.target if text is None or text == seg.target.text else self.edited_target(row, text)

    def edited_target(self, row: int, text: str) -> TaggedText:
        """``text`` typed in ``row``'s box as the target it stores: an edit accepts the segment's
        tracked changes, as memoQ and Trados do (deleted text goes, inserted text stays plain)."""
        seg = self._rows[row]
        return seg.source.with_text(accept_revisions(text, seg.target.tags))

    def confirm(self, row: int, text: str | None = None, tm_meta: dict | None = None,
                tm_replaces: TaggedText | None = None) -> Segment:
        """Confirm the segment of ``row`` (durable on return), in ONE write.

        ``text``: what the editor holds (segment text with tag characters).  When
        it differs from the stored target it is confirmed as the translator's own
        (origin ``human``), exactly as if it had been saved as a draft first;
        otherwise the stored target keeps where it came from (TM %, MT).
        ``tm_meta``: the confirmation is owed to the TM (see :meth:`Project.confirm`).
        """
        seg = self._rows[row]
        if text is not None and text != seg.target.text:
            target, origin, score = self.edited_target(row, text), "human", None
        else:
            target, origin, score = seg.target, seg.origin or "human", seg.origin_score
        with self._tracked_write([seg.id]):
            self.project.confirm(seg.id, target, origin=origin, origin_score=score, tm_meta=tm_meta,
                                 tm_replaces=tm_replaces)
        self._replace(row, self.project.segment(seg.id))  # as stored: typing the old text back restores it
        return self._rows[row]

    def _marked_target(self, row: int) -> TaggedText:
        tt = self._marked.get(row)
        if tt is None:
            t = TrackedChanges(self.project).of(self._rows[row].id)
            tt = marked(t) if t is not None else self._rows[row].target
            self._marked[row] = tt = TaggedText(tt.text, self._rows[row].source.tags + tuple(
                x for x in tt.tags if x.n not in {s.n for s in self._rows[row].source.tags}))
        return tt

    def _tracked_write(self, segment_ids: list[int]):
        """Around a write: with Review ▸ Track Changes on, an edit of a confirmed or received target is kept as
        a tracked change (:mod:`engine.review.changes`)."""
        return TrackedChanges(self.project).recording(segment_ids)  # signed engine.identity.user_name()

    def reload_row(self, row: int) -> None:
        self._replace(row, self.project.segment(self._rows[row].id))

    def _replace(self, row: int, seg: Segment) -> None:
        self._counts[self._rows[row].status] -= 1
        self._counts[seg.status] += 1
        self._rows[row] = seg
        self._marked.pop(row, None)
        self._tracked.discard(seg.id)
        if TrackedChanges(self.project).of(seg.id) is not None:
            self._tracked.add(seg.id)
        self._emit_row(row)

    def set_qa_findings(self, findings: dict[int, tuple[str, ...]]) -> None:
        """Mark the segments with QA findings: segment id -> the findings' messages; only the
        Status cells whose mark or tooltip changes are redrawn."""
        old, self._qa = self._qa, dict(findings)
        changed = {i for i in old.keys() | self._qa.keys() if old.get(i) != self._qa.get(i)}
        if not changed:
            return
        for r, seg in enumerate(self._rows):
            if seg.id in changed:
                self._shown.pop(r, None)
                idx = self.index(r, COL_STATUS)
                self.dataChanged.emit(idx, idx)

    def qa_findings(self, row: int) -> tuple[str, ...]:
        """The messages of the QA findings marked on ``row`` (none: empty)."""
        return self._qa.get(self._rows[row].id, ())

    def status_counts(self) -> dict[str, int]:
        """Segments per status (new / draft / confirmed) in this document, kept up to date in memory."""
        return {k: self._counts.get(k, 0) for k in ("new", "draft", "confirmed")}

    def next_unconfirmed(self, after: int) -> int | None:
        """The next row after ``after`` (around the end) not confirmed and not locked."""
        n = len(self._rows)
        for k in range(1, n + 1):
            r = (after + k) % n
            if self._rows[r].status != "confirmed" and not self._rows[r].locked:
                return r
        return None

    def is_repeated(self, row: int) -> bool:
        """Whether another row of the document has the same source (the Repetitions filter)."""
        return len(self._by_source.get(self._rows[row].source.text, ())) > 1

    def same_source_rows(self, row: int) -> list[int]:
        """Other unconfirmed, unlocked rows whose source is identical to ``row``'s (auto-propagation)."""
        return [r for r in self._by_source.get(self._rows[row].source.text, ())
                if r != row and self._rows[r].status != "confirmed" and not self._rows[r].locked]

    def set_locked(self, rows: list[int], locked: bool) -> int:
        """Lock (or unlock) the segments of ``rows`` in the project; returns how many changed."""
        locks = SegmentLocks(self.project)
        ids = [self._rows[r].id for r in rows]
        changed = locks.lock(ids) if locked else locks.unlock(ids)
        for r in rows:
            self.reload_row(r)
        return changed

    def lock_exact_matches(self) -> list[int]:
        """Lock every 100 % TM match of the document (``SegmentLocks.lock_exact_matches``); the rows locked."""
        ids = set(SegmentLocks(self.project).lock_exact_matches(self.document_id))
        rows = [r for r, seg in enumerate(self._rows) if seg.id in ids]
        for r in rows:
            self.reload_row(r)
        return rows

    def restructure(self, row: int, removed: int, segments: list[Segment]) -> None:
        """Rows ``row`` .. ``row + removed - 1`` became ``segments`` (a split or join, or its
        undo): the rows they share change, the others are inserted or removed."""
        grow, common = len(segments) - removed, min(removed, len(segments))
        if grow > 0:
            self.beginInsertRows(QModelIndex(), row + removed, row + removed + grow - 1)
        elif grow < 0:
            self.beginRemoveRows(QModelIndex(), row + common, row + removed - 1)
        self._rows[row:row + removed] = segments
        if grow:  # the rows after them moved: their place in the document with them
            for r in range(row + len(segments), len(self._rows)):
                self._rows[r] = replace(self._rows[r], idx=r)
        self._shown.clear()
        self._target_tt.clear()
        self._marked.clear()
        self._by_source = {}
        for r, seg in enumerate(self._rows):
            self._by_source.setdefault(seg.source.text, []).append(r)
        self._counts = Counter(seg.status for seg in self._rows)
        if grow > 0:
            self.endInsertRows()
        elif grow < 0:
            self.endRemoveRows()
        for r in range(row, row + common):
            self._emit_row(r)

    def _emit_row(self, row: int) -> None:
        self._shown.pop(row, None)
        self._target_tt.pop(row, None)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
        self.segmentChanged.emit(row)


def replace_in_target(seg: Segment, pattern: re.Pattern, replacement: str, *, regex: bool = False) -> str | None:
    """The segment's target text with every match replaced (tags untouched), or None if nothing matched.

    Matching runs over the text *between* tags so a replacement never eats a tag.
    """
    parts = re.split("([\ue001-\uf8ff])", seg.target.text)
    changed = False
    for i in range(0, len(parts), 2):
        new, n = pattern.subn(replacement if regex else replacement.replace("\\", "\\\\"), parts[i])
        if n:
            parts[i] = new
            changed = True
    return "".join(parts) if changed else None
