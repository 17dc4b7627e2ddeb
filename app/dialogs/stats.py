"""Statistics: word counts and TM match analysis by band per document, CSV export.  Locked
segments are counted in their own row and left out of the words to translate.

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
        self.resize(820, 560)
        self.analyses: list[stats.Analysis] = []
        # (units confirmed by Verso before the key was a name carry the folder's path)
        self.project_key = (project.tm_key, str(project.folder.resolve()))
        self.project_name = project.name  # the origin of a unit a confirm created (not an import's)
        docs = [(d, project.segments(d.id)) for d in project.documents()]
        self.docs = [(d.name, [stats.Counted(s.source.text, s.status, s.locked) for s in segs]) for d, segs in docs]
        self._since = {d.name: d.imported_at for d, _ in docs}
        self.progress_rows = stats.progress(self.docs)
        self.progress_label = QLabel("<b>Progress</b> (segments and words by status; locked segments apart, "
                                     "not to translate)", self)
        self.progress_table = QTableWidget(self)
        self.progress_table.setEditTriggers(QTableWidget.NoEditTriggers)
        self._fill(self.progress_table, self.progress_rows, list(stats.PROGRESS_ROWS) + ["total", "to translate"])
        self.analysis_label = QLabel("<b>Analysis against the TMs</b> (what a quote is based on: as if "
                                     "nothing were translated yet; your own confirmed segments do not count)",
                                     self)
        self.analysis_label.setWordWrap(True)
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
        lay.addWidget(self.progress_label)
        lay.addWidget(self.progress_table)
        lay.addWidget(self.analysis_label)
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
            found = tm_service.search_now(control, TaggedText(src), 5)
            since = self._since.get(current[0], "")
            return next((f.score for f in found
                         if not stats.is_own_work(f.match.meta, self.project_key, since, self.project_name)),
                        None)

        current = [""]

        def docs():
            for name, sources in self.docs:
                current[0] = name
                yield name, sources

        return stats.analyse(docs(), best)

    def _progress(self, ev: dict) -> None:
        self.progress.setValue(ev.get("done", 0))

    def _show(self, analyses) -> None:
        self.analyses = analyses
        self.progress.setValue(self.progress.maximum())
        self.progress.hide()
        self._fill(self.table, analyses, list(stats.ROWS) + ["total", "to translate"])
        words = sum(a.to_translate.words for a in analyses)
        locked = sum(a.locked.words for a in analyses)
        left_out = f" ({locked} locked words left out)" if locked else ""
        self.info.setText(f"{len(analyses)} document(s), {words} words to translate{left_out}. Match % = the TM "
                          "search's token score of the best match (the number the TM matches panel shows).")
        self.export_button.setEnabled(True)

    @staticmethod
    def _fill(table: QTableWidget, items, rows: list[str]) -> None:
        """One pair of columns (segments, words) per document, one row per band or status."""
        table.setRowCount(len(rows))
        table.setColumnCount(2 * len(items))
        heads = []
        for a in items:
            heads += [f"{a.name}\nsegments", f"{a.name}\nwords"]
        table.setHorizontalHeaderLabels(heads)
        table.setVerticalHeaderLabels(rows)
        for c, a in enumerate(items):
            for r, row in enumerate(rows):
                vals = a.total if row == "total" else a.to_translate if row == "to translate" else a.rows[row]
                table.setItem(r, 2 * c, QTableWidgetItem(str(vals.segments)))
                table.setItem(r, 2 * c + 1, QTableWidgetItem(str(vals.words)))
        table.resizeColumnsToContents()

    def csv_text(self) -> str:
        return stats.to_csv(self.analyses)

    def export(self, path: Path) -> None:
        with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(self.csv_text())

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export statistics", "statistics.csv", "CSV (*.csv)")
        if path:
            self.export(Path(path))
