"""File ▸ Import Document asks whether a document's tracked changes are accepted or refused."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel

from app.dialogs.import_doc import TrackedChangesDialog
from app.main_window import MainWindow
from editor_helpers import make_project
from engine.formats.revmarks import TrackedChanges
from engine.store import Project
from formats.docfiles import make_docx, make_odt

CHANGED = ('<w:p><w:r><w:t xml:space="preserve">The </w:t></w:r>'
           '<w:del w:id="1" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del>'
           '<w:ins w:id="2" w:author="A"><w:r><w:t>new</w:t></w:r></w:ins>'
           '<w:r><w:t xml:space="preserve"> text.</w:t></w:r></w:p>')

#: the same changes in an OpenDocument text, as LibreOffice writes them
ODT_CHANGED = ('<text:tracked-changes><text:changed-region text:id="ct1"><text:deletion><office:change-info>'
               "<dc:creator>A</dc:creator><dc:date>2024-01-01T00:00:00</dc:date></office:change-info>"
               '<text:p>old</text:p></text:deletion></text:changed-region><text:changed-region text:id="ct2">'
               "<text:insertion><office:change-info><dc:creator>A</dc:creator><dc:date>2024-01-01T00:00:00"
               "</dc:date></office:change-info></text:insertion></text:changed-region></text:tracked-changes>"
               '<text:p>The <text:change text:change-id="ct1"/><text:change-start text:change-id="ct2"/>new'
               '<text:change-end text:change-id="ct2"/> text.</text:p>')


def _changed(tmp_path, ext: str) -> Path:
    if ext == "odt":
        return make_odt(tmp_path / "changed.odt", ODT_CHANGED)
    return make_docx(tmp_path / "changed.docx", CHANGED)


def _window(qtbot, tmp_path) -> MainWindow:
    w = MainWindow(Project.open(make_project(tmp_path / "p", ["First sentence."], tm=False)), nmt=False)
    qtbot.addWidget(w)
    w.show()
    return w


def _answer(button: str, seen: list) -> None:
    """Once the dialog is up, record it and press ``button`` (accept_button, refuse_button, or None: cancel)."""
    def press():
        dlg = QApplication.activeModalWidget()
        if not isinstance(dlg, TrackedChangesDialog):
            QTimer.singleShot(20, press)
            return
        seen.append(dlg)
        getattr(dlg, button).click() if button else dlg.reject()
    QTimer.singleShot(0, press)


def _sources(win) -> list[str]:
    return [win.model.segment(r).source.plain() for r in range(win.model.rowCount())]


@pytest.mark.parametrize("ext, button, text, fmt", [
    ("docx", "accept_button", "The new text.", "docx"),
    ("docx", "refuse_button", "The old text.", "docx-reject"),
    ("odt", "accept_button", "The new text.", "odf"),
    ("odt", "refuse_button", "The old text.", "odt-reject"),
])
def test_the_translator_chooses_accepted_or_refused_changes(qtbot, tmp_path, ext, button, text, fmt):
    win = _window(qtbot, tmp_path)
    doc = _changed(tmp_path, ext)
    seen: list = []
    _answer(button, seen)
    assert win.documents.import_document(doc) is not None
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == doc.name, timeout=30_000)
    assert len(seen) == 1
    assert _sources(win) == [text]
    assert win.project.document(doc.name).format == fmt


@pytest.mark.parametrize("ext", ["docx", "odt"])
def test_cancel_stores_nothing(qtbot, tmp_path, ext):
    win = _window(qtbot, tmp_path)
    seen: list = []
    _answer(None, seen)
    assert win.documents.import_document(_changed(tmp_path, ext)) is None
    assert len(seen) == 1
    assert [d.name for d in win.project.documents()] == ["p-doc.txt"]
    assert "cancelled" in win.statusBar().currentMessage()


def test_a_document_without_tracked_changes_asks_nothing(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(TrackedChangesDialog, "exec", lambda self: pytest.fail("asked without tracked changes"))
    win = _window(qtbot, tmp_path)
    doc = make_docx(tmp_path / "plain.docx", '<w:p><w:r><w:t>Plain text.</w:t></w:r></w:p>')
    win.documents.import_document(doc)
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "plain.docx", timeout=30_000)
    assert _sources(win) == ["Plain text."]
    odt = make_odt(tmp_path / "plain.odt", "<text:p>Plain text too.</text:p>")
    win.documents.import_document(odt)
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "plain.odt", timeout=30_000)
    assert _sources(win) == ["Plain text too."]


def test_the_dialog_names_the_file_and_counts(qtbot):
    dlg = TrackedChangesDialog(None, "a<b>.docx", TrackedChanges(insertions=2, deletions=1))
    qtbot.addWidget(dlg)
    text = dlg.findChild(QLabel).text()
    assert "a&lt;b&gt;.docx" in text and "2 insertion(s), 1 deletion(s)" in text


def test_unreadable_file_is_left_to_the_import(tmp_path):
    from app.dialogs.import_doc import format_for

    bad = Path(tmp_path / "broken.docx")
    bad.write_bytes(b"PK\x03\x04 broken")
    assert format_for(None, bad) is None
    odt = make_odt(tmp_path / "broken.odt", ODT_CHANGED)
    with open(odt, "r+b") as fh:  # the central directory cut off: still detected as ODF, not readable
        fh.truncate(odt.stat().st_size - 30)
    assert format_for(None, odt) is None
