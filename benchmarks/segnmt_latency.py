"""Suggestion latency with retrieval (issue 5): TM search (top-K) + SEG-NMT beam search, one
sentence per call as the editor asks, on the CPU; and the online-adaptation demo.

    .venv/bin/python -m benchmarks.segnmt_latency latency --model DIR --tm TM_DIR \\
        --src $VERSO_RUNS/demo-data/test.en --n 30 --k 4 [--min-score 0.3] [--quantize] [--memory-mode knn]
    .venv/bin/python -m benchmarks.segnmt_latency adapt --model DIR

``latency``: sentences of 18-22 words; 3 warm-up calls; reports p50/p95/mean of
the retrieval, the translation and both together (``--min-score``: the model reads
only the pairs scoring at least that, as the editor does; ``--memory-mode``: which memory reads
them -- ``knn``, ``learned``, ``none``, ``auto`` -- as ``Translator.translate(memory_mode=...)``,
left to the translator's default when not given).  ``adapt``: a fresh TM (in a
temporary folder) gets one pair with a rare term; the next suggestion for a
similar sentence is shown before/after, with the words the memory supplied.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path




def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def cmd_latency(a) -> None:
    import torch

    from engine.nmt.data import read_lines
    from engine.nmt.retrieval import readable, retrieve
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    def pairs_of(s: str) -> list:
        return readable(retrieve(tm, s, k=a.k), a.min_score)

    torch.set_num_threads(a.threads)
    tr = Translator.load(a.model, quantize=a.quantize)
    tm = TranslationMemory(a.tm, create=False)
    mode = {} if a.memory_mode is None else {"memory_mode": a.memory_mode}
    sents = [s for s in read_lines(a.src) if 18 <= len(s.split()) <= 22][:a.n]
    for s in sents[:3]:
        tr.translate([s], beam=a.beam, memories=[pairs_of(s)], **mode)
    t_ret, t_tr, t_all, pairs, out_len = [], [], [], [], []
    for s in sents:
        t0 = time.perf_counter()
        mem = [] if a.k == 0 else pairs_of(s)
        t1 = time.perf_counter()
        res = tr.translate([s], beam=a.beam, memories=[mem] if a.k else None, **mode)[0]
        t2 = time.perf_counter()
        t_ret.append((t1 - t0) * 1000)
        t_tr.append((t2 - t1) * 1000)
        t_all.append((t2 - t0) * 1000)
        pairs.append(len(mem))
        out_len.append(len(res.tokens))
    out = {"model": a.model, "quantized": a.quantize, "k": a.k, "min_score": a.min_score, "beam": a.beam,
           "memory_mode": a.memory_mode, "threads": a.threads,
           "sentences": len(sents),
           "mean_words": round(statistics.mean(len(s.split()) for s in sents), 1),
           "mean_pairs": round(statistics.mean(pairs), 2), "mean_output_subwords": round(statistics.mean(out_len), 1)}
    for name, xs in (("retrieval_ms", t_ret), ("translate_ms", t_tr), ("total_ms", t_all)):
        out[name] = {"p50": round(pct(xs, 50), 1), "p95": round(pct(xs, 95), 1), "mean": round(statistics.mean(xs), 1)}
    print(json.dumps(out, indent=1))


def cmd_adapt(a) -> None:
    import torch

    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    torch.set_num_threads(a.threads)
    tr = Translator.load(a.model)
    with tempfile.TemporaryDirectory() as d, TranslationMemory(Path(d) / "tm", src_lang="en", tgt_lang="de") as tm:
        before = tr.translate([a.query], beam=a.beam, tm=tm, k=4)[0]
        t0 = time.perf_counter()
        uid = tm.add(a.pair_src, a.pair_tgt)
        t1 = time.perf_counter()
        after = tr.translate([a.query], beam=a.beam, tm=tm, k=4)[0]
        t2 = time.perf_counter()
    used = [(w, round(c, 3), f["word"]) for w, c, f in zip(after.words, after.copy, after.memory)
            if f is not None and c >= 0.1]
    print(json.dumps({"query": a.query, "added_pair": [a.pair_src, a.pair_tgt], "unit": uid,
                      "before": before.text, "after": after.text,
                      "term_used": a.term in after.text, "term_before": a.term in before.text,
                      "copied_words (word, zeta*p_copy, from)": used,
                      "add_ms": round((t1 - t0) * 1000, 1), "next_suggestion_ms": round((t2 - t1) * 1000, 1)},
                     indent=1, ensure_ascii=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("latency")
    p.add_argument("--model", required=True)
    p.add_argument("--tm", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--n", type=int, default=30)
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--min-score", type=float, default=0.0, help="read only the pairs scoring at least this")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--quantize", action="store_true")
    p.add_argument("--memory-mode", choices=("auto", "knn", "learned", "none"), default=None,
                   help="the memory that reads the pairs (default: the translator's)")
    p.set_defaults(fn=cmd_latency)
    p = sub.add_parser("adapt")
    p.add_argument("--model", required=True)
    p.add_argument("--query", default="To rename an album, select it in the sidebar and press F2.")
    p.add_argument("--pair-src", default="To rename a photo, select it and press F2.")
    p.add_argument("--pair-tgt", default="Um ein Foto umzubenennen, wählen Sie es aus und drücken Sie F2.")
    p.add_argument("--term", default="umzubenennen")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.set_defaults(fn=cmd_adapt)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
