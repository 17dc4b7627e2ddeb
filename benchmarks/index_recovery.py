"""After a crash half way through indexing: how long until a large TM answers,
and how long until its index is back (issue 35, item 6).

    .venv/bin/python -m benchmarks.index_recovery --tm /tmp/tmb-new/tm-100000 [--queries 20]

The TM folder is copied and its index removed, which is what a kill during an
index build leaves (the old index gone or not the one the database names).
Measured: opening (the background rebuild starts), the first searches (they scan
SQLite while the index is rebuilt), the rebuild's duration, the same searches on
the rebuilt index, and -- for comparison -- the blocking rebuild the first search
used to wait for (``rebuild_index`` on the calling thread).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tm", type=Path, required=True, help="a TM folder (e.g. one benchmarks.tm_search built)")
    ap.add_argument("--queries", type=int, default=20)
    a = ap.parse_args()
    from engine.tm.memory import TranslationMemory

    with tempfile.TemporaryDirectory(prefix="verso-recovery-") as tmp:
        folder = Path(tmp) / "tm"
        shutil.copytree(a.tm, folder, ignore=shutil.ignore_patterns("index", "index.*"))
        with TranslationMemory(folder) as t:
            queries = [e.source.text for _, e in zip(range(a.queries * 50), t.entries())][::50]
        shutil.rmtree(folder / "index", ignore_errors=True)

        t0 = time.perf_counter()
        t = TranslationMemory(folder)
        opened = time.perf_counter() - t0
        scan_ms, found = [], 0
        for q in queries:
            s = time.perf_counter()
            hits = t.search(q, k=5, min_score=0.3)
            scan_ms.append(1000 * (time.perf_counter() - s))
            found += bool(hits) and hits[0].score == 1.0
        background = t.rebuilding is not None
        t.wait_for_index()
        rebuilt_after = time.perf_counter() - t0
        idx_ms = []
        for q in queries:
            s = time.perf_counter()
            t.search(q, k=5, min_score=0.3)
            idx_ms.append(1000 * (time.perf_counter() - s))
        units = len(t)
        s = time.perf_counter()
        t.rebuild_index("benchmark: the blocking rebuild the first search used to wait for")
        blocking = time.perf_counter() - s
        t.close()
    out = {"units": units, "open_s": round(opened, 3), "background_rebuild": background,
           "first_search_ms": round(scan_ms[0], 1), "scan_search_ms_p50": round(statistics.median(scan_ms), 1),
           "scan_search_ms_max": round(max(scan_ms), 1), "exact_found_while_rebuilding": f"{found}/{len(queries)}",
           "index_back_after_s": round(rebuilt_after, 1), "indexed_search_ms_p50": round(statistics.median(idx_ms), 1),
           "blocking_rebuild_s": round(blocking, 1)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
