"""Import a TMX (or Trados Studio .sdltm, bilingual CSV/TSV, PO, XLIFF) file into the project's writable TM,
or into another TM named by a folder or a shared TM's URL
(``postgresql://host:port/dbname?tm=NAME``, typed or pasted; created when missing,
and then listed in the project, searched in the editor, unless unticked).

1. pick a file; 2. a dry run reads it in the background and reports the
languages found, how many units are usable and why others would be
skipped; 3. map the file's languages to the project's when the codes differ;
4. import on the TM thread with progress.  The import is one transaction:
cancel (or a broken file) leaves the TM exactly as it was -- and a TM that
did not exist before is not left behind (:func:`engine.tm.open_for_import`).
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.formats.base import TMUnit
from engine.formats.tmfiles import TmFileSurvey, read_tm_file, survey_tm_file
from engine.langs import normalize_lang, same_language
from engine.tm import is_tm_url, open_for_import, tm_ref
from app.workers import Worker, start

FILE_FILTER = "TM files (*.tmx *.sdltm *.csv *.tsv *.po *.xlf *.xliff *.sdlxliff *.mqxliff);;All files (*)"


def dry_run(control, path: Path, src: str, tgt: str) -> TmFileSurvey:
    """Read ``path`` without importing (the Worker job): languages seen, usable units, problems."""
    def tick(units: int) -> None:
        control.check()
        if units % 500 == 0:
            control.progress(units=units)
    return survey_tm_file(path, src, tgt, tick)


def remapped(units, file_src: str, file_tgt: str, src: str, tgt: str):
    """Units with the file's language codes renamed to the project's."""
    for u in units:
        v = {}
        for k, tt in u.variants.items():
            if same_language(k, file_src):
                v[src] = tt
            elif same_language(k, file_tgt):
                v[tgt] = tt
            else:
                v[k] = tt
        yield TMUnit(v, u.meta, u.line)


class ImportTMDialog(QDialog):
    finished_import = Signal(object)   # ImportResult

    def __init__(self, parent, project, tm_service):
        super().__init__(parent)
        self.setWindowTitle("Import TMX / TM file")
        self.resize(640, 460)
        self.project, self.tm = project, tm_service
        self.report: TmFileSurvey | None = None
        self.result = None
        self._job: Worker | None = None
        self.path = QLineEdit(self)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        row = QWidget(self)
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(self.path)
        h.addWidget(browse)
        self.src = QComboBox(self)
        self.tgt = QComboBox(self)
        for c in (self.src, self.tgt):
            c.setEditable(True)
        self.src.setEditText(project.src_lang)
        self.tgt.setEditText(project.tgt_lang)
        self.target = QLineEdit(self)
        self.target.setPlaceholderText("the project's TM — or a folder, or postgresql://host:port/db?tm=NAME")
        self.target.setToolTip("Where the units go: empty for the project's writable TM, or another TM — a "
                               "folder, or a shared TM on PostgreSQL (credentials from PGUSER/PGPASSWORD, "
                               "~/.pgpass or a service file; never stored in the project). Created when missing.")
        writable = tm_service.writable_info() if tm_service is not None else None
        if writable is not None:
            self.target.setText(str(writable.path))
        self.list_it = QCheckBox("Search this TM in the project (add it to the project's TMs)", self)
        self.list_it.setChecked(True)
        self.target.textChanged.connect(self._target_changed)
        self._target_changed()
        self.dry_button = QPushButton("Dry run", self)
        self.dry_button.clicked.connect(self.start_dry_run)
        self.import_button = QPushButton("Import", self)
        self.import_button.setEnabled(False)
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.cancel)
        self.summary = QLabel("Choose a file, then run a dry run.", self)
        self.summary.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1)
        self.errors = QPlainTextEdit(self)
        self.errors.setReadOnly(True)
        self.errors.setPlaceholderText("Units that cannot be imported are listed here, with the reason.")
        form = QFormLayout()
        form.addRow("File", row)
        form.addRow(f"File language → {project.src_lang}", self.src)
        form.addRow(f"File language → {project.tgt_lang}", self.tgt)
        form.addRow("Into TM", self.target)
        form.addRow("", self.list_it)
        buttons = QDialogButtonBox(self)
        buttons.addButton(self.dry_button, QDialogButtonBox.ActionRole)
        buttons.addButton(self.import_button, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.cancel_button, QDialogButtonBox.RejectRole)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.summary)
        lay.addWidget(self.progress)
        lay.addWidget(self.errors, 1)
        lay.addWidget(buttons)

    # -- steps ----------------------------------------------------------------------
    def _browse(self) -> None:
        p, _ = QFileDialog.getOpenFileName(self, "TM file", "", FILE_FILTER)
        if p:
            self.set_file(Path(p))

    def set_file(self, path: Path) -> None:
        self.path.setText(str(path))
        self.start_dry_run()

    def target_ref(self) -> Path | str | None:
        """The TM typed in "Into TM" (a folder or a URL), or None for the project's writable TM."""
        text = self.target.text().strip()
        info = self.tm.writable_info() if self.tm is not None else None
        if not text or (info is not None and text == str(info.path)):
            return None
        return tm_ref(text)

    def _target_changed(self) -> None:
        ref = self.target_ref() if self.tm is not None else None
        self.list_it.setVisible(ref is not None and not self.tm.lists(ref))

    def langs(self) -> tuple[str, str]:
        return normalize_lang(self.src.currentText()), normalize_lang(self.tgt.currentText())

    def start_dry_run(self) -> None:
        path = Path(self.path.text())
        src, tgt = self.langs()
        self.import_button.setEnabled(False)
        self.summary.setText("Reading the file (dry run)…")
        self.progress.setRange(0, 0)
        w = Worker(dry_run, path, src, tgt)
        w.signals.result.connect(self._dry_done)
        w.signals.error.connect(self._failed)
        w.signals.progress.connect(lambda ev: self.summary.setText(f"Reading… {ev.get('units', 0)} units"))
        self._job = start(w)

    def _dry_done(self, rep: TmFileSurvey) -> None:
        self._job = None
        self.report = rep
        self.progress.setRange(0, max(1, rep.usable))
        self.progress.setValue(0)
        src, tgt = self.langs()
        found = ", ".join(f"{k} ({n})" for k, n in sorted(rep.languages.items(), key=lambda kv: -kv[1]))
        for combo in (self.src, self.tgt):
            cur = combo.currentText()
            combo.clear()
            combo.addItems(sorted(rep.languages))
            combo.setEditText(cur)
        hint = ""
        if rep.units and not rep.usable:
            hint = (" None has both languages: pick the file's codes that mean "
                    f"{self.project.src_lang} and {self.project.tgt_lang} above and run the dry run again.")
        self.summary.setText(
            f"Dry run: {rep.units} units read, {rep.usable} can be imported ({src} → {tgt}), "
            f"{rep.skipped} would be skipped. Languages in the file: {found or 'none'}.{hint}"
            + (f"\nThe file cannot be read to the end: {rep.fatal}" if rep.fatal else ""))
        self.errors.setPlainText("\n".join(rep.problems))
        self.import_button.setEnabled(rep.usable > 0 and not rep.fatal)

    def start_import(self) -> None:
        if self.tm is None:
            return
        path = Path(self.path.text())
        file_src, file_tgt = self.langs()
        src, tgt = self.project.src_lang, self.project.tgt_lang
        ref = self.target_ref()
        if ref is not None and not is_tm_url(str(ref)) and Path(ref).exists() and not Path(ref).is_dir():
            self._failed(f"{ref}: not a folder (a TM is a folder or a postgresql:// URL)")
            return
        list_it = ref is not None and not self.list_it.isHidden() and self.list_it.isChecked()
        if ref is None:
            self.tm.ensure_writable(self.project)
        self.import_button.setEnabled(False)
        self.dry_button.setEnabled(False)
        self.summary.setText("Importing…")
        total = max(1, self.report.usable if self.report is not None else 1)
        self.progress.setRange(0, total)

        def job(control):
            problems: list[str] = []

            def units():
                for i, u in enumerate(remapped(read_tm_file(path, src_lang=file_src, tgt_lang=file_tgt,
                                                            problems=problems), file_src, file_tgt, src, tgt)):
                    control.check()  # cancel: the import transaction rolls back
                    if i % 200 == 0:
                        control.progress(units=i)
                    yield u

            if ref is None:
                return self.tm.writable().import_units(units(), src_lang=src, tgt_lang=tgt, origin=path.name,
                                                       problems=problems)
            with open_for_import(ref, src_lang=src, tgt_lang=tgt) as tm:  # nothing left if it fails
                return tm.import_units(units(), src_lang=src, tgt_lang=tgt, origin=path.name,
                                       problems=problems)

        def imported(res) -> None:
            if list_it:
                self.tm.add_tm(self.project, ref)
                self.list_it.setVisible(False)
            self._imported(res)
            if ref is not None:
                from engine.tm.pg import redact

                shown = redact(str(ref)) if is_tm_url(str(ref)) else str(ref)
                self.summary.setText(f"{self.summary.text()} Into {shown}"
                                     + (", now one of the project's TMs." if list_it else "."))

        self._job = self.tm.run(job, on_result=imported, on_error=self._failed,
                                on_progress=lambda ev: self.progress.setValue(min(total, ev.get("units", 0))))
        self._job.signals.cancelled.connect(self._cancelled)

    def _imported(self, res) -> None:
        self._job = None
        self.result = res
        self.progress.setValue(self.progress.maximum())
        self.summary.setText(f"Imported: {res.added} added, {res.updated} updated (already there), "
                             f"{res.skipped} skipped.")
        self.errors.setPlainText("\n".join(res.errors))
        self.cancel_button.setText("Close")
        self.dry_button.setEnabled(True)
        self.finished_import.emit(res)

    def _failed(self, msg: str) -> None:
        self._job = None
        self.progress.setRange(0, 1)
        self.summary.setText(f"Nothing was imported: {msg}")
        self.dry_button.setEnabled(True)

    def _cancelled(self) -> None:
        self._job = None
        self.summary.setText("Cancelled: the TM is unchanged.")
        self.dry_button.setEnabled(True)

    def busy(self) -> bool:
        return self._job is not None

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
        else:
            self.reject()
