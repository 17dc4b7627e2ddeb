"""Glossary terms in the editor's machine suggestion (issue 25): the preference *Use glossary terms
in suggestions* puts the term of each entry found in the source into the suggestion (enforce), and
the panel underlines it and names it in the tooltip."""
from __future__ import annotations

import pytest

from app.main_window import MainWindow, settings
from engine.glossary import Glossary, GlossaryEntry
from engine.store import Project

from editor_helpers import make_project
from test_editor import wait_panel

SENTENCES = ["The red dog sees a small cat.", "A big man has the blue car."]


@pytest.fixture
def glossary_project(tmp_path, tiny_model, tiny_translator):
    folder = make_project(tmp_path / "p", SENTENCES)
    plain = tiny_translator.translate([SENTENCES[0]], beam=5)[0].text
    # a term the tiny model does not write by itself for "dog"
    target = next(w for w in ("Katze", "Auto", "Mann", "Hund") if w not in plain.split())
    with Glossary(folder / "glossary", create=True) as g:
        g.add(GlossaryEntry("dog", (target,), "en", "de"))
    with Project.open(folder) as p:
        p.add_glossary_ref("glossary", writable=True)
        p.set_setting("model", str(tiny_model))
    return folder, target


def _suggestion_for_row_0(qtbot, folder, mode: str):
    """The window with *Use glossary terms in suggestions* at ``mode``, once row 0's suggestion
    was asked for with the term index loaded."""
    settings().setValue("nmt/threads", 1)
    settings().setValue("nmt/quantize", "false")
    settings().setValue("nmt/glossary_terms", mode)
    win = MainWindow(Project.open(folder))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win, timeout=30_000)
    qtbot.waitUntil(lambda: win.memory.terms_ready, timeout=30_000)
    win.nav.go_to(1)
    win.nav.go_to(0)
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    return win


def test_enforced_glossary_terms_are_in_the_suggestion_and_underlined(qtbot, glossary_project):
    folder, target = glossary_project
    win = _suggestion_for_row_0(qtbot, folder, "enforce")
    qtbot.waitUntil(lambda: win.suggestion.current is not None and target in win.suggestion.current.text,
                    timeout=120_000)
    assert win.suggestion.current.extra["terms"] == [target]
    html = win.suggestion.view.toHtml()
    assert "underline" in html


def test_glossary_terms_can_be_kept_out_of_the_suggestion(qtbot, glossary_project, tiny_translator):
    folder, target = glossary_project
    win = _suggestion_for_row_0(qtbot, folder, "off")
    assert win.suggestion.current.text == tiny_translator.translate([SENTENCES[0]], beam=5)[0].text
    assert "terms" not in win.suggestion.current.extra


def test_the_suggestion_gets_each_term_with_its_place_in_the_source(qtbot, glossary_project, monkeypatch):
    """The editor hands the search the source span of each term (so it is written where the attention is
    on it) and every accepted target of its entry, not a bare target string."""
    from engine.nmt.remote import RemoteTranslator
    from engine.nmt.translator import Term
    from engine.nmt.wire import request_from_dict

    seen = []
    real = RemoteTranslator._call

    def spy(self, msg, stop=None):  # each request as the engine process receives it
        if msg["op"] == "suggest":
            seen.append(request_from_dict(msg["req"]))
        return real(self, msg, stop)

    monkeypatch.setattr(RemoteTranslator, "_call", spy)
    folder, target = glossary_project
    _suggestion_for_row_0(qtbot, folder, "enforce")
    # (a request made before the glossary's index was loaded has no terms: the one after it has)
    req = next(r for r in seen if r.source == SENTENCES[0] and r.terms)
    term = Term.of(req.terms[0])
    assert term.targets == (target,) and SENTENCES[0][slice(*term.span)] == "dog"


def test_a_glossary_label_the_source_uses_as_a_common_word_leaves_the_suggestion_alone(tiny_translator):
    """A client's UI glossary holds "Dog" (a label); "the red dog" is the word, not the label: the
    suggestion is the model's own, while an entry written as the source writes it is enforced."""
    from app.suggest import call_translator
    from engine.glossary import TermIndex

    plain = tiny_translator.translate([SENTENCES[0]], beam=5)[0].text
    target = next(w for w in ("Katze", "Auto", "Mann") if w not in plain.split())

    def suggestion(source_term: str) -> str:
        hits = TermIndex([GlossaryEntry(source_term, (target,), "en", "de")], "en").find(SENTENCES[0])
        assert hits  # recognition finds it either way (the Glossary panel and QA show it)
        return call_translator(tiny_translator, SENTENCES[0], [], terms=hits, terms_mode="enforce").text

    assert suggestion("Dog") == plain
    assert target in suggestion("dog")


def test_the_default_glossary_mode_is_the_one_kept_in_the_engine(tmp_path):
    """The editor's *Use glossary terms in suggestions* starts at the measured default, kept once."""
    from PySide6.QtCore import QSettings

    from app.preferences import Preferences
    from engine.glossary.model import DEFAULT_TERMS_MODE, TERMS_MODES

    fresh = Preferences(QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat))
    assert fresh.glossary_terms == DEFAULT_TERMS_MODE and DEFAULT_TERMS_MODE in TERMS_MODES
