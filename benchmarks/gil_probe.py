"""How long ``import torch`` on a worker thread stops the other Python threads (issue 37).

    .venv/bin/python -m benchmarks.gil_probe            # import torch as it comes
    .venv/bin/python -m benchmarks.gil_probe --preload  # with app.torch_preload.install()

A thread ticks every 2 ms while another one imports torch (a fresh process each run: torch
is imported once per process); reported are the longest gaps between ticks (what the UI
thread would see) and when, in seconds from the start of the import, they began.
"""
from __future__ import annotations

import argparse
import json
import threading
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preload", action="store_true", help="app.torch_preload.install() before the import")
    a = ap.parse_args()
    gaps: list[tuple[float, float]] = []
    stop = threading.Event()
    t0 = time.perf_counter()

    def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.002)
            now = time.perf_counter()
            gaps.append((now - last, last - t0))
            last = now

    def load() -> None:
        import torch  # noqa: F401

    out: dict = {}
    if a.preload:
        from app.torch_preload import install

        install()
    ticker = threading.Thread(target=tick)
    ticker.start()
    worker = threading.Thread(target=load)
    worker.start()
    worker.join()
    out["import_s"] = round(time.perf_counter() - t0, 2)
    stop.set()
    ticker.join()
    top = sorted(gaps, reverse=True)[:3]
    out["longest_gaps (ms, at s)"] = [(round(g * 1000), round(at, 2)) for g, at in top]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
