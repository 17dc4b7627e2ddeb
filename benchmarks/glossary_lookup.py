"""Glossary benchmark: import and load time of a 50,000-entry glossary and the
time to find its terms in one segment (p50 / p95), on real KDE text.

    nice .venv/bin/python -m benchmarks.glossary_lookup --entries 50000 --queries 2000 \
        --work /tmp/verso-gloss-bench [--json out.json]

Glossary: the first N distinct short (at most 4 words) English UI strings of
kde4-l10n-de/ui.en with their German translations from ui.de (a glossary of UI
terms, as a software localiser keeps one); written as a TSV with an ``en``/``de``
header and imported with ``read_glossary_file`` + ``Glossary.import_entries``
(one transaction).  Load: opening the folder and building the term index
(``Glossary.index()``: every source term tokenised and stemmed once).  Queries:
KDE manual sentences (kde4-l10n-de/docs.en, lines of at least 5 words, every
k-th line so they spread over the whole file), markup protected as inline tags as
the editor has them (``protect_text``), each looked up with ``find_terms``.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

from benchmarks.paths import SHARED_DATA

from engine.formats.textutil import protect_text  # noqa: E402
from engine.glossary import Glossary, find_terms, read_glossary_file  # noqa: E402

DATA = SHARED_DATA / "kde4-l10n-de"


def build_tsv(path: Path, n: int) -> int:
    seen: set[str] = set()
    rows = []
    with open(DATA / "ui.en", encoding="utf-8") as fe, open(DATA / "ui.de", encoding="utf-8") as fd:
        for en, de in zip(fe, fd):
            en, de = " ".join(en.split()), " ".join(de.split())
            if not en or not de or len(en.split()) > 4 or "\t" in en + de:
                continue
            key = en.casefold()
            if key in seen:
                continue
            seen.add(key)
            rows.append(f"{en}\t{de}")
            if len(rows) >= n:
                break
    path.write_text("en\tde\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return len(rows)


def queries(k: int) -> list[str]:
    lines = [" ".join(ln.split()) for ln in open(DATA / "docs.en", encoding="utf-8")]
    lines = [ln for ln in lines if len(ln.split()) >= 5]
    step = max(1, len(lines) // k)
    return [protect_text(ln).text for ln in lines[::step][:k]]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=50000)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/verso-gloss-bench"))
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    if not DATA.exists():
        print(f"shared data not found: {DATA}", file=sys.stderr)
        return 1
    shutil.rmtree(a.work, ignore_errors=True)
    a.work.mkdir(parents=True)
    tsv = a.work / "ui-glossary.tsv"
    n = build_tsv(tsv, a.entries)

    t0 = time.perf_counter()
    gf = read_glossary_file(tsv)
    with Glossary(a.work / "g", create=True) as g:
        res = g.import_entries(gf.entries, problems=gf.problems)
    t_import = time.perf_counter() - t0

    rss0 = rss_mb()
    t0 = time.perf_counter()
    g = Glossary(a.work / "g")
    index = g.index()
    t_load = time.perf_counter() - t0
    rss1 = rss_mb()

    qs = queries(a.queries)
    for q in qs[:50]:  # warm the stemmer cache a little, as an editor session would
        find_terms(q, index)
    times, hits = [], 0
    for q in qs:
        t0 = time.perf_counter()
        found = find_terms(q, index)
        times.append((time.perf_counter() - t0) * 1000)
        hits += len(found)
    times.sort()
    out = {
        "entries": n, "added": res.added, "skipped": res.skipped, "import_s": round(t_import, 2), "load_s": round(t_load, 2),
        "index_rss_mb": round(rss1 - rss0, 1), "queries": len(qs),
        "mean_chars": round(statistics.mean(len(q) for q in qs), 1),
        "p50_ms": round(times[len(times) // 2], 3), "p95_ms": round(times[int(len(times) * 0.95)], 3),
        "max_ms": round(times[-1], 3), "hits_per_segment": round(hits / len(qs), 2),
    }
    g.close()
    print(json.dumps(out, indent=2))
    if a.json:
        a.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
