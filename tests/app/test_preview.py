"""File ▸ Preview: the translation exported to a temporary file and opened with the desktop's
application (DOCX, ...) or rendered in a panel (HTML, Markdown); the user's files untouched."""
from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtGui import QDesktopServices

from app.main_window import MainWindow
from app.preview import PreviewPanel
from engine.formats import read_document
from engine.inline import TaggedText
from engine.store import Project
from formats.docfiles import make_docx

DOCX_BODY = ('<w:p><w:r><w:t xml:space="preserve">Open the file. </w:t></w:r>'
             '<w:r><w:rPr><w:b/></w:rPr><w:t>Save</w:t></w:r><w:r><w:t xml:space="preserve"> it now.</w:t></w:r></w:p>'
             "<w:p><w:r><w:t>Close the window.</w:t></w:r></w:p>")
TRANSLATED = {"Open the file.": "Öffnen Sie die Datei.", "Close the window.": "Schließen Sie das Fenster."}


def _project(tmp_path: Path, original: Path) -> tuple[Path, int]:
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(original)
        updates = []
        for s in p.segments(doc):
            plain = s.source.text
            if plain in TRANSLATED:
                updates.append((s.id, TaggedText(TRANSLATED[plain], s.source.tags)))
            elif "Save" in s.source.plain():   # "<b>Save</b> it now." keeps its tags
                updates.append((s.id, TaggedText(s.source.text.replace("Save", "Speichern")
                                                 .replace(" it now.", " Sie sie jetzt."), s.source.tags)))
        p.set_targets(updates, status="confirmed")
    return folder, doc


def _window(qtbot, folder: Path) -> MainWindow:
    w = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(w)
    w.show()
    return w


def _record_opens(monkeypatch) -> list:
    opened: list = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    return opened


def _preview(qtbot, win: MainWindow) -> Path:
    w = win.delivery.preview_document()
    assert w is not None
    qtbot.waitUntil(lambda: win.delivery.previewer.last_path is not None or "failed" in win.statusBar().currentMessage(),
                    timeout=30_000)
    assert win.delivery.previewer.last_path is not None, win.statusBar().currentMessage()
    return win.delivery.previewer.last_path


def test_docx_preview_exports_to_a_temporary_file_and_opens_it(qtbot, tmp_path, monkeypatch):
    original = make_docx(tmp_path / "manual.docx", DOCX_BODY)
    before = original.read_bytes()
    folder, doc = _project(tmp_path, original)
    with Project.open(folder) as p:
        target = p.default_export_path(doc)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"the translator's own export")
    opened = _record_opens(monkeypatch)
    win = _window(qtbot, folder)
    path = _preview(qtbot, win)

    assert len(opened) == 1 and Path(opened[0].toLocalFile()) == path
    assert path.name == "manual.de.docx"
    assert Path(tempfile.gettempdir()) in path.parents and folder not in path.parents
    again = read_document(path, src_lang="en")
    assert [s.source.plain() for s in again.segments] == [
        "Öffnen Sie die Datei.", "Speichern Sie sie jetzt.", "Schließen Sie das Fenster."]
    assert again.segments[1].source.tags, "the bold run stays a pair of codes"
    assert original.read_bytes() == before
    assert target.read_bytes() == b"the translator's own export"
    assert "Preview of manual.docx" in win.statusBar().currentMessage()
    assert win.delivery.previewer.panel is None


def test_a_second_preview_is_a_new_file(qtbot, tmp_path, monkeypatch):
    folder, _ = _project(tmp_path, make_docx(tmp_path / "manual.docx", DOCX_BODY))
    opened = _record_opens(monkeypatch)
    win = _window(qtbot, folder)
    first = _preview(qtbot, win)
    win.delivery.previewer.last_path = None
    second = _preview(qtbot, win)
    assert first != second and first.exists() and second.exists() and len(opened) == 2


def test_markdown_preview_renders_the_translation_in_a_panel(qtbot, tmp_path, monkeypatch):
    original = tmp_path / "guide.md"
    original.write_text("# Title\n\nOpen the file. Close the window.\n\n* **Save** it now.\n", encoding="utf-8")
    before = original.read_bytes()
    folder, _ = _project(tmp_path, original)
    opened = _record_opens(monkeypatch)
    win = _window(qtbot, folder)
    path = _preview(qtbot, win)

    panel = win.delivery.previewer.panel
    assert isinstance(panel, PreviewPanel) and panel.isVisible()
    text = panel.text()
    assert "Öffnen Sie die Datei. Schließen Sie das Fenster." in text
    assert "Speichern Sie sie jetzt." in text and "Title" in text
    assert "**" not in text and "#" not in text, "Markdown is rendered, not shown as source"
    assert opened == []
    panel.open_button.click()
    assert [Path(u.toLocalFile()) for u in opened] == [path]
    assert original.read_bytes() == before


def test_html_preview_renders_the_translation_in_a_panel(qtbot, tmp_path, monkeypatch):
    original = tmp_path / "page.html"
    original.write_text("<html><body><h1>Title</h1><p>Open the file. Close the window.</p>"
                        "<p><b>Save</b> it now.</p><script>var x = 1;</script></body></html>", encoding="utf-8")
    before = original.read_bytes()
    folder, _ = _project(tmp_path, original)
    opened = _record_opens(monkeypatch)
    win = _window(qtbot, folder)
    _preview(qtbot, win)

    text = win.delivery.previewer.panel.text()
    assert "Öffnen Sie die Datei. Schließen Sie das Fenster." in text
    assert "Speichern Sie sie jetzt." in text
    assert "var x" not in text
    assert opened == [] and original.read_bytes() == before


def test_a_failed_preview_is_one_line_in_the_status_bar(qtbot, tmp_path, monkeypatch):
    folder, doc = _project(tmp_path, make_docx(tmp_path / "manual.docx", DOCX_BODY))
    with Project.open(folder) as p:
        (folder / p.document(doc).original).write_bytes(b"PK\x03\x04 not a zip any more")
    opened = _record_opens(monkeypatch)
    win = _window(qtbot, folder)
    win.delivery.preview_document()
    qtbot.waitUntil(lambda: "Preview failed" in win.statusBar().currentMessage(), timeout=30_000)
    msg = win.statusBar().currentMessage()
    assert "\n" not in msg and "zip" in msg
    assert opened == []
