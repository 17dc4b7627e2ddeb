"""Glossary ▸ Import Glossary: a TBX, CSV/TSV (OmegaT's too) or Excel .xlsx glossary file into
the project's own glossary (``PROJECT/glossary``, made when the project has none) or another
glossary folder, which is then listed in the project.

1. pick a file; 2. a dry run reads it in the background: the entries found, the file's
languages, the rows it would skip and why -- a file of another language pair than the
project's is refused in one line; 3. the import, in the background with progress, is one
transaction (the same engine calls as ``verso glossary import``): Cancel leaves the glossary as
it was, and a glossary the import was creating is not left behind.  The dialog is the view;
:class:`app.controllers.glossary.GlossaryController` lists the glossary and reloads the terms.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
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

from engine.errors import VersoError
from engine.glossary import Glossary, GlossaryError, GlossaryFile, ImportResult, read_glossary_file
from engine.langs import pair_text, same_language

from app.workers import Worker, start

FILE_FILTER = "Glossaries (*.tbx *.csv *.tsv *.txt *.utf8 *.xlsx);;All files (*)"


@dataclass(frozen=True)
class GlossaryDryRun:
    """What a dry run found: the file read for the project's pair (None when it cannot be), or
    ``refused``, one line saying why it cannot be imported."""

    file: GlossaryFile | None
    refused: str = ""


def one_line(e: BaseException) -> str:
    return (str(e) or type(e).__name__).splitlines()[0]


def dry_run(control, path: Path, src: str, tgt: str) -> GlossaryDryRun:
    """Read ``path`` for the pair ``src`` -> ``tgt`` without importing it."""
    try:
        gf = read_glossary_file(path, src_lang=src, tgt_lang=tgt)
    except VersoError as e:
        control.check()
        try:  # the file's own pair says why better than "no target terms in de"
            own = read_glossary_file(path)
        except (VersoError, OSError):
            return GlossaryDryRun(None, one_line(e))
        if own.src_lang and own.tgt_lang and not (same_language(own.src_lang, src)
                                                  and same_language(own.tgt_lang, tgt)):
            return GlossaryDryRun(own, f"{path.name} is a {pair_text(own.src_lang, own.tgt_lang)} glossary; "
                                       f"this project is {pair_text(src, tgt)}")
        return GlossaryDryRun(None, one_line(e))
    except OSError as e:
        return GlossaryDryRun(None, f"{path.name}: {e.strerror or e}")
    control.check()
    if not gf.entries:
        return GlossaryDryRun(gf, f"{path.name}: no entry for {pair_text(src, tgt)} in the file")
    return GlossaryDryRun(gf)


def import_file(control, gf: GlossaryFile, folder: Path, origin: str) -> ImportResult:
    """Store ``gf``'s entries in the glossary ``folder`` (made when missing) in one transaction;
    cancelled (``control``) or refused, the glossary is as it was and a new one is removed."""
    from engine.fsutil import remove_created_store

    folder_existed, new = folder.exists(), not Glossary.exists(folder)
    total = len(gf.entries)

    def entries():
        for i, e in enumerate(gf.entries):
            if i % 200 == 0:
                control.check()  # Cancel: the transaction rolls back
                control.progress(done=i, total=total)
            yield e

    try:
        with Glossary(folder, create=True) as g:
            if g.src_lang and not (same_language(g.src_lang, gf.src_lang) and same_language(g.tgt_lang, gf.tgt_lang)):
                raise GlossaryError(f"{folder.name} is a {pair_text(g.src_lang, g.tgt_lang)} glossary; the file "
                                    f"is {pair_text(gf.src_lang, gf.tgt_lang)}")
            return g.import_entries(entries(), src_lang=gf.src_lang, tgt_lang=gf.tgt_lang, origin=origin,
                                    problems=gf.problems)
    except BaseException:
        if new:
            remove_created_store(folder, folder_existed, Glossary.DB_NAME)
        raise


class ImportGlossaryDialog(QDialog):
    """File, "Into glossary" (the project's glossaries, or a folder typed or chosen), Dry run,
    Import, Cancel.  ``imported(folder, ImportResult)`` once the entries are stored."""

    imported = Signal(object, object)

    def __init__(self, parent, *, src_lang: str, tgt_lang: str, folders: list[Path], default: Path):
        super().__init__(parent)
        self.setWindowTitle("Import Glossary")
        self.resize(640, 440)
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.report: GlossaryDryRun | None = None
        self.result: ImportResult | None = None
        self._job: Worker | None = None
        self.path = QLineEdit(self)
        browse = QPushButton("&Browse…", self)
        browse.clicked.connect(self._browse)
        self.into = QComboBox(self)
        self.into.setEditable(True)
        self.into.addItems([str(f) for f in dict.fromkeys([default, *folders])])
        self.into.setEditText(str(default))
        self.into.setToolTip("A glossary folder: the project's own, another one the project lists, or a new "
                             "or existing folder (then listed in the project). Created when missing.")
        choose = QPushButton("F&older…", self)
        choose.clicked.connect(self._choose_folder)
        self.dry_button = QPushButton("&Dry Run", self)
        self.dry_button.clicked.connect(self.start_dry_run)
        self.import_button = QPushButton("&Import", self)
        self.import_button.setEnabled(False)
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.cancel)
        self.summary = QLabel(f"Choose a {pair_text(src_lang, tgt_lang)} glossary file (TBX, CSV/TSV, "
                              "OmegaT .txt or Excel .xlsx); a dry run reads it first.", self)
        self.summary.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1)
        self.problems = QPlainTextEdit(self)
        self.problems.setReadOnly(True)
        self.problems.setPlaceholderText("Rows that cannot be imported are listed here, with the reason.")
        form = QFormLayout()
        form.addRow("&File", _row(self, self.path, browse))
        form.addRow("Into &glossary", _row(self, self.into, choose))
        buttons = QDialogButtonBox(self)
        buttons.addButton(self.dry_button, QDialogButtonBox.ActionRole)
        buttons.addButton(self.import_button, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.cancel_button, QDialogButtonBox.RejectRole)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.summary)
        lay.addWidget(self.progress)
        lay.addWidget(self.problems, 1)
        lay.addWidget(buttons)
        self.path.returnPressed.connect(self.start_dry_run)
        self.path.setFocus()

    def _browse(self) -> None:
        p, _ = QFileDialog.getOpenFileName(self, "Glossary file", "", FILE_FILTER)
        if p:
            self.set_file(Path(p))

    def _choose_folder(self) -> None:
        p = QFileDialog.getExistingDirectory(self, "Glossary folder")
        if p:
            self.into.setEditText(p)

    def set_file(self, path: Path) -> None:
        self.path.setText(str(path))
        self.start_dry_run()

    def folder(self) -> Path:
        return Path(self.into.currentText().strip()).expanduser()

    def busy(self) -> bool:
        return self._job is not None

    # -- the dry run ------------------------------------------------------------------
    def start_dry_run(self) -> None:
        if self._job is not None or not self.path.text().strip():
            return
        path = Path(self.path.text().strip()).expanduser()
        self.report = None
        self.import_button.setEnabled(False)
        self.summary.setText(f"Reading {path.name} (dry run)…")
        self.progress.setRange(0, 0)
        w = Worker(dry_run, path, self.src_lang, self.tgt_lang)
        w.signals.result.connect(self._dry_done)
        w.signals.error.connect(self._failed)
        w.signals.cancelled.connect(lambda: self._stopped("Dry run cancelled."))
        self._job = start(w)

    def _dry_done(self, rep: GlossaryDryRun) -> None:
        self._job = None
        self.report = rep
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        gf = rep.file
        if rep.refused:
            langs = f" Languages in the file: {', '.join(gf.languages)}." if gf is not None and gf.languages else ""
            self.summary.setText(f"Cannot be imported: {rep.refused}.{langs}")
        else:
            self.summary.setText(
                f"Dry run: {len(gf.entries)} entries can be imported ({pair_text(gf.src_lang, gf.tgt_lang)}), "
                f"{len(gf.problems)} rows would be skipped. Languages in the file: "
                f"{', '.join(gf.languages) or 'not named (read as the project’s)'}.")
        self.problems.setPlainText("\n".join(gf.problems) if gf is not None else "")
        self.import_button.setEnabled(not rep.refused)
        if not rep.refused:
            self.import_button.setDefault(True)
            self.import_button.setFocus()

    # -- the import -------------------------------------------------------------------
    def start_import(self) -> None:
        rep = self.report
        if self._job is not None or rep is None or rep.refused or rep.file is None:
            return
        folder = self.folder()
        if folder.exists() and not folder.is_dir():
            self._failed(f"{folder}: not a folder (a glossary is a folder)")
            return
        self.import_button.setEnabled(False)
        self.dry_button.setEnabled(False)
        self.summary.setText(f"Importing {len(rep.file.entries)} entries into {folder}…")
        self.progress.setRange(0, max(1, len(rep.file.entries)))
        w = Worker(import_file, rep.file, folder, Path(self.path.text()).name)
        w.signals.progress.connect(lambda ev: self.progress.setValue(ev.get("done", 0)))
        w.signals.result.connect(lambda res: self._imported(folder, res))
        w.signals.error.connect(self._failed)
        w.signals.cancelled.connect(lambda: self._stopped("Cancelled: the glossary is unchanged."))
        self._job = start(w)

    def _imported(self, folder: Path, res: ImportResult) -> None:
        self._job = None
        self.result = res
        self.progress.setValue(self.progress.maximum())
        self.summary.setText(f"Imported into {folder}: {res.added} added, {res.updated} updated (already "
                             f"there), {res.skipped} skipped.")
        self.problems.setPlainText("\n".join(res.problems))
        self.cancel_button.setText("Close")
        self.cancel_button.setFocus()
        self.dry_button.setEnabled(True)
        self.imported.emit(folder, res)

    def _failed(self, msg: str) -> None:
        self._stopped(f"Nothing was imported: {msg.splitlines()[0] if msg else msg}")

    def _stopped(self, text: str) -> None:
        self._job = None
        self.progress.setRange(0, 1)
        self.summary.setText(text)
        self.dry_button.setEnabled(True)
        self.import_button.setEnabled(self.report is not None and not self.report.refused)

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
        else:
            self.reject()

    def reject(self) -> None:  # Escape cancels a running job first
        if self._job is not None:
            self._job.cancel()
        else:
            super().reject()


def _row(parent, *widgets) -> QWidget:
    row = QWidget(parent)
    h = QHBoxLayout(row)
    h.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        h.addWidget(w, 1 if w is widgets[0] else 0)
    return row
