"""Spelling in the editor's process or in a child: what the other threads of the editor feel, and
what a segment's check costs (issue 46: the dictionary read stalled the UI thread).

    .venv/bin/python -m benchmarks.spell_latency [--lang de-DE] [--segments 300] [--rounds 2]

For each way (``here``: spylls in this process, as before; ``child``: engine.spelling.process) and
each round, alternating: a thread ticking every 2 ms (as the UI thread's heartbeat in
``benchmarks/ui_latency.py``) beside the dictionary's load -- its longest gap and gaps over
50 ms, the load's wall time and this process's CPU -- then ``misspellings()`` of the last
``--segments`` German sentences of the KDE corpus (shared data), each once with a cold cache: the
wall time per segment (p50 / p95 / max) and the words marked (the same both ways).  JSON out.
"""
from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


class Ticker:
    """A thread that wants the interpreter every 2 ms; the gaps between its ticks."""

    def __init__(self):
        self.gaps: list[float] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(0.002)
            now = time.perf_counter()
            self.gaps.append((now - last) * 1000)
            last = now

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def one(way: str, info, texts: list[str]) -> dict:
    from engine.spelling import SpellChecker
    from engine.spelling.hunspell import _loaded

    _loaded.clear()  # a fresh read each round
    cpu, t = time.process_time(), time.perf_counter()
    with Ticker() as tick:
        checker = SpellChecker.from_info(info, process=(way == "child"))
    load = {"wall_s": round(time.perf_counter() - t, 2), "this_process_cpu_s": round(time.process_time() - cpu, 2),
            "ticker_max_ms": round(max(tick.gaps), 1), "ticker_over_50ms": sum(g > 50 for g in tick.gaps)}
    per, marked = [], 0
    for text in texts:
        t = time.perf_counter()
        marked += len(checker.misspellings(text))
        per.append((time.perf_counter() - t) * 1000)
    per.sort()
    checker.close()
    return {"way": way, "load": load, "segment_ms": {"p50": round(statistics.median(per), 2),
            "p95": round(per[int(0.95 * (len(per) - 1))], 2), "max": round(per[-1], 1)}, "marked": marked}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="de-DE")
    ap.add_argument("--segments", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    from engine.spelling import find_dictionary

    info = find_dictionary(a.lang)
    if info is None:
        raise SystemExit(f"no dictionary for {a.lang}")
    texts = [x for x in (DATA / "kde4-l10n-de" / "docs.de").read_text("utf-8").splitlines() if x.strip()]
    texts = texts[-a.segments:]
    runs = []
    for r in range(a.rounds):
        for way in (("here", "child") if r % 2 == 0 else ("child", "here")):
            runs.append(one(way, info, texts))
    print(json.dumps({"dictionary": str(info.dic), "segments": len(texts), "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
