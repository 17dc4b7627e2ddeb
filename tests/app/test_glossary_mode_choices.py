"""Settings -> "Use glossary terms in suggestions": the choices are the engine's glossary modes, each
with a name, and a translator who never chose sees the engine's default."""
from __future__ import annotations

from app.dialogs.settings import TERMS_MODE_LABELS, SettingsDialog
from app.preferences import preferences
from engine.glossary.model import DEFAULT_TERMS_MODE, TERMS_MODES


def test_every_glossary_mode_of_the_engine_is_offered_by_its_name(qtbot):
    dlg = SettingsDialog()
    qtbot.addWidget(dlg)
    box = dlg.glossary_terms
    assert [box.itemData(i) for i in range(box.count())] == list(TERMS_MODES)
    assert set(TERMS_MODE_LABELS) == set(TERMS_MODES)  # a name for each, none for a mode that is gone
    assert [box.itemText(i) for i in range(box.count())] == [TERMS_MODE_LABELS[m] for m in TERMS_MODES]


def test_the_glossary_mode_shown_first_is_the_engines_default_and_a_choice_is_kept(qtbot):
    dlg = SettingsDialog()
    qtbot.addWidget(dlg)
    assert dlg.glossary_terms.currentData() == DEFAULT_TERMS_MODE
    other = next(m for m in TERMS_MODES if m != DEFAULT_TERMS_MODE)
    dlg.glossary_terms.setCurrentIndex(dlg.glossary_terms.findData(other))
    dlg.accept()
    assert preferences().glossary_terms == other
    again = SettingsDialog()
    qtbot.addWidget(again)
    assert again.glossary_terms.currentData() == other
