"""Does building a TM segment's posting file (engine.tm.postfile) stall the other Python threads?

    VERSO_INDEX_KEY=... .venv/bin/python -m benchmarks.postfile_gil --tm /tmp/verso-tm-bench/tm-100000 --rounds 3

A TM segment of >= 20,000 units without a valid posting file gets one built on a thread of the
process that searches it -- in the editor, the editor's process.  Each round copies ``--tm`` to a
temporary folder, opens it once in a process of its own (its index this installation's), removes
the posting files, then in a fresh process opens it, starts a thread that ticks every 2 ms (what
the UI thread would see), searches twice (the second search starts the build) and waits for the build;
then ticks as long again with nothing built (the control: the machine's own load).  ``--keep``:
the posting files kept, so the same run times the first search alone.  Reported per
round: the build's seconds and phases, and the gaps between ticks during the build and during the
control (max, over 50 ms, over 20 ms), the first search's own gaps apart.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

QUERY = "Click on the button to open the configuration dialog of the selected item"


def child(folder: str) -> None:
    from engine.tm import TranslationMemory, postfile

    phases: dict[str, float] = {}
    cp, ba = postfile._code_points, postfile.build_arrays

    def code_points(leaf):
        out = cp(leaf)
        phases["code_points_s"] = time.perf_counter()
        return out

    def build_arrays(*a):
        out = ba(*a)
        phases["arrays_s"] = time.perf_counter()
        return out

    postfile._code_points, postfile.build_arrays = code_points, build_arrays
    tm = TranslationMemory(folder, create=False)
    tm.wait_for_index()
    gaps: list[tuple[float, float]] = []
    stop = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.002)
            now = time.perf_counter()
            gaps.append((now - last, last))
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    t0 = time.perf_counter()
    tm.search(QUERY, k=5)
    tm.search(QUERY, k=5)  # a handle's second search starts the build (a one-search command never does)
    ts = time.perf_counter()  # the first search's own gaps (loading the columns) are not the build's
    jobs = list(tm.index.postfiles._jobs.values())
    for j in jobs:
        j.join()
    t1 = time.perf_counter()
    time.sleep(t1 - t0)  # the control: nothing built
    t2 = time.perf_counter()
    stop.set()
    ticker.join()
    tm.index.postfiles.poll()
    built = [g for g, at in gaps if ts <= at < t1]
    idle = [g for g, at in gaps if t1 <= at < t2]

    def stats(gs: list[float]) -> dict:
        return {"max_ms": round(max(gs, default=0) * 1000, 1), "over_50": sum(g > 0.05 for g in gs),
                "over_20": sum(g > 0.02 for g in gs), "ticks": len(gs)}

    slow = sorted(((g, at) for g, at in gaps if ts <= at < t1 and g > 0.02), reverse=True)[:5]
    print(json.dumps({"builds": len(jobs), "build_s": round(t1 - t0, 2), "first_search_s": round(ts - t0, 2),
                      "first_search": stats([g for g, at in gaps if t0 <= at < ts]),
                      "phases_s": {k: round(v - t0, 2) for k, v in phases.items()},
                      "during_build": stats(built), "control": stats(idle),
                      "slowest (ms, at s)": [(round(g * 1000), round(at - t0, 2)) for g, at in slow],
                      "postfile_attached": all(getattr(leaf, "postfile", None) is not None
                                               for leaf in tm.index.leaves() if leaf.count >= postfile.MIN_DOCS)}))
    tm.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tm", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", action="store_true",
                    help="keep the posting files (nothing built: the first search's own gaps)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child)
        return
    work = Path(tempfile.mkdtemp(prefix="verso-postfile-gil-"))
    folder = work / "tm"
    shutil.copytree(a.tm, folder)
    env = os.environ.copy()
    code = ("import sys; from engine.tm import TranslationMemory as T; t = T(sys.argv[1], create=False); "
            "t.wait_for_index(); t.close()")
    subprocess.run([sys.executable, "-c", code, str(folder)], check=True, env=env)  # sealed by this installation
    runs = []
    for _ in range(a.rounds):
        for p in (folder / "index").glob("post_*") if not a.keep else ():
            p.unlink()
        out = subprocess.run([sys.executable, "-m", "benchmarks.postfile_gil", "--tm", str(a.tm), "--child",
                              str(folder)], check=True, env=env, capture_output=True, text=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]), file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)
    med = {k: {s: statistics.median(r[k][s] for r in runs) for s in ("max_ms", "over_50", "over_20")}
           for k in ("during_build", "control")}
    print(json.dumps({"tm": str(a.tm), "rounds": runs, "median": med,
                      "build_s_median": statistics.median(r["build_s"] for r in runs),
                      "load": os.getloadavg()}, indent=1))


if __name__ == "__main__":
    main()
