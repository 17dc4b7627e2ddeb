"""Memory ▸ Import TM… takes a Trados Studio translation memory (.sdltm) like a TMX: the file dialog offers
it, the dry run counts its units, the import runs off the UI thread and the units are then matched."""
from __future__ import annotations

import sys

from PySide6.QtCore import QThread

from app.dialogs import import_tm
from datafiles import ROOT
from editor_helpers import make_project
from test_dialogs import units_in
from test_editor import open_window, wait_matches

sys.path.insert(0, str(ROOT / "tests" / "packages"))
from trados import write_sdltm  # noqa: E402

PAIRS = [("Open the red album.", "Öffnen Sie das rote Album."),
         ("Close the window.", "Schließen Sie das Fenster."),
         ("Save the file.", "Speichern Sie die Datei.")]


def test_the_file_dialog_offers_trados_sdltm_files():
    assert "*.sdltm" in import_tm.FILE_FILTER.split(";;")[0]


def test_a_trados_sdltm_is_dry_run_and_imported_off_the_ui_thread(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", ["Open the blue album.", "Close the door."])
    sdltm = write_sdltm(tmp_path / "Client.sdltm", PAIRS, src="en-US", tgt="de-DE")
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    read_on = []
    real_read = import_tm.read_tm_file

    def spy(*a, **kw):
        read_on.append(QThread.currentThread() is qtbot_app_thread)
        return real_read(*a, **kw)

    qtbot_app_thread = QThread.currentThread()
    monkeypatch.setattr(import_tm, "read_tm_file", spy)
    dlg = win.memory.import_tm_dialog()
    qtbot.addWidget(dlg)
    dlg.set_file(sdltm)
    qtbot.waitUntil(lambda: dlg.report is not None, timeout=30_000)
    assert dlg.report.fatal is None, dlg.report
    assert dlg.report.units == 3 and dlg.report.usable == 3
    assert "3 can be imported" in dlg.summary.text()
    assert dlg.import_button.isEnabled()
    dlg.start_import()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
    assert dlg.result.added == 3
    assert read_on and not any(read_on)      # neither the dry run nor the import read on the UI thread
    assert units_in(folder / "tm") == 3
    win.nav.go_to(1)
    qtbot.waitUntil(lambda: win.shown_for.get("matches") == 1, timeout=30_000)
    win.nav.go_to(0)
    wait_matches(qtbot, win, 0)
    assert win.matches.matches[0].match.target.text == "Öffnen Sie das rote Album."
