"""TM search benchmark: build time, size, latency, memory and recall@5 vs
exhaustive search, at several TM sizes, on real segments of ../shared/data.

    nice .venv/bin/python -m benchmarks.tm_search --sizes 10000 100000 1000000 \
        --work /tmp/verso-tm-bench --json benchmarks/tm_search_results.json

TM pool: every line pair of every corpus (both directions; JRC-Acquis also
fr->en), minus held-out documents (3 % of the documents of each corpus with
document ids, by CRC32 of the id).  A size-N TM is the first N pairs of the
shuffled pool (seed 0); the largest size takes the whole pool.  Queries: 500
source segments of the held-out documents, the same number from each corpus
(seed 1).

Recall@5 against exhaustive search (Eq. 3 + penalties over the whole TM with
rapidfuzz), two ways, each for the true top 5 with score > 0 ("all"), >= 0.3
(the CLI default threshold) and >= 0.5:

* **recall@5** (the issue's definition): the share of the true top 5 units
  (best score first, ties by unit id) that the search returned;
* **tie-aware**: a returned match counts when its score reaches the true 5th
  best score (another unit of the same score is as good an answer).

``--pause-pids`` stops the given processes (SIGSTOP) for the query loops
only and always resumes them (SIGCONT), so latency is measured without
them; the load average before each loop is recorded.

``--skip-adds`` leaves a kept TM (``--reuse``) unchanged; the exhaustive ground truth is kept beside it.
``--anchor tantivy``: also tantivy's BM25 top 50 / 500 + Verso's re-rank on the same TM and queries
(benchmarks/tm_anchor.py; skipped when tantivy is not installed; not with ``--tree``).
``--tree OTHER [--rounds N]``: the same run on this checkout and OTHER, interleaved, each run a fresh
process (benchmarks/compare.py): medians per checkout and their ratio.
"""
from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import random
import resource
import shutil
import signal
import sys
import time
import zlib
from pathlib import Path

from benchmarks import compare
from benchmarks.paths import SHARED_DATA

DATA = SHARED_DATA

CORPORA = [  # name, {lang: file}, document-id file, directions
    ("kde-docs", {"en": "kde4-l10n-de/docs.en", "de": "kde4-l10n-de/docs.de"}, "kde4-l10n-de/docs.doc"),
    ("kde-ui", {"en": "kde4-l10n-de/ui.en", "de": "kde4-l10n-de/ui.de"}, "kde4-l10n-de/ui.doc"),
    ("jrc", {"en": "jrc-acquis-endefr/common.en", "de": "jrc-acquis-endefr/common.de",
             "fr": "jrc-acquis-endefr/common.fr"}, "jrc-acquis-endefr/common.docid"),
    ("magento", {"en": "magento2-de/ui.en", "de": "magento2-de/ui.de"}, "magento2-de/ui.module"),
    ("pydocs", {"en": "python-docs-fr/docs.en", "fr": "python-docs-fr/docs.fr"}, "python-docs-fr/docs.doc"),
    ("hansards", {"en": "hansards-senate-enfr/senate.en", "fr": "hansards-senate-enfr/senate.fr"},
     "hansards-senate-enfr/senate.docid"),
    ("multi30k", {"en": "multi30k/train.en", "de": "multi30k/train.de", "fr": "multi30k/train.fr"}, None),
] + [
    (f"doclevel-{c}-{part}", {"en": f"doclevel-maruf-ende-devtest/{c}/{part}.en",
                              "de": f"doclevel-maruf-ende-devtest/{c}/{part}.de"}, "<d>")
    for c in ("Europarl7", "IWSLT2017", "NC-2016") for part in ("dev", "test")
]


def _lines(rel: str) -> list[str]:
    p = DATA / rel
    return p.read_text("utf-8").split("\n")[:-1] if p.exists() else []


def load_pool():
    """(tm_pairs, held_out) lists of (source, target, corpus)."""
    tm, held = [], []
    for name, files, docf in CORPORA:
        cols = {lang: _lines(f) for lang, f in files.items()}
        if not all(cols.values()):
            continue
        n = min(len(c) for c in cols.values())
        first = cols[next(iter(cols))]
        if docf == "<d>":
            docs, d = [], 0
            for line in first[:n]:
                d += line.strip() == "<d>"
                docs.append(f"{name}:{d}")
        else:
            docs = _lines(docf) if docf else [""] * n
        langs = list(cols)
        dirs = [(langs[0], langs[1]), (langs[1], langs[0])]
        if len(langs) > 2:
            dirs.append((langs[2], langs[0]))
        for i in range(n):
            hold = docf is not None and zlib.crc32(docs[i].encode()) % 100 < 3
            for a, b in dirs:
                s, t = cols[a][i].strip(), cols[b][i].strip()
                if not s or not t or s == "<d>":
                    continue
                (held if hold else tm).append((s, t, name))
    return tm, held


def pick_queries(held, n: int, seed: int = 1) -> list[str]:
    from engine.tm.tokens import analyse
    rng = random.Random(seed)
    by = {}
    for s, _, c in held:
        by.setdefault(c.split("-")[0] if c.startswith("doclevel") else c, []).append(s)
    names = sorted(by)
    out, seen = [], set()
    per = {c: n // len(names) + (1 if i < n % len(names) else 0) for i, c in enumerate(names)}
    for c in names:
        pool = by[c]
        rng.shuffle(pool)
        got = 0
        for s in pool:
            if got >= per[c]:
                break
            if s in seen or not analyse(s).core:
                continue
            seen.add(s)
            out.append(s)
            got += 1
    return out


def best_match_recall(found: list[tuple[float, int]], true: list[tuple[float, int]]) -> float | None:
    """1 when the search's best match scores as the true best match (a tie is as good), else 0."""
    if not true:
        return None
    return float(bool(found) and found[0][0] >= true[0][0] - 1e-6)


def best_recall(found, truth) -> float | None:
    vals = [r for r in (best_match_recall(f, t) for f, t in zip(found, truth)) if r is not None]
    return sum(vals) / len(vals) if vals else None


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def exhaustive_top(tm, qtext: str, encs, sencs, pencs, uids, k: int = 5) -> list[tuple[float, int]]:
    """True top-k (score, unit id) by the TM's own score over the whole TM,
    best first, ties by unit id."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
    from engine.tm.scoring import Encoded, score_encoded
    from engine.tm.tokens import analyse
    qa = analyse(qtext)
    enc = tm.vocab.encode_known
    qe = Encoded(enc(qa.core), enc(qa.surface), enc(qa.punct))
    limit = 50
    while True:
        res = process.extract(qe.core, encs, scorer=Levenshtein.normalized_similarity,
                              limit=limit, score_cutoff=1e-9)
        full = sorted(((score_encoded(qe, Encoded(encs[i], sencs[i], pencs[i])), uids[i])
                       for _, _, i in res), key=lambda x: (-x[0], x[1]))
        kth = full[k - 1][0] if len(full) >= k else 0.0
        # full <= core: stop once the last core score cannot beat (or tie) the k-th full score
        if len(res) < limit or res[-1][1] < kth - 1e-9:
            return [x for x in full[:k] if x[0] > 0]
        limit *= 4


def _relevant(true, threshold: float):
    return [(s, u) for s, u in true if (s >= threshold if threshold > 0 else s > 0)]


def recall(found: list[tuple[float, int]], true: list[tuple[float, int]],
           threshold: float) -> float | None:
    """Share of the true top-k units (score >= threshold) that were returned."""
    rel = _relevant(true, threshold)
    if not rel:
        return None
    ids = {u for _, u in found}
    return sum(1 for _, u in rel if u in ids) / len(rel)


def recall_ties(found: list[tuple[float, int]], true: list[tuple[float, int]],
                threshold: float) -> float | None:
    """Tie-aware: returned matches scoring at least the k-th relevant true score."""
    rel = _relevant(true, threshold)
    if not rel:
        return None
    kth = rel[-1][0]
    return min(len(rel), sum(1 for s, _ in found if s >= kth - 1e-9)) / len(rel)


class Paused:
    """SIGSTOP the given processes inside the block; SIGCONT them on leaving,
    at exit and on SIGTERM/SIGINT (never leave them stopped)."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        self._old: dict = {}

    def _resume(self) -> None:
        for pid in self.pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)

    def _on_signal(self, signum, frame):
        self._resume()
        raise SystemExit(128 + signum)

    def __enter__(self):
        if self.pids:
            atexit.register(self._resume)
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                self._old[sig] = signal.signal(sig, self._on_signal)
            for pid in self.pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
        return self

    def __exit__(self, *exc):
        self._resume()
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()
        return False


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return 0.0
    i = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[i]


def _schema_module_of_this_format() -> None:
    """An older checkout (``--tree``) defines the index's field classes in ``engine.tm.whoosh_index``
    and unpickles them from the index by module name; the index format is the same (4)."""
    import importlib.util

    if importlib.util.find_spec("engine.tm.index_schema") is None:
        import engine.tm.whoosh_index as wi

        sys.modules["engine.tm.index_schema"] = wi


def run_size(size: int, pool, queries, work: Path, held, pause: list[int],
             reuse: bool = False, add_test: bool = True, anchor: str = "") -> dict:
    from engine.tm import TranslationMemory
    from engine.tm.memory import ImportResult
    folder = compare.tree_tm(work / f"tm-{size}", share_index=True) if reuse else work / f"tm-{size}"
    _schema_module_of_this_format()
    build_s = index_s = None
    if reuse and (folder / "tm.sqlite").exists():  # built earlier from the same pool
        t0 = time.perf_counter()
        tm = TranslationMemory(folder, create=False)  # rebuilds an index of another format
        index_s = time.perf_counter() - t0
        res = ImportResult(added=len(tm))
    else:
        shutil.rmtree(folder, ignore_errors=True)
        pairs = pool[:size]
        t0 = time.perf_counter()
        tm = TranslationMemory(folder, src_lang="en", tgt_lang="de")
        res = tm.add_many(((s, t, {"origin": c}) for s, t, c in pairs))
        tm.flush()
        build_s = time.perf_counter() - t0
    tm.close()
    db = sum(p.stat().st_size for p in folder.glob("tm.sqlite*"))
    ix = sum(p.stat().st_size for p in (folder / "index").iterdir())
    rss0 = current_rss_mb()
    t0 = time.perf_counter()
    tm = TranslationMemory(folder, create=False)
    open_s = time.perf_counter() - t0
    lat, cpu, found, info = [], [], [], []
    load = os.getloadavg()
    with Paused(pause):
        time.sleep(2 if pause else 0)  # let the paused processes leave the CPUs
        load_paused = os.getloadavg()
        for q in queries:
            t, c = time.perf_counter(), time.thread_time()
            ms = tm.search(q, k=5)
            cpu.append((time.thread_time() - c) * 1000)
            lat.append((time.perf_counter() - t) * 1000)
            found.append([(m.score, m.entry.id) for m in ms])
            info.append(dict(getattr(tm, "last_search", None) or {"verified": 0, "exact": False}))
        load_after = os.getloadavg()
    rss1 = current_rss_mb()
    # exhaustive ground truth (kept beside the TM folder for the next run on it: --reuse)
    truth_file = work / f"truth-{size}-{len(queries)}-{zlib.crc32(json.dumps(queries).encode())}.json"
    exh_ms = None
    if reuse and truth_file.exists():
        truth = [[tuple(x) for x in t] for t in json.loads(truth_file.read_text("utf-8"))]
    else:
        rows = tm.conn.execute("SELECT enc, senc, penc, id FROM units ORDER BY id").fetchall()
        encs, sencs, pencs, uids = (list(c) for c in zip(*rows))
        del rows
        t0 = time.perf_counter()
        truth = [exhaustive_top(tm, q, encs, sencs, pencs, uids) for q in queries]
        exh_ms = (time.perf_counter() - t0) * 1000 / len(queries)
        del encs, sencs, pencs, uids
        truth_file.write_text(json.dumps(truth), "utf-8")
    recalls = {}
    for name, fn in (("", recall), ("ties_", recall_ties)):
        for th in (0.0, 0.3, 0.5):
            vals = [r for r in (fn(f, t, th) for f, t in zip(found, truth)) if r is not None]
            recalls[name + str(th)] = (sum(vals) / len(vals) if vals else None, len(vals))
    anchored = {}
    if anchor == "tantivy":
        from benchmarks import tm_anchor
        if tm_anchor.available():
            anchored = {"anchor_tantivy": tm_anchor.run(tm, queries, truth, work, size)}
        else:
            print("tantivy is not installed (pip install tantivy): the anchor is skipped", file=sys.stderr)
    # incremental add: one pair, then the very next search must find it
    adds, after, first_hits = [], [], 0
    for s, t, _ in held[:50] if add_test else ():
        s2 = s + " (rev. 2)"
        t0 = time.perf_counter()
        uid = tm.add(s2, t)
        adds.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        ms = tm.search(s2, k=1)
        after.append((time.perf_counter() - t0) * 1000)
        first_hits += bool(ms and ms[0].entry.id == uid)
    tm.close()
    return {
        "size": size, "units": res.added, "duplicates_merged": res.updated, "build_s": build_s,
        "reused_open_s": index_s,
        "open_s": open_s, "db_mb": db / 1e6, "index_mb": ix / 1e6,
        "p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95), "p99_ms": pct(lat, 99),
        "mean_ms": sum(lat) / len(lat),
        "cpu_p50_ms": pct(cpu, 50), "cpu_p95_ms": pct(cpu, 95), "cpu_p99_ms": pct(cpu, 99),
        "loadavg_before": load, "loadavg_paused": load_paused, "loadavg_after": load_after,
        "paused_pids": pause,
        "verified_p50": pct([i["verified"] for i in info], 50),
        "verified_p95": pct([i["verified"] for i in info], 95),
        "proven_exact": sum(bool(i["exact"]) for i in info),
        "rss_before_queries_mb": rss0,
        "rss_after_queries_mb": rss1, "peak_rss_mb": rss_mb(),
        "recall5_all": recalls["0.0"][0], "n_all": recalls["0.0"][1],
        "recall5_ge03": recalls["0.3"][0], "n_ge03": recalls["0.3"][1],
        "recall5_ge05": recalls["0.5"][0], "n_ge05": recalls["0.5"][1],
        "ties_recall5_all": recalls["ties_0.0"][0],
        "ties_recall5_ge03": recalls["ties_0.3"][0],
        "ties_recall5_ge05": recalls["ties_0.5"][0],
        "exhaustive_ms_per_query": exh_ms,
        "add_ms_p50": pct(adds, 50), "add_ms_p95": pct(adds, 95),
        "added_found_by_next_search": f"{first_hits}/{len(adds)}",
        "best_match_recall": best_recall(found, truth),
        "search_after_add_ms_p50": pct(after, 50), "search_after_add_ms_p95": pct(after, 95),
        **anchored,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--work", type=Path, default=Path("/tmp/verso-tm-bench"))
    ap.add_argument("--json", type=Path, default=None, help="append results here (JSON lines)")
    ap.add_argument("--reuse", type=int, nargs="*", default=[], metavar="SIZE",
                    help="sizes whose TM folder under --work is kept from an earlier run "
                         "(no build time then)")
    ap.add_argument("--pause-pids", type=int, nargs="*", default=[],
                    help="processes to SIGSTOP during the query loops only (always resumed)")
    ap.add_argument("--skip-adds", action="store_true",
                    help="leave the TM as it is (no incremental-add test): for runs on a kept TM")
    ap.add_argument("--anchor", choices=["tantivy"], default="",
                    help="also run an outside search on the same TM and queries (optional package)")
    if compare.run_if_asked("tm_search"):  # --tree OTHER [--rounds N]: both checkouts, interleaved
        return
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"shared data not found at {DATA}")
    pool, held = load_pool()
    random.Random(0).shuffle(pool)
    queries = pick_queries(held, args.queries)
    random.Random(2).shuffle(held)
    print(f"pool {len(pool)} pairs, held out {len(held)}, {len(queries)} queries", flush=True)
    args.work.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        r = run_size(min(size, len(pool)), pool, queries, args.work, held, args.pause_pids,
                     reuse=size in args.reuse, add_test=not args.skip_adds, anchor=args.anchor)
        r["requested_size"] = size
        print(json.dumps(r), flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
