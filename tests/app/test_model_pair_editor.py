"""Issue 37 item 1 in the editor: an English->French project never shows (or inserts) the German
of the English->German demo model.  The suggestion panel says in one line that there is no model
for the pair and the two ways to get one; Tools > Models shows each model's pair and offers only
the project's for Use."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from engine.resources import resources_dir
from engine.store import Project

DEMO = resources_dir() / "models" / "demo"
SOURCES = ["The file could not be opened.", "Save the document before closing."]


def _project(folder: Path, src: str = "en", tgt: str = "fr") -> Path:
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect

    original = folder.parent / f"{folder.name}-doc.txt"
    original.write_text("\n\n".join(SOURCES), encoding="utf-8")
    segs = [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(SOURCES)]
    with Project.create(folder, src_lang=src, tgt_lang=tgt) as p:
        p.import_parsed(ParsedDocument(original.name, "txt", src, tgt, segs), original)
        p.set_setting("model", str(DEMO))  # remembered from elsewhere, but of another pair
    return folder


@pytest.fixture
def fr_win(qtbot, tmp_path, monkeypatch):
    monkeypatch.delenv("VERSO_MODEL", raising=False)
    w = MainWindow(Project.open(_project(tmp_path / "p")))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w, timeout=30_000)
    return w


def test_an_en_fr_project_gets_no_german_suggestion_and_says_why_in_one_line(qtbot, fr_win):
    win = fr_win
    status = win.suggestion.status
    qtbot.waitUntil(lambda: "en → fr" in status.text(), timeout=30_000)
    text = status.text()
    assert "\n" not in text and "No model for en → fr" in text
    assert "Train a Model" in text and "Import" in text
    assert win.nmt is None or win.nmt.translator is None
    win.nav.go_to(0)
    qtbot.wait(300)
    assert win.suggestion.current is None and "en → fr" in status.text()
    qtbot.keyClick(win.editor(), Qt.Key_0, Qt.ControlModifier)
    assert win.model.segment(0).target.text == ""
    win.close()


def test_the_models_dialog_shows_each_pair_and_offers_only_the_projects(qtbot, tmp_path, monkeypatch):
    from app.dialogs.models import COLUMNS, ModelsDialog

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    project = Project.open(_project(tmp_path / "p"))
    fr = Path(project.folder) / "models" / "mine-fr"
    shutil.copytree(DEMO, fr)
    man = (fr / "manifest.json").read_text(encoding="utf-8").replace('"tgt_lang": "de"', '"tgt_lang": "fr-FR"')
    (fr / "manifest.json").write_text(man, encoding="utf-8")
    dlg = ModelsDialog(None, project, None)
    qtbot.addWidget(dlg)
    rows = {dlg.table.item(r, 0).text(): r for r in range(dlg.table.rowCount())}
    assert {"demo", "mine-fr"} <= set(rows)
    pair = COLUMNS.index("Pair")
    assert dlg.table.item(rows["demo"], pair).text().startswith("en → de")
    assert dlg.table.item(rows["mine-fr"], pair).text() == "en → fr-FR"   # a regional variant: the same pair
    chosen = []
    dlg.modelChosen.connect(chosen.append)
    dlg.select("demo")
    assert not dlg.use_button.isEnabled() and "en → de" in dlg.status.text()
    dlg.use_selected()
    assert chosen == []
    dlg.select("mine-fr")
    assert dlg.use_button.isEnabled()
    dlg.use_selected()
    assert chosen == [str(fr)]
    project.close()
