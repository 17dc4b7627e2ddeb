"""File ▸ Open Package… and File ▸ Create Return Package in the editor (offscreen, the real engine)."""
from __future__ import annotations

import sys
import zipfile

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.main_window import MainWindow
from datafiles import ROOT, data_file
from engine.inline import TaggedText
from editor_helpers import hold_jobs
from engine.store import Project

sys.path.insert(0, str(ROOT / "tests" / "packages"))
from trados import write_sdlppx, write_sdltm  # noqa: E402

SAMPLE = ("format-samples", "okapi", "filters", "xliff", "src", "test", "resources", "test2_es.xlf")


@pytest.fixture
def window(qtbot, tmp_path):
    folder = tmp_path / "empty"
    with Project.create(folder, src_lang="en", tgt_lang="fr"):
        pass
    win = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(win)
    return win


def _open(qtbot, window, pkg, folder):
    w = window.packages.open_package(pkg, folder)
    assert w.wait(60)   # a refused package can end before anyone listens: wait, not waitSignal
    return window.packages.opened


def _package_with_tm(tmp_path, units: int):
    pairs = [(f"Open the file number {i} now", f"Abra el archivo número {i} ahora") for i in range(units)]
    tm = write_sdltm(tmp_path / "Client.sdltm", pairs, src="en-US", tgt="es-ES")
    return write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"es-ES": {"a.sdlxliff": data_file(*SAMPLE).read_bytes()}},
                        extra={"Tm/Client.sdltm": tm.read_bytes()})


def test_a_package_with_a_tm_opens_while_the_editor_keeps_answering_and_shows_progress(qtbot, window, tmp_path):
    pkg = _package_with_tm(tmp_path, 3000)
    labels = []   # what the progress dialog said each time the UI thread's timer fired
    timer = QTimer()
    timer.timeout.connect(lambda: labels.append(window.packages.progress_dialog.labelText()))
    timer.start(20)
    w = window.packages.open_package(pkg, tmp_path / "Acme")
    assert window.packages.opened is None   # open_package returned before the work was done
    assert w.wait(120)
    timer.stop()
    during_tm = {text for text in labels if text.startswith("Importing the TM Tm/Client.sdltm")}
    assert len(during_tm) >= 2   # the timer fired, and the dialog moved on, while the TM imported
    assert window.project.folder == tmp_path / "Acme" and window.packages.opened.tms[0].units == 3000


def test_a_cancelled_package_open_leaves_no_project_and_keeps_the_one_open(qtbot, window, tmp_path, monkeypatch):
    pkg = _package_with_tm(tmp_path, 3000)
    before = window.project.folder
    gate = hold_jobs(monkeypatch)   # the TM cannot be imported before the test listens to its progress
    w = window.packages.open_package(pkg, tmp_path / "Acme")
    w.signals.progress.connect(lambda e: "Importing the TM" in e["text"] and window.packages.progress_dialog.canceled.emit())
    gate.set()
    assert w.wait(120)
    assert not (tmp_path / "Acme").exists() and window.project.folder == before
    assert "no project was made" in window.statusBar().currentMessage()


def test_open_package_makes_the_project_shows_its_instructions_once_and_returns_it(qtbot, window, tmp_path,
                                                                                 monkeypatch):
    pkg = write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"es-ES": {"a.sdlxliff": data_file(*SAMPLE).read_bytes()}})
    opened = _open(qtbot, window, pkg, tmp_path / "Acme")
    assert opened is not None and window.project.folder == tmp_path / "Acme"
    assert window.project.tgt_lang == "es-ES" and len(window.project.documents()) == 1
    text = window.packages.dialog.text.toPlainText()
    assert "Use the client's glossary" in text and "Due: 2026-12-04T16:00:00Z" in text
    n = len(window.project.segments(window.project.documents()[0].id))
    assert f"Document: es-ES/a.sdlxliff ({n} segments)" in text
    seg = next(s for s in window.project.segments(window.project.documents()[0].id) if s.source.tags)
    window.project.confirm(seg.id, TaggedText("sin etiquetas"))
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.No)
    out = tmp_path / "Acme.sdlrpx"
    proposed = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: proposed.append(a[2]) or (str(out), ""))
    window.packages.return_package_dialog()
    assert asked and f"segment(s) {seg.idx + 1}" in asked[0] and not out.exists()   # the export gate held it
    window.project.confirm(seg.id, seg.source)
    window.packages.return_package_dialog()
    with zipfile.ZipFile(out) as z:
        assert z.namelist() == ["Acme manuals.sdlproj", "es-ES/a.sdlxliff"]
    assert proposed[0] == str(tmp_path / "Acme" / "exports" / "Acme.sdlrpx")   # the received name, returned
    assert "(1 file(s))" in window.statusBar().currentMessage()


def test_open_package_refused_says_one_line_and_keeps_the_project(qtbot, window, tmp_path, monkeypatch):
    bad = tmp_path / "bad.sdlppx"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("../x.sdlxliff", "x")
    said = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: said.append(a[2]))
    before = window.project.folder
    assert _open(qtbot, window, bad, tmp_path / "Bad") is None
    assert said and "bad.sdlppx" in said[0] and window.project.folder == before and not (tmp_path / "Bad").exists()


def test_create_return_package_of_a_damaged_record_says_so_in_one_line(qtbot, window, tmp_path, monkeypatch):
    window.project.set_setting("package", '{"kind": "sdlppx", "name": "Acme.sdlppx"}')
    said = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: said.append(a[2]))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: pytest.fail("asked for a file"))
    window.packages.return_package_dialog()
    assert len(said) == 1 and "package record" in said[0] and "\n" not in said[0]
