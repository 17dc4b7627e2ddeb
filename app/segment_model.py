"""The segment grid's Qt model: a thin view over :class:`engine.store.Project`."""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from engine.inline import from_display
from engine.store import Project, Segment

COLUMNS = ("#", "Source", "Target", "Status")
COL_NUM, COL_SOURCE, COL_TARGET, COL_STATUS = range(4)

STATUS_COLOURS = {
    "new": QColor("#ffffff"),
    "draft": QColor("#fff6d5"),
    "confirmed": QColor("#e3f4e1"),
}


def status_text(seg: Segment) -> str:
    """What the Status column shows: status plus where the target came from."""
    if seg.status == "new":
        return "new"
    origin = {"tm": "TM", "mt": "MT", "file": "file", "human": ""}.get(seg.origin, "")
    if seg.origin == "tm" and seg.origin_score is not None:
        origin = f"TM {round(seg.origin_score * 100)}%"
    return f"{seg.status} ({origin})" if origin else seg.status


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

    # -- Qt model API ------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return COLUMNS[section]
        return None

    def flags(self, index):
        f = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if index.column() == COL_TARGET:
            f |= Qt.ItemIsEditable
        return f

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        seg = self._rows[index.row()]
        col = index.column()
        if role in (Qt.DisplayRole, Qt.EditRole):
            if col == COL_NUM:
                return index.row() + 1
            if col == COL_SOURCE:
                return seg.source.display()
            if col == COL_TARGET:
                return seg.target.display()
            if col == COL_STATUS:
                return status_text(seg)
        if role == Qt.BackgroundRole and col in (COL_TARGET, COL_STATUS):
            return QBrush(STATUS_COLOURS.get(seg.status, QColor("#ffffff")))
        if role == Qt.ToolTipRole and col == COL_SOURCE:
            parts = [p for p in (seg.context, seg.note) if p]
            return "\n".join(parts) or None
        if role == Qt.TextAlignmentRole and col == COL_NUM:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def setData(self, index, value, role=Qt.EditRole):  # noqa: N802
        if role != Qt.EditRole or index.column() != COL_TARGET:
            return False
        seg = self._rows[index.row()]
        text = from_display(str(value), seg.source.tags)
        if text == seg.target.text:
            return False
        self._rows[index.row()] = self.project.set_target(seg.id, text, status="draft", origin="human")
        self._emit_row(index.row())
        return True

    # -- helpers -------------------------------------------------------------
    def segment(self, row: int) -> Segment:
        return self._rows[row]

    def confirm(self, row: int) -> Segment:
        """Confirm the segment of ``row`` (durable on return)."""
        seg = self._rows[row]
        self._rows[row] = self.project.confirm(seg.id, seg.target)
        self._emit_row(row)
        return self._rows[row]

    def next_unconfirmed(self, after: int) -> int | None:
        n = len(self._rows)
        for k in range(1, n + 1):
            r = (after + k) % n
            if self._rows[r].status != "confirmed":
                return r
        return None

    def _emit_row(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
        self.segmentChanged.emit(row)
