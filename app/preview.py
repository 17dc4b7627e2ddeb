"""File ▸ Preview: the current translation as the client will see it.

The engine writes the translated document to a path (the same writer as File ▸ Export);
this module only decides *where* (a private temporary folder of this editor session, never
the user's files nor the export target) and how to show it:

* HTML and Markdown documents are rendered in a panel inside the editor (a
  :class:`QTextBrowser`; Markdown is exported in Markdown first, then turned into HTML with
  markdown-it-py, so the preview shows what the exported file says);
* every document can be opened with the desktop's default application
  (:meth:`QDesktopServices.openUrl`): the panel has a button for that, other formats (DOCX,
  ODF, XLIFF, PO, ...) open there at once.

The translations are read on the UI thread (the preview shows the segments as they were when
the translator asked) and the file is written on a pool thread: a document of 6,000 segments
takes about 1.8 s to write (DOCX, measured), too long to freeze the window.  Failures are one
line in the status bar.  The temporary folder goes when the editor quits; each preview is a
new file in it, so an application still showing the previous one does not stand in the way.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import tempfile
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from engine.formats.base import Translation

#: Formats the editor renders itself; the others open in the desktop's application.
PANEL_FORMATS = ("html", "markdown")
#: The largest exported file rendered in the panel (a QTextBrowser lays out the whole text).
MAX_PANEL_BYTES = 8 << 20


@dataclass
class PreviewJob:
    """What a preview exports: a snapshot of one document's translations."""

    document_id: int
    name: str
    format: str
    original: Path            # the project's kept copy of the imported file (read only)
    translations: dict[str, Translation]
    src_lang: str
    tgt_lang: str
    out: Path                 # in the preview folder
    base: Path | None = None  # where relative links of the imported file pointed (images of an HTML page)
    tag_errors: int = 0


def prepare(project, document_id: int, folder: Path) -> PreviewJob:
    """Snapshot ``document_id`` of ``project`` for a preview written under ``folder``
    (a new sub-folder each time; the file keeps the export's name, ``guide.de.docx``)."""
    info = project.document(document_id)
    out_dir = Path(tempfile.mkdtemp(prefix="p", dir=folder))
    imported = info.meta.get("imported_from")
    return PreviewJob(
        document_id=info.id, name=info.name, format=info.format, original=project.folder / info.original,
        translations=project.translations(info.id), src_lang=info.src_lang, tgt_lang=info.tgt_lang,
        out=out_dir / project.default_export_path(info.id).name,
        base=Path(imported).parent if imported else None,
        tag_errors=len({i.idx for i in project.tag_errors(info.id)}))


def export(job: PreviewJob) -> Path:
    """Write the translated document (runs on a pool thread; engine only)."""
    from engine.formats import write_document

    write_document(job.original, job.out, job.translations, format=job.format, tgt_lang=job.tgt_lang,
                   src_lang=job.src_lang)
    return job.out


def render_html(path: Path, fmt: str) -> str:
    """The HTML the panel shows for an exported HTML or Markdown file."""
    data = Path(path).read_bytes()[:MAX_PANEL_BYTES]
    text = data.decode("utf-8", errors="replace")
    if fmt == "markdown":
        from markdown_it import MarkdownIt

        return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough").render(text)
    return text


def open_with_desktop(path: Path) -> bool:
    """Open ``path`` with the desktop's default application (the one boundary tests replace)."""
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))


class PreviewPanel(QDialog):
    """The translated HTML/Markdown document, rendered; a button opens the file in the
    desktop's application.  Links are not followed (a preview is not a browser)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Preview")
        self.resize(760, 640)
        self.path: Path | None = None
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.open_button = QPushButton("Open in &Default Application", self)
        self.open_button.clicked.connect(self._open)
        buttons = QDialogButtonBox(QDialogButtonBox.Close, self)
        buttons.addButton(self.open_button, QDialogButtonBox.ActionRole)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser)
        lay.addWidget(buttons)

    def show_file(self, path: Path, fmt: str, name: str, base: Path | None = None) -> None:
        self.path = path
        self.setWindowTitle(f"Preview — {name}")
        if base is not None:
            self.browser.setSearchPaths([str(base)])
        self.browser.setHtml(render_html(path, fmt))
        self.show()
        self.raise_()

    def text(self) -> str:
        return self.browser.toPlainText()

    def _open(self) -> None:
        if self.path is not None:
            open_with_desktop(self.path)


class Previewer(QObject):
    """File ▸ Preview for one editor window: ``window`` gives ``project``, the shown
    document (``model.document_id``), ``commit_editor()`` and ``statusBar()``."""

    shown = Signal(object)    # the exported path, once shown or opened
    failed = Signal(str)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._tmp: tempfile.TemporaryDirectory | None = None
        self.panel: PreviewPanel | None = None
        self.worker = None
        self.last_path: Path | None = None

    @property
    def folder(self) -> Path:
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="verso-preview-")
        return Path(self._tmp.name)

    def preview(self):
        """Export the shown document to the preview folder and show it.  Returns the
        :class:`~app.workers.Worker` (tests wait on it), None when there is nothing to show."""
        from app.workers import Worker, start

        win = self.window
        if win.project is None or win.model is None:
            return None
        win.nav.commit_editor()
        try:
            job = prepare(win.project, win.model.document_id, self.folder)
        except Exception as e:  # noqa: BLE001 - one line for the user
            self._fail(e)
            return None
        status = win.statusBar()
        status.showMessage(f"Preparing the preview of {job.name}…")
        w = Worker(lambda control, job=job: export(job))
        w.signals.result.connect(lambda path, job=job: self._exported(job, path))
        w.signals.error.connect(self._fail)
        self.worker = start(w)
        return w

    def _exported(self, job: PreviewJob, path: Path) -> None:
        self.last_path = path
        note = (f" ({job.tag_errors} segment(s) with tag errors shown as they are)" if job.tag_errors else "")
        if job.format in PANEL_FORMATS:
            try:
                if self.panel is None:
                    self.panel = PreviewPanel(self.window)
                self.panel.show_file(path, job.format, job.name, job.base)
            except OSError as e:
                self._fail(e)
                return
            self.window.statusBar().showMessage(f"Preview of {job.name}{note}", 8000)
        elif open_with_desktop(path):
            self.window.statusBar().showMessage(f"Preview of {job.name} opened: {path}{note}", 8000)
        else:
            self._fail(f"no application opens {path.name} (the preview is {path})")
            return
        self.shown.emit(path)

    def _fail(self, error) -> None:
        msg = str(error).strip().splitlines()[0] if str(error).strip() else error.__class__.__name__
        self.window.statusBar().showMessage(f"Preview failed: {msg}", 10000)
        self.failed.emit(msg)
