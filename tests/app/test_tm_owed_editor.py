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
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=10_000)
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
    win.tm.pool.waitForDone(5000)
    win.close()
    with TranslationMemory(folder / "tm") as tm:
        assert len(tm) == 0                              # lost, as before the fix ...

    win2 = open_window(qtbot, folder)                    # ... until the project is opened again
    assert "did not finish writing" in win2.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not win2.tm.busy(), timeout=10_000)
    win2.close()
    with TranslationMemory(folder / "tm") as tm:
        assert {m.target.text for q in ("Open the file.", "Close the window.")
                for m in tm.search(q, k=1) if m.score == 1.0} == {"Datei oeffnen.", "Fenster schliessen."}
