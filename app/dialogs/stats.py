"""Statistics: word counts and TM match analysis by band per document, CSV export.

The best-match score comes from the same TM search as the matches panel, on
the TM thread, so the two never disagree and the UI never waits."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine import stats
from engine.fsutil import atomic_write
from engine.inline import TaggedText


class StatisticsDialog(QDialog):
    def __init__(self, parent, project, tm_service):
        super().__init__(parent)
        self.setWindowTitle("Statistics")
        self.resize(820, 360)
        self.analyses: list[stats.Analysis] = []
        self.docs = [(d.name, [s.source.text for s in project.segments(d.id)]) for d in project.documents()]
        self.info = QLabel("Analysing against the project's TMs…", self)
        self.progress = QProgressBar(self)
        self.progress.setMaximum(max(1, sum(len(s) for _, s in self.docs)))
        self.table = QTableWidget(self)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.export_button = QPushButton("Export CSV…", self)
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export_dialog)
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.addButton(self.export_button, QDialogButtonBox.ActionRole)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.info)
        lay.addWidget(self.progress)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        if tm_service is not None and tm_service.infos:
            tm_service.run(self._analyse, tm_service, on_result=self._show, on_progress=self._progress,
                           on_error=lambda m: self.info.setText(f"Analysis failed: {m}"))
        else:
            self._show(stats.analyse(self.docs, lambda s: None))

    def _analyse(self, control, tm_service):
        done = [0]

        def best(src: str):
            control.check()
            done[0] += 1
            if done[0] % 25 == 0:
                control.progress(done=done[0])
            found = tm_service.search_now(control, TaggedText(src), 1)
            return found[0].score if found else None

        return stats.analyse(self.docs, best)

    def _progress(self, ev: dict) -> None:
        self.progress.setValue(ev.get("done", 0))

    def _show(self, analyses) -> None:
        self.analyses = analyses
        self.progress.setValue(self.progress.maximum())
        self.progress.hide()
        rows = list(stats.ROWS) + ["total"]
        self.table.setRowCount(len(rows))
        self.table.setColumnCount(2 * len(analyses))
        heads = []
        for a in analyses:
            heads += [f"{a.name}\nsegments", f"{a.name}\nwords"]
        self.table.setHorizontalHeaderLabels(heads)
        self.table.setVerticalHeaderLabels(rows)
        for c, a in enumerate(analyses):
            for r, row in enumerate(rows):
                vals = a.total if row == "total" else a.rows[row]
                self.table.setItem(r, 2 * c, QTableWidgetItem(str(vals["segments"])))
                self.table.setItem(r, 2 * c + 1, QTableWidgetItem(str(vals["words"])))
        self.table.resizeColumnsToContents()
        total_words = sum(a.total["words"] for a in analyses)
        self.info.setText(f"{len(analyses)} document(s), {total_words} words. Match % = the TM search's token "
                          "score of the best match (the number the TM matches panel shows).")
        self.export_button.setEnabled(True)

    def csv_text(self) -> str:
        return stats.to_csv(self.analyses)

    def export(self, path: Path) -> None:
        with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(self.csv_text())

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export statistics", "statistics.csv", "CSV (*.csv)")
        if path:
            self.export(Path(path))
