"""UI-thread CPU of the editor's first paint (issue 46): ``show()`` and the events that follow
until the grid is drawn and its visible rows fitted, on a project of ``--segments`` rows.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.first_paint --tm /tmp/tm --segments 2000 [--profile]

Prints the UI thread's CPU seconds (``time.thread_time``) over show() and 0.4 s of events, and
with ``--profile`` the top functions of a cProfile of the same span.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tm", type=Path, required=True)
    ap.add_argument("--segments", type=int, default=2000)
    ap.add_argument("--span", type=float, default=0.4, help="seconds of events after show()")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    from benchmarks.ui_latency import build_project

    app = QApplication.instance() or QApplication([])
    work = Path(tempfile.mkdtemp(prefix="verso-paint-"))
    os.environ["VERSO_HOME"] = str(work / "home")
    from app.main_window import MainWindow
    from engine.store import Project

    folder = build_project(work / "proj", a.segments, a.tm)
    win = MainWindow(Project.open(folder), nmt=False)
    prof = cProfile.Profile(time.thread_time) if a.profile else None  # UI-thread CPU, not GIL waits
    c0 = time.thread_time()
    if prof:
        prof.enable()
    win.show()
    end = time.perf_counter() + a.span
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)
    if prof:
        prof.disable()
    cpu = time.thread_time() - c0
    print(json.dumps({"ui_cpu_s": round(cpu, 3), "segments": a.segments}))
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    win.close()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
