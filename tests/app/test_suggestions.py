"""Suggestion and alignment panels get the engine's real values (a tiny model
trained in this session), and the memory shading maps the engine's per-word
copy information."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engine.nmt.copyreport import CopiedWord
from app.main_window import MainWindow
from app.suggest import COMPLETION_BEAM, view_of
from app.tmservice import FoundMatch
from engine.store import Project
from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import wait_panel

SENTENCES = ["The red dog sees a small cat.", "A big man has the blue car.", "The child likes the ball."]


@pytest.fixture
def model_project(tmp_path, tiny_model) -> Path:
    folder = make_project(tmp_path / "p", SENTENCES)
    with Project.open(folder) as p:
        p.set_setting("model", str(tiny_model))
    return folder


@pytest.fixture
def win(qtbot, model_project) -> MainWindow:
    from app.main_window import settings

    settings().setValue("nmt/threads", 1)
    settings().setValue("nmt/quantize", "false")  # compared with the fp32 engine's own numbers
    w = MainWindow(Project.open(model_project))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w, timeout=30_000)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=30_000)
    return w


def test_suggestion_and_alignment_show_the_engines_values(qtbot, win, tiny_translator):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    expected = tiny_translator.translate([SENTENCES[0]], beam=5)[0]
    view = win.suggestion.current
    assert view.text == expected.text and view.words == expected.words
    assert np.allclose(view.alignment, expected.alignment)
    heat = win.alignment.heat.view
    assert heat is view and heat.gates == pytest.approx(expected.gates)  # the gate strip: z per target word
    assert all(0.0 <= g <= 1.0 for g in heat.gates)
    # Clicking a suggestion word shades its most-attended source words in the grid.
    from PySide6.QtCore import QPoint

    from app.panels.alignment import CELL

    _, top = win.alignment.heat._margins()
    qtbot.mouseClick(win.alignment.heat, Qt.LeftButton, pos=QPoint(4, top + CELL // 2))
    best = max(range(len(expected.src_words)), key=lambda j: expected.alignment[0][j])
    assert win.grid.delegate.highlight[0] == SENTENCES[0]
    assert expected.src_words[best] in win.grid.delegate.highlight[1]
    # Without memory information the suggestion is plain: nothing shaded.
    assert not view.has_memory and win.suggestion.copy_formats() == []
    # One key inserts it, marked as machine translation.
    qtbot.keyClick(win.editor(), Qt.Key_0, Qt.ControlModifier)
    seg = win.model.segment(0)
    assert seg.target.text == expected.text and seg.origin == "mt"


def test_alignment_second_view_scores_the_translators_own_target(qtbot, win, tiny_translator):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    own = "Der rot Hund ein klein Katze sieht."
    qtbot.keyClicks(win.editor(), own)
    win.nav.step(+1)
    wait_panel(qtbot, win, 1, "suggestion", timeout=120_000)
    win.nav.step(-1)
    wait_panel(qtbot, win, 0, "forced", timeout=120_000)
    forced = tiny_translator.forced([SENTENCES[0]], [own])[0]
    fv = win.alignment.views[win.alignment.VIEWS[1]]
    assert fv.forced and fv.words == forced.words
    assert np.allclose(fv.alignment, forced.alignment, atol=1e-5)
    assert fv.score == pytest.approx(forced.score, rel=1e-4)
    win.alignment.show_forced()
    assert win.alignment.heat.view is fv


def test_next_segment_is_prefetched(qtbot, win):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.waitUntil(lambda: any(k.startswith(SENTENCES[1]) for k in win.nmt.cache), timeout=120_000)


def test_entering_a_segment_being_prefetched_waits_for_that_translation(qtbot, win):
    """Moving on while the next segment is still being translated ahead does not queue a
    second translation of it behind the first (that doubled the wait for a suggestion)."""
    import threading
    import time

    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    tr = win.nmt.translator  # the engine process's proxy: each call here is one translation there
    calls, started, real = [], threading.Event(), tr.suggest

    def slow(req, **kw):
        calls.append(req.source)
        started.set()
        time.sleep(0.3)
        return real(req, **kw)

    tr.suggest = slow
    win.nmt.cache.clear()
    try:
        win.nmt.prefetch(SENTENCES[2], [], win.flow.context(2))
        assert started.wait(30)
        win.nav.go_to(2)
        wait_panel(qtbot, win, 2, "suggestion", timeout=120_000)
    finally:
        tr.suggest = real
    assert win.suggestion.current.source == SENTENCES[2]
    assert calls.count(SENTENCES[2]) == 1


def test_stale_suggestion_is_dropped(qtbot, win):
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    for row in (1, 2, 1, 2):
        win.nav.go_to(row)
    wait_panel(qtbot, win, 2, "suggestion", timeout=120_000)
    assert win.suggestion.current.source == SENTENCES[2]


def test_memory_shading_follows_the_engines_copy_weights(qtbot, tiny_translator, tmp_path):
    """Search-engine guided NMT reports per word a copy weight and its memory
    entry/token; the panel shades exactly those words, with the entry in the tooltip."""
    from app.panels.suggestion import SuggestionPanel, shading

    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("The red dog sees a big cat.", "Der rot Hund ein groß Katze sieht.")
        found = [FoundMatch(m, "tm") for m in tm.search("The red dog sees a small cat.", k=1)]
    res = tiny_translator.translate(["The red dog sees a small cat."], beam=5)[0]
    # What the engine attaches per output word once memory is read (issue 5's contract).
    res.memory = [CopiedWord(0.9, 0, 2, "") if i == 2 else None
                  for i in range(len(res.words))]
    view = view_of("The red dog sees a small cat.", res, found)
    assert view.has_memory and view.memory[2].word == "Hund" and view.memory[2].entry_id == found[0].match.entry.id
    panel = SuggestionPanel()
    qtbot.addWidget(panel)
    panel.show_view(view)
    shaded = panel.copy_formats()
    assert [w for w, _ in shaded] == [res.words[2]]
    assert "Hund" in shaded[0][1] and "0.90" in shaded[0][1] and "Der rot Hund" in shaded[0][1]
    assert shading(0.9).alpha() > shading(0.2).alpha()
    assert panel.legend.isVisibleTo(panel)
    assert "translation memory" in shaded[0][1] and "ζ" not in shaded[0][1]  # words a translator reads
    # A copy weight that rounds to 0.00 is no copy a reader could see: not shaded.
    res.memory = [CopiedWord(0.004, 0, 2, "") if i == 2 else None
                  for i in range(len(res.words))]
    panel.show_view(view_of("The red dog sees a small cat.", res, found))
    assert panel.copy_formats() == []


def test_typing_a_prefix_gets_the_rest_completed_by_the_engine(qtbot, win, tiny_translator):
    """Interactive translation: after a pause in typing, the engine continues what was typed
    (prefix-constrained decoding) on its own line; its own key inserts the completed sentence,
    while Ctrl+0 still inserts the clean suggestion for the source."""
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    suggestion = win.suggestion.current
    prefix = "Ein"
    qtbot.keyClicks(win.editor(), prefix)
    wait_panel(qtbot, win, 0, "completion", timeout=120_000)
    expected = tiny_translator.translate([SENTENCES[0]], beam=COMPLETION_BEAM, prefixes=[prefix])[0]
    assert win.suggestion.completion.text == expected.text and expected.text.startswith(prefix)
    assert win.suggestion.current is suggestion  # the suggestion line is untouched
    assert win.suggestion.completion_view.isVisibleTo(win.suggestion)
    qtbot.keyClick(win.editor(), Qt.Key_0, Qt.ControlModifier | Qt.ShiftModifier)
    assert win.model.segment(0).target.text == expected.text
    qtbot.keyClick(win.editor(), Qt.Key_0, Qt.ControlModifier)
    assert win.model.segment(0).target.text == suggestion.text


def test_a_completion_never_outlives_its_segment(qtbot, win):
    """Nothing from another segment: moving on clears the suggestion and the completion at once,
    and Ctrl+0 before the new suggestion arrives inserts nothing."""
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.keyClicks(win.editor(), "Ein")
    wait_panel(qtbot, win, 0, "completion", timeout=120_000)
    win.nav.go_to(1)
    assert win.suggestion.completion is None and not win.suggestion.completion_view.isVisibleTo(win.suggestion)
    assert win.suggestion.current is None or win.suggestion.current.source == SENTENCES[1]
    win.machine.insert_suggestion()
    assert win.model.segment(1).target.text in ("", win.suggestion.current and win.suggestion.current.text)
    wait_panel(qtbot, win, 1, "suggestion", timeout=120_000)
    assert win.suggestion.current.source == SENTENCES[1]


def test_completion_can_be_switched_off(qtbot, win):
    from app.main_window import settings

    settings().setValue("nmt/complete", "false")
    wait_panel(qtbot, win, 0, "suggestion", timeout=120_000)
    qtbot.keyClicks(win.editor(), "Ein")
    qtbot.wait(1200)
    assert win.shown_for.get("completion") is None


def test_the_cpu_suggestion_model_is_int8_unless_switched_off(qtbot, model_project):
    """By default the editor quantises the model (dynamic int8) for CPU speed; the setting turns it off."""
    from app.main_window import settings

    for value, quantized in (("true", True), ("false", False)):
        settings().setValue("nmt/quantize", value)
        w = MainWindow(Project.open(model_project))
        qtbot.addWidget(w)
        qtbot.waitUntil(lambda: w.nmt.translator is not None, timeout=30_000)
        assert w.nmt.translator.quantized is quantized
        w.close()


def test_heat_map_cells_are_darker_where_attention_is_higher(qtbot):
    """The alignment panel paints each (target word, source word) cell by its attention."""
    from app.panels.alignment import CELL, HeatMap
    from app.suggest import SuggestionView

    view = SuggestionView(source="a b c", text="x y", words=["x", "y"], src_words=["a", "b", "c"],
                          alignment=[[0.9, 0.1, 0.0], [0.0, 0.2, 0.8]], gates=[0.5, 0.7])
    heat = HeatMap()
    qtbot.addWidget(heat)
    heat.set_view(view)
    heat.resize(heat.sizeHint())
    img = heat.grab().toImage()
    left, top = heat._margins()

    def lightness(i, j):
        return img.pixelColor(left + j * CELL + CELL // 2, top + i * CELL + CELL // 2).lightness()

    assert lightness(0, 0) < lightness(0, 1) < lightness(0, 2)
    assert lightness(1, 2) < lightness(1, 1) < lightness(1, 0)
    assert lightness(1, 0) == lightness(0, 2)  # no attention: the same empty cell colour


def test_heat_map_labels_fit_after_a_longer_view_or_a_larger_font(qtbot):
    """The label margins are measured once per view and font, and again when either changes."""
    from PySide6.QtGui import QFont

    from app.panels.alignment import HeatMap
    from app.suggest import SuggestionView

    def view(word):
        return SuggestionView(source=f"a {word}", text="x y", words=["x", "y"], src_words=["a", word],
                              alignment=[[0.9, 0.1], [0.2, 0.8]], gates=[0.5, 0.7])

    heat = HeatMap()
    qtbot.addWidget(heat)
    heat.set_view(view("b"))
    short = heat.sizeHint()
    assert heat.sizeHint() == short
    heat.set_view(view("Donaudampfschifffahrtsgesellschaft"))
    longer = heat.sizeHint()
    assert longer.height() > short.height()  # the source words stand rotated along the top
    font = QFont(heat.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    heat.setFont(font)
    assert heat.sizeHint().height() > longer.height()


def test_a_100_percent_match_is_the_suggestion_not_a_machine_guess(qtbot, tiny_translator, tmp_path):
    """The TM's translation of the very same source is what the panel shows (Ctrl+0 inserts it),
    with the model's alignment over it; a fuzzy match still gets the machine's translation."""
    from app.suggest import call_translator

    source = "The red dog sees a small cat."
    own = "Der rote Hund sieht eine kleine Katze jetzt."
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add(source, own)
        exact = [FoundMatch(m, "tm") for m in tm.search(source, k=1)]
        fuzzy = [FoundMatch(m, "tm") for m in tm.search("The red dog sees a big cat.", k=1)]
    assert exact[0].score >= 1.0 and fuzzy[0].score < 1.0
    res = call_translator(tiny_translator, source, exact)
    view = view_of(source, res, exact)
    assert view.text == own and res.exact_match == 0 and view.extra.get("origin") == "tm"
    assert len(view.alignment) == len(view.words) and view.words == own.split()
    from app.panels.suggestion import SuggestionPanel

    panel = SuggestionPanel()
    qtbot.addWidget(panel)
    panel.show_view(view)
    assert panel.text_for(None) == own and "100 % match" in panel.status.text()
    guess = call_translator(tiny_translator, "The red dog sees a big cat.", fuzzy)
    assert guess.exact_match is None and guess.text != own
    # a typed prefix asks for the rest of the translator's own text, not for the match
    assert call_translator(tiny_translator, source, exact, prefix="Der").exact_match is None
