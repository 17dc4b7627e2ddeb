"""An outside anchor for the TM search (``benchmarks.tm_search --anchor tantivy``): tantivy's BM25
top N over the same TM's sources, then Verso's own re-rank of those N (the core score of each,
the full score with penalties, the matches as the search returns them), on the same queries.

tantivy is optional and never a dependency of Verso (``pip install tantivy`` into the venv);
without it the anchor is skipped with one line.  The tantivy index is built once under
``--work`` beside the TM (``tantivy-SIZE``) and kept for the next run.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np

_WORDS_ONLY = re.compile(r"[^\w\s]")


def available() -> bool:
    try:
        import tantivy  # noqa: F401
    except ImportError:
        return False
    return True


def _index(tm, folder: Path):
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_unsigned_field("uid", stored=True, indexed=True)
    sb.add_text_field("source", stored=False)
    schema = sb.build()
    done = folder / "built"
    if done.exists():
        return tantivy.Index(schema, path=str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    ix = tantivy.Index(schema, path=str(folder))
    w = ix.writer(heap_size=256_000_000, num_threads=1)
    for uid, source in tm.conn.execute("SELECT id, source FROM units ORDER BY id"):
        doc = tantivy.Document()
        doc.add_unsigned("uid", uid)
        doc.add_text("source", source)
        w.add_document(doc)
    w.commit()
    w.wait_merging_threads()
    done.write_text("ok")
    return ix


def run(tm, queries: list[str], truth: list, work: Path, size: int, tops=(50, 500)) -> dict:
    """p50/p95 (wall and thread CPU, ms) and best-match recall of BM25 top N + Verso's re-rank."""
    from engine.tm.candidates import Retrieval
    from engine.tm.rerank import full_scores, verify
    from engine.tm.scoring import Encoded
    from engine.tm.tokens import analyse

    t0 = time.perf_counter()
    ix = _index(tm, work / f"tantivy-{size}")
    build_s = time.perf_counter() - t0
    ix.reload()
    searcher = ix.searcher()
    stage = tm._stage("src", tm.search_pair())
    key_of = {u: i for i, u in enumerate(stage.uids(np.arange(stage.total, dtype=np.int64)))}
    enc = tm.vocab.encode_known
    out = {"tantivy_index_s": build_s}
    for top in tops:
        lat, cpu, found = [], [], []
        for q in queries:
            t, c = time.perf_counter(), time.thread_time()
            # words only, lower case: no query syntax (field:, AND, brackets) from the segment
            query, _errors = ix.parse_query_lenient(_WORDS_ONLY.sub(" ", q).lower(), ["source"])
            hits = searcher.search(query, top).hits
            uids = [searcher.doc(addr)["uid"][0] for _, addr in hits]
            qa = analyse(q)
            qe = Encoded(enc(qa.core), enc(qa.surface), enc(qa.punct))
            keys = np.array([key_of[u] for u in uids if u in key_of], dtype=np.int64)
            r = Retrieval(keys, np.ones(len(keys), np.float32), 1.0, 0, True)
            v = verify(stage, r, qe.core, 5, len(keys))
            ms = tm._matches(q, qa, full_scores(qe, stage, v, 5, 0.0)[:5], False)
            cpu.append((time.thread_time() - c) * 1000)
            lat.append((time.perf_counter() - t) * 1000)
            found.append([(m.score, m.entry.id) for m in ms])
        from benchmarks.tm_search import best_recall, pct

        out[f"top{top}"] = {"p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95), "cpu_p50_ms": pct(cpu, 50),
                            "cpu_p95_ms": pct(cpu, 95), "best_match_recall": best_recall(found, truth)}
    return out
