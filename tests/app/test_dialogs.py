"""Import TMX (dry run, broken unit, cancel), QA check, statistics, TM export."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from PySide6.QtCore import Qt

from app.dialogs.import_tm import ImportTMDialog
from engine.formats.tmfiles import TmFileSurvey, read_tm_file
from engine.tm import TranslationMemory

from editor_helpers import hold_jobs, make_project
from test_editor import open_window, wait_matches

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en-GB" datatype="plaintext" segtype="sentence" adminlang="en"
 creationtool="t" creationtoolversion="1" o-tmf="t"/><body>
<tu><tuv xml:lang="en-GB"><seg>Open the red album.</seg></tuv><tuv xml:lang="de-DE"><seg>Öffnen Sie das rote Album.</seg></tuv></tu>
<tu><tuv xml:lang="en-GB"><seg>This unit has no translation.</seg></tuv></tu>
<tu><tuv xml:lang="en-GB"><seg>Close the window.</seg></tuv><tuv xml:lang="de-DE"><seg>Schließen Sie das Fenster.</seg></tuv></tu>
</body></tmx>
"""


def units_in(tm_dir: Path) -> int:
    with TranslationMemory(tm_dir) as tm:
        return len(tm)


def test_import_tmx_with_a_broken_unit_maps_languages_and_reports_it(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the blue album.", "Close the door."])
    tmx = tmp_path / "mem.tmx"
    tmx.write_text(TMX, encoding="utf-8")
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    dlg = win.memory.import_tm_dialog()
    qtbot.addWidget(dlg)
    # The file says en-GB/de-DE, the project en/de: the dialog maps them.
    dlg.src.setEditText("en-GB")
    dlg.tgt.setEditText("de-DE")
    dlg.set_file(tmx)
    qtbot.waitUntil(lambda: dlg.report is not None, timeout=30_000)
    assert dlg.report.units == 3 and dlg.report.usable == 2
    assert set(dlg.report.languages) == {"en-GB", "de-DE"}
    assert "2 can be imported" in dlg.summary.text()
    assert dlg.import_button.isEnabled()
    dlg.start_import()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
    res = dlg.result
    assert (res.added, res.skipped) == (2, 1)
    assert len(res.errors) == 1 and "TU 2" in res.errors[0] and "line 5" in res.errors[0]
    assert dlg.errors.toPlainText() == res.errors[0]
    assert units_in(folder / "tm") == 2
    # Stored under the project's languages, so the next lookup finds it.
    win.nav.go_to(1)
    qtbot.waitUntil(lambda: win.shown_for.get("matches") == 1, timeout=30_000)
    win.nav.go_to(0)
    wait_matches(qtbot, win, 0)
    assert win.matches.matches and win.matches.matches[0].match.target.text == "Öffnen Sie das rote Album."


def test_cancelled_import_leaves_the_tm_unchanged(qtbot, tmp_path, monkeypatch):
    folder = make_project(tmp_path / "p", ["Open the blue album."])
    big = tmp_path / "big.tmx"
    tus = "".join(f'<tu><tuv xml:lang="en"><seg>Sentence number {i} about albums.</seg></tuv>'
                  f'<tuv xml:lang="de"><seg>Satz Nummer {i} über Alben.</seg></tuv></tu>\n' for i in range(3000))
    big.write_text(f'<?xml version="1.0"?><tmx version="1.4"><header srclang="en" datatype="plaintext" '
                   f'segtype="sentence" adminlang="en" creationtool="t" creationtoolversion="1" o-tmf="t"/>'
                   f'<body>{tus}</body></tmx>', encoding="utf-8")
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    dlg = ImportTMDialog(win, win.project, win.tm)
    qtbot.addWidget(dlg)
    dlg.path.setText(str(big))
    dlg.report = TmFileSurvey(units=3000, usable=3000, languages={"en": 3000, "de": 3000}, problems=())
    progressed = []
    gate = hold_jobs(monkeypatch)   # the import cannot end before the test listens to its progress
    dlg.start_import()
    dlg._job.signals.progress.connect(lambda ev: progressed.append(ev) or dlg.cancel())
    gate.set()
    qtbot.waitUntil(lambda: not dlg.busy(), timeout=30_000)
    assert dlg.result is None and "unchanged" in dlg.summary.text()
    assert units_in(folder / "tm") == 0


def test_qa_finds_a_missing_tag_and_goes_to_the_segment(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)  # confirm despite the tag
    folder = make_project(tmp_path / "p", ["Fine.", "Click <b>Save</b> now."], tm=False)
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Gut.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    qtbot.keyClicks(win.editor(), "Klicken Sie jetzt auf <b>Speichern.")  # the closing tag is missing
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    win.nav.go_to(0)
    dlg = win.delivery.qa_dialog()
    qtbot.addWidget(dlg)
    missing = [i for i in dlg.issues if i.check == "missing-tag"]
    assert len(missing) == 1 and missing[0].idx == 1 and "</b>" in missing[0].message
    dlg.activate(dlg.issues.index(missing[0]))
    assert win.current_row() == 1
    # A check turned off is off for this project, and stays so.
    dlg.boxes["tags"].setChecked(False)
    assert not any(i.check == "missing-tag" for i in dlg.issues)
    assert "tags" not in win.project.qa_options().enabled


def test_statistics_bands_match_the_tm_panel_and_export_csv(qtbot, demo_dir, tmp_path):
    win = open_window(qtbot, demo_dir)
    wait_matches(qtbot, win, 0)
    dlg = win.delivery.statistics_dialog()
    qtbot.addWidget(dlg)
    qtbot.waitUntil(lambda: bool(dlg.analyses), timeout=30_000)
    a = dlg.analyses[0]
    segs = win.model.segments()
    assert a.total.segments == len(segs)
    # Recount one band from the TM search itself: the same score the panel shows.
    from engine.stats import band_of

    with TranslationMemory(demo_dir / "tm") as tm:
        bands = [band_of(m[0].score if (m := tm.search(s.source, k=1, min_score=0.3)) else None) for s in segs]
    assert a.rows["no match"].segments == sum(b == "no match" for b in bands) - a.rows["repetitions"].segments
    out = tmp_path / "stats.csv"
    dlg.export(out)
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0] == ["document", "band", "segments", "words"]
    assert [r for r in rows if r[1] == "total"][0][2] == str(len(segs))


def test_export_tm_as_tmx_round_trips(qtbot, demo_dir, tmp_path):
    from app.dialogs.export_tm import export_tm

    win = open_window(qtbot, demo_dir)
    wait_matches(qtbot, win, 0)
    out = tmp_path / "out.tmx"
    export_tm(win, win.tm, out)
    qtbot.waitUntil(out.exists, timeout=30_000)
    units = list(read_tm_file(out, src_lang="en", tgt_lang="de"))
    assert len(units) == units_in(demo_dir / "tm")


def test_settings_keep_the_minimum_match_the_nmt_reads(qtbot):
    """Settings -> "Minimum match the NMT reads": starts at the engine's default, is kept in percent."""
    from app.dialogs.settings import SettingsDialog
    from app.main_window import settings
    from engine.nmt.retrieval import MEMORY_MIN_SCORE

    dlg = SettingsDialog()
    qtbot.addWidget(dlg)
    assert dlg.memory_min.value() == round(MEMORY_MIN_SCORE * 100)
    dlg.memory_min.setValue(75)
    dlg.accept()
    assert int(settings().value("nmt/memory_min_score")) == 75
    again = SettingsDialog()
    qtbot.addWidget(again)
    assert again.memory_min.value() == 75


def test_importing_the_demo_tmx_again_updates_instead_of_duplicating(qtbot, demo_dir):
    """The demo TM holds memory.tmx under en-US/de-DE; importing the same file from the
    dialog (mapped to the project's codes) says "0 added" and no match appears twice."""
    before = units_in(demo_dir / "tm")
    win = open_window(qtbot, demo_dir)
    wait_matches(qtbot, win, 0)
    dlg = win.memory.import_tm_dialog()
    qtbot.addWidget(dlg)
    dlg.set_file(Path(__file__).resolve().parents[2] / "resources" / "demo" / "memory.tmx")
    qtbot.waitUntil(lambda: dlg.report is not None, timeout=30_000)
    dlg.start_import()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=30_000)
    assert (dlg.result.added, dlg.result.updated) == (0, before)
    assert "0 added" in dlg.summary.text()
    assert units_in(demo_dir / "tm") == before


def test_statistics_do_not_count_my_own_confirmed_segments_as_matches(qtbot, tmp_path):
    """Item 13: the analysis is what a quote is based on -- as if nothing were confirmed --
    and progress is reported apart."""
    folder = make_project(tmp_path / "p", ["Open the blue album now.", "Close the red door slowly.",
                                           "Open the blue album now."])
    win = open_window(qtbot, folder)
    wait_matches(qtbot, win, 0)
    win.editor().replace_text("Öffnen Sie jetzt das blaue Album.")
    win.editing.confirm_and_next()
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    assert units_in(folder / "tm") == 1
    dlg = win.delivery.statistics_dialog()
    qtbot.addWidget(dlg)
    qtbot.waitUntil(lambda: bool(dlg.analyses), timeout=30_000)
    a = dlg.analyses[0]
    assert a.rows["100%"].segments == 0
    assert a.rows["no match"].segments == 2 and a.rows["repetitions"].segments == 1
    p = dlg.progress_rows[0]
    assert p.rows["confirmed"].segments == 1 and p.rows["confirmed"].words == 5
    assert p.rows["new"].segments + p.rows["draft"].segments == 2
