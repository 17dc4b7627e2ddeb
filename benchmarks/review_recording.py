"""What Review ▸ Track Changes and the segment history cost a confirm in the editor.

Confirms N segments of a project on disk (WAL, synchronous=FULL) three ways: plain
``Project.confirm``; wrapped in ``TrackedChanges.recording`` with Track Changes off (the history
row only); and with it on (confirmed targets edited again: base kept, history row).  Prints
milliseconds per confirm (median of the runs).

    .venv/bin/python benchmarks/review_recording.py [--n 300]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from engine.review.changes import TrackedChanges, set_tracking
from engine.store import Project


def _project(folder: Path, n: int) -> Project:
    src = folder / "a.txt"
    src.write_text("\n\n".join(f"Sentence number {i} is here." for i in range(n)) + "\n", encoding="utf-8")
    p = Project.create(folder / "p", src_lang="en", tgt_lang="de")
    p.import_document(src)
    return p


def _run(p: Project, mode: str, tag: str) -> float:
    segs = p.segments(1)
    tc = TrackedChanges(p)
    t0 = time.perf_counter()
    for s in segs:
        text = f"Satz {s.idx} {tag}."
        if mode == "plain":
            p.confirm(s.id, text)
        else:
            with tc.recording([s.id], "bench"):
                p.confirm(s.id, text)
    return (time.perf_counter() - t0) * 1000 / len(segs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    out = {}
    for mode in ("plain", "recording, Track Changes off", "recording, Track Changes on"):
        times = []
        for r in range(a.runs):
            with tempfile.TemporaryDirectory() as d:
                p = _project(Path(d), a.n)
                for s in p.segments(1):  # confirmed once: the timed confirms edit confirmed targets
                    p.confirm(s.id, f"Satz {s.idx}.")
                set_tracking(p, mode.endswith("on"))
                times.append(_run(p, "plain" if mode == "plain" else "rec", f"neu {r}"))
                p.close()
        out[mode] = statistics.median(times)
        print(f"{mode}: {out[mode]:.2f} ms per confirm (median of {a.runs} runs of {a.n})", flush=True)


if __name__ == "__main__":
    main()
