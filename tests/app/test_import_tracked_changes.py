"""File ▸ Import Document asks whether a document's tracked changes are accepted or refused."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel

from app.dialogs.import_doc import TrackedChangesDialog
from app.main_window import MainWindow
from editor_helpers import make_project
from engine.store import Project
from formats.docfiles import make_docx

CHANGED = ('<w:p><w:r><w:t xml:space="preserve">The </w:t></w:r>'
           '<w:del w:id="1" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del>'
           '<w:ins w:id="2" w:author="A"><w:r><w:t>new</w:t></w:r></w:ins>'
           '<w:r><w:t xml:space="preserve"> text.</w:t></w:r></w:p>')


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


@pytest.mark.parametrize("button, text, fmt", [
    ("accept_button", "The new text.", "docx"),
    ("refuse_button", "The old text.", "docx-reject"),
])
def test_the_translator_chooses_accepted_or_refused_changes(qtbot, tmp_path, button, text, fmt):
    win = _window(qtbot, tmp_path)
    doc = make_docx(tmp_path / "changed.docx", CHANGED)
    seen: list = []
    _answer(button, seen)
    assert win.import_document(doc) is not None
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "changed.docx", timeout=30_000)
    assert len(seen) == 1
    assert _sources(win) == [text]
    assert win.project.document("changed.docx").format == fmt


def test_cancel_stores_nothing(qtbot, tmp_path):
    win = _window(qtbot, tmp_path)
    seen: list = []
    _answer(None, seen)
    assert win.import_document(make_docx(tmp_path / "changed.docx", CHANGED)) is None
    assert len(seen) == 1
    assert [d.name for d in win.project.documents()] == ["p-doc.txt"]
    assert "cancelled" in win.statusBar().currentMessage()


def test_a_document_without_tracked_changes_asks_nothing(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(TrackedChangesDialog, "exec", lambda self: pytest.fail("asked without tracked changes"))
    win = _window(qtbot, tmp_path)
    doc = make_docx(tmp_path / "plain.docx", '<w:p><w:r><w:t>Plain text.</w:t></w:r></w:p>')
    win.import_document(doc)
    qtbot.waitUntil(lambda: win.doc_combo.currentText() == "plain.docx", timeout=30_000)
    assert _sources(win) == ["Plain text."]


def test_the_dialog_names_the_file_and_counts(qtbot):
    dlg = TrackedChangesDialog(None, "a<b>.docx", {"insertions": 2, "deletions": 1})
    qtbot.addWidget(dlg)
    text = dlg.findChild(QLabel).text()
    assert "a&lt;b&gt;.docx" in text and "2 insertion(s), 1 deletion(s)" in text


def test_unreadable_file_is_left_to_the_import(tmp_path):
    from app.dialogs.import_doc import format_for

    bad = Path(tmp_path / "broken.docx")
    bad.write_bytes(b"PK\x03\x04 broken")
    assert format_for(None, bad) is None
