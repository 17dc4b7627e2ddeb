"""QA check: the project's checks (tags, numbers, spaces, punctuation, untranslated,
consistency, length, spelling), each on or off for this project; a click on a finding
goes to its segment.  A finding the translator judged fine is ignored (Ignore, or the Delete
key) and stays ignored in later runs while its text is the same (the project's ignore list,
:mod:`engine.store.qa_ignore`); *Show ignored* lists them again to restore one."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.qa import CHECKS, Issue, check_segments, received_ids
from engine.store.qa_ignore import IgnoreList


class QADialog(QDialog):
    segmentActivated = Signal(int)  # 0-based row in the document
    #: findings were ignored or restored, or a check turned on or off (the grid's QA marks follow)
    findingsChanged = Signal()

    def __init__(self, parent, segments, project=None, spelling=None):
        """``project``: where the choice of checks is kept and its glossaries (None: all checks,
        not saved, no glossary); ``spelling``: the target language's SpellChecker, or None."""
        super().__init__(parent)
        self.setWindowTitle("QA check")
        self.resize(820, 520)
        self.segments = list(segments)
        self.project = project
        self.spelling = spelling
        self.options = project.qa_options() if project is not None else None
        self.terms = project.term_index() if project is not None else None
        self.tgt_lang = project.tgt_lang if project is not None else ""
        box = QGroupBox("Checks run for this project", self)
        grid = QGridLayout(box)
        self.boxes: dict[str, QCheckBox] = {}
        for i, c in enumerate(CHECKS):
            cb = QCheckBox(c.title, box)
            cb.setChecked(self.options is None or c.id in self.options.enabled)
            cb.toggled.connect(lambda on, cid=c.id: self._toggle(cid, on))
            grid.addWidget(cb, i // 2, i % 2)
            self.boxes[c.id] = cb
        self.summary = QLabel(self)
        # which check's findings the list shows (Alt+W from the keyboard): the checks found, filled by run()
        self.check_filter = QComboBox(self)
        self.check_filter.currentIndexChanged.connect(lambda _: self._filter_rows())
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Segment", "Severity", "Check", "Message"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.cellClicked.connect(lambda r, c: self.activate(r))
        self.table.itemSelectionChanged.connect(self._update_button)
        self.table.installEventFilter(self)
        self.ignore_list = IgnoreList(project) if project is not None else None
        self.show_ignored = QCheckBox("Show ignored", self)
        self.show_ignored.toggled.connect(lambda _: self.run())
        self.ignore_button = QPushButton("&Ignore", self)
        self.ignore_button.setToolTip("Ignore the selected findings in this project (Delete); "
                                      "they come back if their text changes")
        self.ignore_button.clicked.connect(self.toggle_ignored)
        self.ignore_button.setEnabled(False)
        self.show_ignored.setVisible(self.ignore_list is not None)
        self.ignore_button.setVisible(self.ignore_list is not None)
        row = QHBoxLayout()
        row.addWidget(self.summary, 1)
        row.addWidget(QLabel("Sho&w:", self, buddy=self.check_filter))
        row.addWidget(self.check_filter)
        row.addWidget(self.show_ignored)
        row.addWidget(self.ignore_button)
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(box)
        lay.addLayout(row)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.run()

    def _toggle(self, check: str, on: bool) -> None:
        if self.options is not None:
            self.options = self.options.with_check(check, on)
            self.project.set_qa_options(self.options)
        self.run()
        self.findingsChanged.emit()

    def run(self) -> None:
        found = check_segments(self.segments, self.options, spelling=self.spelling, terms=self.terms,
                               tgt_lang=self.tgt_lang, received=received_ids(self.segments))
        shown, self.ignored = self.ignore_list.split(found) if self.ignore_list is not None else (found, [])
        #: the table's rows: the findings shown, then (with *Show ignored*) the ignored ones
        self.issues: list[Issue] = shown + (self.ignored if self.show_ignored.isChecked() else [])
        errors = sum(1 for i in shown if i.severity == "error")
        ignored = f", {len(self.ignored)} ignored" if self.ignored else ""
        self.summary.setText(f"{len(shown)} finding(s): {errors} error(s), "
                             f"{len(shown) - errors} warning(s){ignored}. Click one to go to its segment.")
        self.show_ignored.setText(f"Show ignored ({len(self.ignored)})")
        self.table.setRowCount(len(self.issues))
        for r, i in enumerate(self.issues):
            hidden = r >= len(shown)
            for c, v in enumerate((str(i.idx + 1) if i.idx >= 0 else "—", "ignored" if hidden else i.severity,
                                   i.check, i.message)):
                item = QTableWidgetItem(v)
                if hidden:
                    item.setForeground(Qt.gray)
                elif c == 1 and i.severity == "error":
                    item.setForeground(Qt.red)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self._filter_rows()
        self._update_button()

    def _filter_rows(self) -> None:
        """Only the findings of the check chosen in *Show* (all: every finding)."""
        box, chosen = self.check_filter, self.check_filter.currentData() or ""
        found = sorted({i.check for i in self.issues})
        if [box.itemData(k) for k in range(box.count())] != ["", *found]:
            box.blockSignals(True)
            box.clear()
            box.addItem(f"All checks ({len(self.issues)})", "")
            for c in found:
                box.addItem(f"{c} ({sum(1 for i in self.issues if i.check == c)})", c)
            box.setCurrentIndex(max(0, box.findData(chosen)))
            box.blockSignals(False)
        check = box.currentData()
        for r, i in enumerate(self.issues):
            self.table.setRowHidden(r, bool(check) and i.check != check)

    def _selected(self) -> list[Issue]:
        rows = sorted({ix.row() for ix in self.table.selectedIndexes()})
        return [self.issues[r] for r in rows if 0 <= r < len(self.issues) and self.issues[r].idx >= 0]

    def _update_button(self) -> None:
        picked = self._selected()
        restoring = bool(picked) and all(i in self.ignored for i in picked)
        self.ignore_button.setText("&Restore" if restoring else "&Ignore")
        self.ignore_button.setEnabled(bool(picked) and self.ignore_list is not None)

    def toggle_ignored(self) -> None:
        """Ignore the selected findings, or restore them when all of them are ignored ones."""
        picked = self._selected()
        if not picked or self.ignore_list is None:
            return
        if all(i in self.ignored for i in picked):
            self.ignore_list.restore(picked)
        else:
            self.ignore_list.ignore([i for i in picked if i not in self.ignored])
        self.run()
        self.findingsChanged.emit()

    def eventFilter(self, obj, e) -> bool:  # noqa: N802 (Qt's name)
        """Delete (or Backspace) on the findings' table ignores or restores the selected ones."""
        if obj is self.table and e.type() == QEvent.KeyPress and e.key() in (Qt.Key_Delete, Qt.Key_Backspace):
            self.toggle_ignored()
            return True
        return super().eventFilter(obj, e)

    def activate(self, r: int) -> None:
        if 0 <= r < len(self.issues) and self.issues[r].idx >= 0:
            self.segmentActivated.emit(self.issues[r].idx)
