"""The TM editor's table: one row per TM unit (source, target, who changed it last, when),
filled a page at a time as the view scrolls (``canFetchMore`` / ``fetchMore`` ask for the
next page through :attr:`UnitTableModel.wanted`; the controller answers with
:meth:`UnitTableModel.add_page`).  Source and target are edited in place with their inline
codes as short tags (``<b>``); an edit is not written here but handed on as
:attr:`UnitTableModel.editRequested` (the row shows the unit as stored once the TM took it)."""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from engine.inline import from_display
from engine.tm.model import TMEntry
from engine.tm.units import UnitPage, author, changed, revision

COLUMNS = ("Source", "Target", "Changed by", "Changed")
SOURCE, TARGET, AUTHOR, DATE = range(4)


class UnitTableModel(QAbstractTableModel):
    #: the next page is wanted: (generation, the last unit id read)
    wanted = Signal(int, int)
    #: (unit id, column SOURCE or TARGET, the new text with its inline codes as placeholders)
    editRequested = Signal(int, int, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.entries: list[TMEntry] = []
        self.generation = 0
        self.after = 0
        self.done = True
        self.loading = False

    # ------------------------------------------------------------ filling
    def restart(self) -> int:
        """Empty the table for a new search or TM; returns its generation (older pages are dropped)."""
        self.beginResetModel()
        self.entries = []
        self.generation += 1
        self.after, self.done, self.loading = 0, False, False
        self.endResetModel()
        return self.generation

    def add_page(self, generation: int, page: UnitPage) -> bool:
        """Append ``page`` (dropped when it answers an older search); True when taken."""
        if generation != self.generation:
            return False
        self.loading = False
        self.after, self.done = page.after, page.done
        if page.entries:
            n = len(self.entries)
            self.beginInsertRows(QModelIndex(), n, n + len(page.entries) - 1)
            self.entries.extend(page.entries)
            self.endInsertRows()
        return True

    def stop_loading(self) -> None:
        """A page could not be read: no more are asked for until the next search."""
        self.loading, self.done = False, True

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return not parent.isValid() and not self.done and not self.loading

    def fetchMore(self, parent=QModelIndex()) -> None:
        if self.canFetchMore(parent):
            self.loading = True
            self.wanted.emit(self.generation, self.after)

    # ------------------------------------------------------------ rows
    def row_of(self, uid: int) -> int:
        return next((i for i, e in enumerate(self.entries) if e.id == uid), -1)

    def put(self, entry: TMEntry, row: int | None = None) -> int:
        """Show ``entry``: in place of the row holding its id, else as row ``row`` (or the last);
        returns its row."""
        i = self.row_of(entry.id)
        if i >= 0:
            self.entries[i] = entry
            self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))
            return i
        i = len(self.entries) if row is None else max(0, min(row, len(self.entries)))
        self.beginInsertRows(QModelIndex(), i, i)
        self.entries.insert(i, entry)
        self.endInsertRows()
        return i

    def drop(self, uid: int) -> int:
        """Remove the row of unit ``uid``; returns where it was (-1: not shown)."""
        i = self.row_of(uid)
        if i >= 0:
            self.beginRemoveRows(QModelIndex(), i, i)
            del self.entries[i]
            self.endRemoveRows()
        return i

    # ------------------------------------------------------------ Qt
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        e = self.entries[index.row()]
        col = index.column()
        if role in (Qt.DisplayRole, Qt.EditRole):
            if col == SOURCE:
                return e.source.display()
            if col == TARGET:
                return e.target.display()
            if col == AUTHOR:
                return author(e)
            return changed(e).replace("T", " ").removesuffix("Z")
        if role == Qt.ToolTipRole and col in (AUTHOR, DATE):
            made = f"Made by {e.meta.get('creator') or 'unknown'} on {e.meta.get('created') or 'an unknown day'}"
            last = f"; last changed by {author(e) or 'unknown'} on {changed(e)}" if e.meta.get("changer") else ""
            return made + last + (f"\n{revision(e)}" if revision(e) else "")
        if role == Qt.ToolTipRole and col == TARGET and revision(e):
            return revision(e)  # a shared TM's reviewed unit: "revised by X, was: ..."
        return None

    def flags(self, index):
        base = super().flags(index)
        if index.isValid() and index.column() in (SOURCE, TARGET):
            return base | Qt.ItemIsEditable
        return base

    def setData(self, index, value, role=Qt.EditRole) -> bool:
        if role != Qt.EditRole or not index.isValid() or index.column() not in (SOURCE, TARGET):
            return False
        e = self.entries[index.row()]
        text = e.source if index.column() == SOURCE else e.target
        new = from_display(str(value), text.tags)
        if new != text.text:
            self.editRequested.emit(e.id, index.column(), new)
        return False  # shown once the TM has it


__all__ = ["UnitTableModel", "COLUMNS", "SOURCE", "TARGET", "AUTHOR", "DATE"]
