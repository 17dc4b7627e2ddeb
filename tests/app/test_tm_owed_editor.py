"""A confirmed segment reaches the TM even when the editor dies while the TM
thread still has it queued (behind a long index flush, say)."""
from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import open_window


def test_confirms_queued_behind_a_busy_tm_thread_reach_the_tm_after_a_crash(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window.", "Print it."])
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    gate = threading.Event()

    def killed(*args):
        raise SystemError("killed")

    win.tm.run(lambda control: gate.wait(20))           # the TM thread is busy (an index flush) ...
    win.tm._add = killed                                # ... and the process dies before the adds run
    for text in ("Datei oeffnen.", "Fenster schliessen."):
        qtbot.keyClicks(win.editor(), text)
        qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.model.segment(1).status == "confirmed"
    gate.set()
    win.tm.pool.waitForDone(30_000)
    win.close()
    with TranslationMemory(folder / "tm") as tm:
        assert len(tm) == 0                              # lost, as before the fix ...

    win2 = open_window(qtbot, folder)                    # ... until the project is opened again
    assert "did not finish writing" in win2.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not win2.tm.busy(), timeout=30_000)
    win2.close()
    with TranslationMemory(folder / "tm") as tm:
        assert {m.target.text for q in ("Open the file.", "Close the window.")
                for m in tm.search(q, k=1) if m.score == 1.0} == {"Datei oeffnen.", "Fenster schliessen."}


def test_the_editor_says_while_a_tm_index_is_rebuilt_and_matches_meanwhile(qtbot, tmp_path, monkeypatch):
    import shutil

    from engine.tm import index_process
    from engine.tm import memory as memory_mod

    folder = make_project(tmp_path / "p", ["Sentence number 7 about layer 7.", "Other."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many([(f"Sentence number {i} about layer {i}.", f"Satz {i} zu Ebene {i}.") for i in range(200)])
    shutil.rmtree(folder / "tm" / "index")             # a crash mid-indexing
    gate = threading.Event()
    real = index_process.BackgroundBuild.run  # the build process starts once the gate opens
    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 100)
    monkeypatch.setattr(index_process.BackgroundBuild, "run", lambda self: (gate.wait(30), real(self)))
    win = open_window(qtbot, folder)
    try:
        qtbot.waitUntil(lambda: "Rebuilding the search index of TM" in win.statusBar().currentMessage(),
                        timeout=30_000)
        qtbot.waitUntil(lambda: any(m.match.target.text == "Satz 7 zu Ebene 7." and m.score == 1.0
                                    for m in win.matches.matches), timeout=30_000)
    finally:
        gate.set()
    qtbot.waitUntil(lambda: not any(t.rebuilding for t in win.tm.tms), timeout=30_000)
