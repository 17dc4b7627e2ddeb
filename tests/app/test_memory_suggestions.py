"""The editor with a real search-engine guided model (a toy SEG-NMT trained in this
module): the words it copies from the project's TM are shaded by the engine's own
copy weights, the tooltip names the TM entry, and a pair the translator adds to the
TM changes the very next suggestion, without retraining."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.main_window import MEMORY_PAIRS, MainWindow
from engine.store import Project
from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import wait_panel

QUERY = "The big dog sees a small tree."


@pytest.fixture(scope="module")
def seg_model(tmp_path_factory) -> Path:
    import torch

    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train
    from nmt.test_memory import TERM_FAMILIES, _term_corpus, seg_config_dict  # the toy corpus whose term only the TM tells

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("seg")
    c = _term_corpus(root, TERM_FAMILIES)
    cfg = ExperimentConfig.from_dict(seg_config_dict(c, 300, threads=1))
    train(cfg, root / "m")
    return root / "m"


def _window(qtbot, folder: Path, model: Path) -> MainWindow:
    from app.main_window import settings

    with Project.open(folder) as p:
        p.set_setting("model", str(model))
    settings().setValue("nmt/threads", 1)
    settings().setValue("nmt/quantize", "false")  # compared with the fp32 engine's own numbers
    w = MainWindow(Project.open(folder))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w, timeout=30_000)
    return w


def test_copied_words_are_shaded_by_the_engines_weights_and_follow_the_tm(qtbot, tmp_path, seg_model):
    from app.main_window import settings
    from engine.nmt.translator import Translator

    # The SEG-NMT model's learned memory (with "auto" the nearest-neighbour memory reads the
    # pairs, and on one 2-core Xeon this toy model's kNN suggestion was "Bello" alone, nothing copied).
    settings().setValue("nmt/memory_mode", "learned")

    folder = make_project(tmp_path / "p", [QUERY, "A red cat has the ball."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        uid = tm.add("The big dog sees a small tree!", "Der groß Bello ein klein Baum sieht!")
    win = _window(qtbot, folder, seg_model)
    wait_panel(qtbot, win, 0, "suggestion", timeout=90_000)
    view = win.suggestion.current
    assert "Bello" in view.words, "the suggestion takes the TM's term"
    ref = view.memory[view.words.index("Bello")]
    # The shading is the engine's own number for that word, and the tooltip names the TM entry.
    engine = Translator.load(seg_model).translate(
        [QUERY], memories=[[("The big dog sees a small tree!", "Der groß Bello ein klein Baum sieht!")]],
        memory_mode="learned")[0]
    assert ref is not None and ref.weight == pytest.approx(engine.memory[engine.words.index("Bello")].weight)
    assert ref.entry_source.startswith("The big dog sees a small tree")
    assert win.suggestion.copy_formats(), "copied words are shaded in the panel"
    assert uid > 0
    win.close()

    # The translator replaces the term in the TM: the next suggestion follows, no retraining.
    with TranslationMemory(folder / "tm") as tm:
        tm.delete(uid)
        tm.add("The big dog sees a small tree!", "Der groß Hund ein klein Baum sieht!")
    win2 = _window(qtbot, folder, seg_model)
    wait_panel(qtbot, win2, 0, "suggestion", timeout=90_000)
    assert "Hund" in win2.suggestion.current.words and "Bello" not in win2.suggestion.current.words
    win2.close()
    settings().remove("nmt/memory_mode")


def test_the_engine_reads_as_many_tm_matches_as_the_setting_says(qtbot, tmp_path, seg_model):
    from app.main_window import settings

    folder = make_project(tmp_path / "p", [QUERY, "A red cat has the ball."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("The big dog sees a small tree!", "Der groß Bello ein klein Baum sieht!")
        tm.add("The big dog sees a small house.", "Der groß Hund ein klein Haus sieht.")
        tm.add("The big cat sees a small tree.", "Die groß Katze ein klein Baum sieht.")
    win = _window(qtbot, folder, seg_model)
    try:
        wait_panel(qtbot, win, 0, "suggestion", timeout=90_000)
        read = min(3, MEMORY_PAIRS)  # the default, at most the matches found
        assert len(win.matches.matches) == 3 and win.suggestion.current.used_memory == read
        assert f"uses {read} TM matches" in win.suggestion.status.text()
        settings().setValue("nmt/memory_pairs", 1)
        win.nav.go_to(1)
        win.nav.go_to(0)
        wait_panel(qtbot, win, 0, "suggestion", timeout=90_000)
        assert win.suggestion.current.used_memory == 1
        # a minimum match above every match's score: the TM panel still shows them, the engine reads none
        settings().setValue("nmt/memory_pairs", 4)
        settings().setValue("nmt/memory_min_score", 100)
        win.nav.go_to(1)
        win.nav.go_to(0)
        wait_panel(qtbot, win, 0, "suggestion", timeout=90_000)
        assert len(win.matches.matches) == 3 and max(m.score for m in win.matches.matches) < 1.0
        assert win.suggestion.current.used_memory == 0 and "TM match" not in win.suggestion.status.text()
    finally:
        settings().remove("nmt/memory_pairs")
        settings().remove("nmt/memory_min_score")
        win.close()


def test_the_demo_models_suggestion_copies_through_the_nearest_neighbour_memory(qtbot, tmp_path):
    """Issue 24: the shipped model reads the TM through the kNN memory in the editor; the
    setting says so and switching the memory off takes effect at the next suggestion."""
    from app.dialogs.settings import SettingsDialog

    demo = Path(__file__).resolve().parents[2] / "resources" / "models" / "demo"
    src = "Click the Apply button to save the new settings."
    folder = make_project(tmp_path / "p", [src, "Close the window."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("Click the OK button to save the new settings.",
               "Klicken Sie auf den Knopf OK, um die neuen Einstellungen zu speichern.")
    win = _window(qtbot, folder, demo)
    wait_panel(qtbot, win, 0, "suggestion", timeout=90_000)
    view = win.suggestion.current
    assert view.extra.get("memory_kind") == "knn" and view.has_memory
    assert "Einstellungen" in view.words and view.memory[view.words.index("Einstellungen")] is not None
    assert win.nmt.memory_in_use() == "nearest-neighbour memory"
    dlg = SettingsDialog(win, win.nmt.memory_in_use())
    assert "nearest-neighbour" in dlg.memory_in_use.text()
    dlg.reject()
    win.nmt.set_modes(memory_mode="none", terms_mode=win.nmt.terms_mode)
    win.suggestion.current = None
    win.nav.segment_entered(0)
    qtbot.waitUntil(lambda: win.suggestion.current is not None, timeout=90_000)
    assert not win.suggestion.current.has_memory and "memory_kind" not in win.suggestion.current.extra
    win.close()
