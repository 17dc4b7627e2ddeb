"""File ▸ Align Documents…, in the editor: the dialog aligns two files off the UI thread and what the
translator chooses lands in the project's TM, origin "aligned"."""
from __future__ import annotations

from PySide6.QtCore import Qt

from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import open_window

EN = "Open the file. Save it often.\n\nArticle 2 sets the fee at 40 euros.\n"
DE = "Öffnen Sie die Datei. Speichern Sie sie oft.\n\nArtikel 2 legt die Gebühr auf 40 Euro fest.\n"


def test_aligned_pairs_go_into_the_projects_tm(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Hello."])
    (tmp_path / "en.txt").write_text(EN, "utf-8")
    (tmp_path / "de.txt").write_text(DE, "utf-8")
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    win.actions_by_id["align_documents"].trigger()
    dlg = win.aligning.dialog
    assert dlg is not None and dlg.isVisible()
    dlg.src_path.setText(str(tmp_path / "en.txt"))
    dlg.tgt_path.setText(str(tmp_path / "de.txt"))
    dlg.use_model.setChecked(False)
    qtbot.mouseClick(dlg.align_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dlg.review.table.rowCount() == 3, timeout=30_000)
    dlg.review.above.setChecked(True)
    dlg.review.threshold.setValue(0.0)
    qtbot.mouseClick(dlg.review.add_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dlg.status.text().startswith("Added"), timeout=30_000)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    win.close()
    with TranslationMemory(folder / "tm", create=False) as tm:
        units = {(u.source.text, u.target.text, u.meta["origin"]) for u in tm.entries()}
    assert ("Article 2 sets the fee at 40 euros.", "Artikel 2 legt die Gebühr auf 40 Euro fest.", "aligned") in units
    assert len(units) == 3
