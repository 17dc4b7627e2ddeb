"""The bulk build of a TM's search index (issue 40: a replica's first sync ends with it).

    nice -n 10 .venv/bin/python -m benchmarks.tm_index_build --sizes 100000 300000 --baseline

For each size N: a local TM of the first N pairs of the shuffled pool of
``benchmarks/tm_search.py`` (seed 0) is written to SQLite only (no index: as a
replica's copy leaves it), once per size under ``--work``; then its index is
built with :func:`engine.tm.whoosh_index.build_new` from one read of the units
in id order -- exactly what the background rebuild of a large TM does
(``engine/tm/memory.py``, ``_BackgroundBuild``) -- and timed.  ``--baseline``
also times the build as it was before issue 40's change (:func:`build_as_before`)
in the same run, on the same units.  ``--profile`` prints cProfile's top
functions of the (first) build.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import random
import resource
import shutil
import sqlite3
import time
from pathlib import Path


def make_tm(folder: Path, pairs) -> int:
    """A TM folder holding ``pairs`` in SQLite, with no index; its unit count."""
    from engine.tm import TranslationMemory

    if (folder / "tm.sqlite").exists():
        c = sqlite3.connect(folder / "tm.sqlite")
        n = c.execute("SELECT count(*) FROM units").fetchone()[0]
        c.close()
        return n
    shutil.rmtree(folder, ignore_errors=True)
    tm = TranslationMemory(folder, src_lang="en", tgt_lang="de")
    tm._begin()
    tm.vocab.limit = 10_000_000
    for s, t, corpus in pairs:
        with contextlib.suppress(Exception):  # an empty side: skipped, as an import would
            tm._put(_tt(s), _tt(t), "en", "de", {"origin": corpus})
    tm.conn.execute("DELETE FROM journal")
    tm.conn.execute("DELETE FROM meta WHERE key = 'index_id'")
    tm.conn.execute("COMMIT")
    n = tm.conn.execute("SELECT count(*) FROM units").fetchone()[0]
    tm.conn.close()
    tm.conn = None
    return n


def _tt(x):
    from engine.inline import TaggedText

    return TaggedText(x)


def build_as_before(index_dir: Path, docs, index_id: str, seq: int, seal) -> None:
    """:func:`engine.tm.index_build.build_new` as it was before issue 40: every field through
    Whoosh's add_document, its posting pool (sorted tuples, runs spilled past 256 MB) and its
    codec (a field length asked per posting)."""
    from whoosh.codec.whoosh3 import W3Codec

    from engine.fsutil import atomic_write
    from engine.tm.index_schema import BLOCK_LIMIT, FORMAT, INDEX_NAME, doc_fields, make_schema
    from engine.tm.seal import SealedStorage

    new = Path(index_dir).with_name("index.new")
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir(parents=True)
    ix = SealedStorage(str(new), seal).create_index(make_schema(), indexname=INDEX_NAME)
    w = ix.writer(limitmb=256, codec=W3Codec(blocklimit=BLOCK_LIMIT))
    for doc in docs:
        w.add_document(**doc_fields(*doc))
    w.commit(optimize=True)
    ix.close()
    with atomic_write(new / "state.json", "w", encoding="utf-8") as fh:
        json.dump({"format": FORMAT, "index_id": index_id, "seq": seq}, fh)


def build(folder: Path, *, baseline: bool = False, profile: bool = False) -> float:
    """Seconds to build ``folder``'s index from its SQLite (into ``index.new``, then removed)."""
    from engine.tm import store
    from engine.tm.index_build import build_new, new_index_id
    from engine.tm.seal import Seal

    rconn, wconn = store.connect(folder / "tm.sqlite"), store.connect(folder / "tm.sqlite")
    pr = None
    try:
        docs = rconn.execute("SELECT id, source, target, src_lang, tgt_lang, enc, senc, penc FROM units ORDER BY id")
        if profile:
            import cProfile

            pr = cProfile.Profile()
            pr.enable()
        t0 = time.perf_counter()
        (build_as_before if baseline else build_new)(folder / "index", docs, new_index_id(), 0, Seal(lambda: wconn))
        took = time.perf_counter() - t0
    finally:
        if pr is not None:
            import pstats

            pr.disable()
            pstats.Stats(pr).sort_stats("tottime").print_stats(25)
        rconn.close()
        wconn.close()
    shutil.rmtree(folder / "index.new", ignore_errors=True)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--baseline", action="store_true", help="also time the build before issue 40's change")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--work", type=Path, default=Path("/tmp/verso-tm-index-build"))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    from benchmarks.tm_search import load_pool

    pool, _ = load_pool()
    random.Random(0).shuffle(pool)
    results = []
    for size in args.sizes:
        folder = args.work / f"tm-{size}"
        t0 = time.perf_counter()
        units = make_tm(folder, pool[:size])
        r = {"size": size, "units": units, "sqlite_s": round(time.perf_counter() - t0, 1)}
        r["build_s"] = round(build(folder, profile=args.profile), 1)
        r["units_per_s"] = round(units / r["build_s"])
        r["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)  # the process so far
        if args.baseline:
            r["baseline_build_s"] = round(build(folder, baseline=True), 1)
            r["baseline_units_per_s"] = round(units / r["baseline_build_s"])
        print(json.dumps(r), flush=True)
        results.append(r)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
