"""When the window stops answering as a project opens, and what else was going on (issue 37).

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.opening_gaps \
        --tm /tmp/tmb-new/tm-100000 --model resources/models/demo --segments 2000

The opening phase of :mod:`benchmarks.ui_latency` (same project, same 2 ms heartbeat from
``show()`` until the first segment's TM matches are on screen, then 0.5 s), with times: when
the first matches came and when the model had loaded (seconds from ``show()``), each gap over
50 ms as (start s, ms), and each cyclic garbage collection over 30 ms as (start s, ms,
generation, thread; negative: while the window was built) -- a collection holds the interpreter lock, whichever thread runs it.

``--tm-state new|trusted``: the TM folder new to this installation (its index rebuilt as it opens: a TM
received from someone) or opened before in another process.
``--tree OTHER [--rounds N]``: the same run on this checkout and OTHER, interleaved, each run a fresh
process (benchmarks/compare.py): medians per checkout and their ratio.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tm", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--segments", type=int, default=2000)
    ap.add_argument("--tm-state", choices=("new", "trusted"), default="new",
                    help="new: the TM folder is new to this installation (index rebuilt); trusted: opened before")
    from benchmarks import compare

    if compare.run_if_asked("opening_gaps"):  # --tree OTHER [--rounds N]: both checkouts, interleaved
        return
    a = ap.parse_args()
    if a.tm:  # another checkout (--tree) reads a copy whose index it built itself
        a.tm = compare.tree_tm(a.tm.resolve())

    from PySide6.QtWidgets import QApplication

    from benchmarks.ui_latency import Heartbeat, build_project, seal_tm, wait

    app = QApplication.instance() or QApplication([])
    work = Path(tempfile.mkdtemp(prefix="verso-opening-"))
    os.environ["VERSO_HOME"] = str(work / "home")
    from app.main_window import MainWindow
    from engine.store import Project

    folder = build_project(work / "proj", a.segments, a.tm)
    if a.tm_state == "trusted":
        seal_tm(folder / "tm")
    if a.model:
        with Project.open(folder) as p:
            p.set_setting("model", str(a.model.resolve()))

    collections: list = []
    started: dict[int, float] = {}

    def on_gc(phase: str, info: dict) -> None:
        now = time.perf_counter()
        if phase == "start":
            started[threading.get_ident()] = now
        elif (t := started.pop(threading.get_ident(), None)) is not None and now - t > 0.03:
            collections.append((t, round((now - t) * 1000), info["generation"], threading.current_thread().name))

    gc.callbacks.append(on_gc)
    win = MainWindow(Project.open(folder), nmt=bool(a.model))
    win.show()
    t0 = time.perf_counter()
    hb, gaps = Heartbeat(), []
    tick = hb._tick

    def timed_tick() -> None:
        if (time.perf_counter() - hb._last) * 1000 > 50:
            gaps.append((round(hb._last - t0, 2), round((time.perf_counter() - hb._last) * 1000)))
        tick()

    hb.timer.timeout.disconnect()
    hb.timer.timeout.connect(timed_tick)
    hb.start()
    wait(app, lambda: win.shown_for.get("matches") == win.current_row() or not (win.tm and win.tm.infos), 60)
    first_match = time.perf_counter() - t0
    wait(app, lambda: False, 0.5)
    out = {"tm_state": a.tm_state, "window_settle": hb.stop(), "first_match_s": round(first_match, 2),
           "gaps (s, ms)": gaps}
    if a.model:
        wait(app, lambda: win.nmt is not None and win.nmt.translator is not None, 120)
        out["model_loaded_s"] = round(time.perf_counter() - t0, 2)
    gc.callbacks.remove(on_gc)
    out["collections (s, ms, gen, thread)"] = [(round(t - t0, 2), *rest) for t, *rest in collections]
    win.close()
    print(json.dumps(out))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
