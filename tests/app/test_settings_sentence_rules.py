"""Settings -> "Sentence rules": the rules a language is segmented with, read-only, and where they come
from: Verso's default.srx, or the project's own SRX file."""
from __future__ import annotations

from app.dialogs.seg_rules import SentenceRulesView
from app.dialogs.settings import SettingsDialog
from engine.store import Project
from engine.store.segrules import import_srx

MINE = """<?xml version="1.0"?>
<srx xmlns="http://www.lisa.org/srx20" version="2.0"><header cascade="no"/><body><languagerules>
<languagerule languagerulename="Legal"><rule break="no"><beforebreak>\\bLic\\.</beforebreak>
<afterbreak>\\s</afterbreak></rule></languagerule></languagerules>
<maprules><languagemap languagepattern=".*" languagerulename="Legal"/></maprules></body></srx>
"""


def test_settings_show_the_default_rules_of_each_language(qtbot):
    dlg = SettingsDialog()
    qtbot.addWidget(dlg)
    view = dlg.sentence_rules
    assert view.text.isReadOnly() and view.source.text().endswith("default.srx")
    view.lang.setCurrentIndex(view.lang.findData("es"))
    shown = view.text.toPlainText()
    assert shown.startswith("Rule sets: Spanish + Default") and "Lic" in shown
    view.lang.setCurrentIndex(view.lang.findData("de"))
    assert "German" in view.text.toPlainText() and "Lic|" not in view.text.toPlainText()


def test_settings_show_the_projects_own_srx_file(qtbot, tmp_path):
    (tmp_path / "legal.srx").write_text(MINE, "utf-8")
    p = Project.create(tmp_path / "p", src_lang="es", tgt_lang="en")
    import_srx(p, tmp_path / "legal.srx")
    view = SentenceRulesView(p)
    qtbot.addWidget(view)
    assert view.lang.currentData() == "es" and "segmentation/" in view.source.text()
    assert view.text.toPlainText().splitlines()[0] == "Rule sets: Legal"
    assert "no break  before: \\bLic\\." in view.text.toPlainText()
    p.close()
