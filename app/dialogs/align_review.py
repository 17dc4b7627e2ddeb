"""The alignment editor: every link of two aligned documents in two columns, lowest confidence first,
with a filter; the translator confirms, merges, splits and shifts links from the keyboard
(engine.align.edit.Review does the edits), then chooses what goes into the TM.

Keys (on the table): Space confirms or unconfirms the selected links; Ctrl+M merges a link with the
next one in the document; Ctrl+T splits it; Alt+Down moves its last target sentence to the next
link, Alt+Up takes the next link's first target sentence into it."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QRadioButton, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from engine.align.aligner import Alignment
from engine.align.dp import Link
from engine.align.edit import Review

COLUMNS = ("✓", "Confidence", "Source", "Target")


class AlignReview(QWidget):
    """``store_requested(links)``: the links the translator chose to add to the TM."""

    store_requested = Signal(list)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.alignment: Alignment | None = None
        self.review = Review([])
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        self.filter = QLineEdit(placeholderText="Filter: words in the source or the target")
        self.filter.textChanged.connect(self.refresh)
        self.counts = QLabel("")
        top.addWidget(self.filter, 1)
        top.addWidget(self.counts)
        lay.addLayout(top)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.table, 1)
        lay.addWidget(QLabel("Space: confirm · Ctrl+M: merge with next · Ctrl+T: split · "
                             "Alt+Down / Alt+Up: move a target sentence to / from the next link"))
        # keys read by the table itself (an event filter), so they work where the table has the focus
        self._keys = {QKeySequence("Space"): self.toggle_confirmed, QKeySequence("Ctrl+M"): self.merge_selected,
                      QKeySequence("Ctrl+T"): self.split_selected,
                      QKeySequence("Alt+Down"): lambda: self.shift_selected(True),
                      QKeySequence("Alt+Up"): lambda: self.shift_selected(False)}
        self.table.installEventFilter(self)
        bottom = QHBoxLayout()
        self.only_confirmed = QRadioButton("Confirmed pairs only")
        self.above = QRadioButton("All pairs with a confidence of at least")
        self.only_confirmed.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.only_confirmed)
        group.addButton(self.above)
        self.threshold = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, value=0.9, decimals=2)
        self.add_button = QPushButton("&Add to TM")
        self.add_button.clicked.connect(self.request_store)
        for w in (self.only_confirmed, self.above, self.threshold):
            bottom.addWidget(w)
        bottom.addStretch(1)
        bottom.addWidget(self.add_button)
        lay.addLayout(bottom)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        if obj is self.table and ev.type() == QEvent.Type.KeyPress:
            fn = self._keys.get(QKeySequence(ev.keyCombination()))
            if fn is not None:
                fn()
                return True
        return super().eventFilter(obj, ev)

    # ------------------------------------------------------------ showing
    def set_alignment(self, al: Alignment) -> None:
        self.alignment = al
        self.review = Review(list(al.links))
        self.refresh()

    def _text(self, link: Link) -> tuple[str, str]:
        al = self.alignment
        s = " ".join(al.src.sentences[i].display() for i in link.src)
        t = " ".join(al.tgt.sentences[j].display() for j in link.tgt)
        return s, t

    def shown_order(self) -> list[int]:
        """Review rows as the table shows them: lowest confidence first (document order among equals),
        only those the filter matches."""
        words = self.filter.text().lower().split()
        order = sorted(range(len(self.review.rows)), key=lambda i: (self.review.rows[i].confidence, i))
        if words:
            order = [i for i in order if all(w in " ".join(self._text(self.review.rows[i].link)).lower()
                                             for w in words)]
        return order

    def refresh(self, keep: int | None = None) -> None:
        if self.alignment is None:
            return
        order = self.shown_order()
        self.table.setRowCount(len(order))
        for r, i in enumerate(order):
            row = self.review.rows[i]
            s, t = self._text(row.link)
            cells = ("✓" if row.confirmed else "", f"{row.confidence:.2f}", s or "(nothing)", t or "(nothing)")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, i)
                self.table.setItem(r, c, item)
        self.table.resizeRowsToContents()
        done = sum(r.confirmed for r in self.review.rows)
        self.counts.setText(f"{len(order)} of {len(self.review.rows)} links shown · {done} confirmed")
        if keep is not None and keep in order:
            self.table.selectRow(order.index(keep))

    # ------------------------------------------------------------ editing
    def selected(self) -> list[int]:
        rows = sorted({ix.row() for ix in self.table.selectionModel().selectedRows()})
        return [self.table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in rows]

    def toggle_confirmed(self) -> None:
        sel = self.selected()
        if not sel:
            return
        on = not all(self.review.rows[i].confirmed for i in sel)
        for i in sel:
            self.review.confirm(i, on)
        self.refresh(keep=sel[0])

    def merge_selected(self) -> None:
        sel = self.selected()
        if sel:
            self.refresh(keep=self.review.merge(sel[0]))

    def split_selected(self) -> None:
        sel = self.selected()
        if sel:
            self.review.split(sel[0])
            self.refresh(keep=sel[0])

    def shift_selected(self, down: bool) -> None:
        sel = self.selected()
        if sel:
            self.review.shift(sel[0], down)
            self.refresh(keep=sel[0])

    # ------------------------------------------------------------ storing
    def chosen(self) -> list[Link]:
        return self.review.chosen(self.threshold.value() if self.above.isChecked() else None)

    def request_store(self) -> None:
        self.store_requested.emit(self.chosen())
