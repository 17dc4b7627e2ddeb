"""Browsing (Ctrl+Down) with a TM: what the searches keep (decoded postings, results) leaves Python's
cyclic collector, so a full collection -- the interpreter lock held, the UI thread stopped -- walks
only what is new (issue 46 item 1: 44-246 ms collections on the TM thread while browsing a 100k TM)."""
from __future__ import annotations

import gc

from engine.store import Project

from app.main_window import MainWindow
from editor_helpers import make_project


def test_what_a_segments_tm_search_kept_is_left_out_of_full_collections(qtbot, tmp_path):
    win = MainWindow(Project.open(make_project(tmp_path / "p", ["The house is big.", "Open the file.",
                                                                "Save the file."])), nmt=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.shown_for.get("matches") == 0, timeout=30_000)
    qtbot.waitUntil(lambda: not win.opening.freezing, timeout=30_000)  # the opening's own freezing is over
    gc.unfreeze()
    kept = [object() for _ in range(3)] + [[] for _ in range(1000)]   # what a search keeps, made before the step
    assert gc.is_tracked(kept[-1]) and gc.get_freeze_count() == 0
    win.nav.go_to(1)
    qtbot.waitUntil(lambda: win.shown_for.get("matches") == 1, timeout=30_000)
    assert gc.get_freeze_count() >= len(kept) - 3   # frozen: a full collection no longer walks them
    assert not any(x is kept[-1] for x in gc.get_objects(generation=2))
