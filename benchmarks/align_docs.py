"""Sentence alignment of documents against the known alignment (issue 50).

    .venv/bin/python -m benchmarks.align_docs [--docs 8] [--max-sents 400] [--model] [--seed 1]

Documents of the shared sentence-aligned corpora (JRC-Acquis en-de/en-fr by ``common.docid``, KDE
manuals en-de by ``docs.doc``, Hansards en-fr by ``senate.docid``): the last ``--docs`` documents of
each (at least 15 sentences, at most ``--max-sents`` sentences per corpus in all), whose lines are
known 1-1 pairs, inline markup protected as codes (as a document reader gives it).  Each document's sentences are joined 3-8 at a time (seeded) into paragraphs, the
same on both sides; then ``--change`` (default 10 %) of the sentences are changed: half deleted on
one side (a 1-0 or 0-1 link), half merged with their neighbour on one side (a 2-1 or 1-2 link).
Precision, recall and F1 of the links with text on both sides (what goes into the TM; strict: a link
is right only when both its source and its target sentence sets are exactly the known ones), for:

* ``length``: Verso's aligner without a model (Gale-Church length + number/code anchors);
* ``model``: as ``verso align-docs`` with a model: the length aligner first, then the demo model's
  greedy translations of the sentences around its links below 0.9 confidence (engine.align.run),
  en->de only (the demo model's pair), with ``--model``.

* ``gale_church``: the baseline as published (their priors and length cost, no anchors, no
  paragraphs), on Verso's lattice;
* ``length_no_paragraphs``: Verso's length aligner without the paragraph anchors.

Bleualign and Vecalign were not run as anchors: both need the whole source translated (Bleualign)
or multilingual sentence embeddings (Vecalign: LASER, a model download) that this machine cannot
fetch; see RESULTS.md.

Speed: source sentences aligned per minute of wall time, translation included (all documents' unsure
sentences in one call, as one long document), and per minute of
this process's CPU time (all its threads): on the shared machine other jobs take most of the wall time.  Prints JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import OrderedDict

from benchmarks.paths import SHARED_DATA

CORPORA = [  # name, folder, source file, target file, document ids, model pair served
    ("jrc-ende", "jrc-acquis-endefr", "common.en", "common.de", "common.docid", True),
    ("jrc-enfr", "jrc-acquis-endefr", "common.en", "common.fr", "common.docid", False),
    ("kde-ende", "kde4-l10n-de", "docs.en", "docs.de", "docs.doc", True),
    ("hansards-enfr", "hansards-senate-enfr", "senate.en", "senate.fr", "senate.docid", False),
]


def documents(folder: str, sf: str, tf: str, df: str, n_docs: int, max_sents: int) -> list[tuple[list, list]]:
    base = SHARED_DATA / folder
    src = (base / sf).read_text(encoding="utf-8").splitlines()
    tgt = (base / tf).read_text(encoding="utf-8").splitlines()
    ids = (base / df).read_text(encoding="utf-8").splitlines()
    docs: OrderedDict = OrderedDict()
    for s, t, d in zip(src, tgt, ids):
        if s.strip() and t.strip():
            docs.setdefault(d, []).append((s.strip(), t.strip()))
    from engine.inline import protect

    out, total = [], 0
    for pairs in reversed(list(docs.values())):
        if len(pairs) < 15:
            continue
        pairs = pairs[:max_sents - total]
        if len(pairs) < 15:
            break
        # inline markup (KDE's DocBook tags) as one code each, as Verso's document readers give it
        out.append(([protect(p[0]).text for p in pairs], [protect(p[1]).text for p in pairs]))
        total += len(pairs)
        if len(out) >= n_docs:
            break
    return out


def perturb(src: list[str], tgt: list[str], rng: random.Random, change: float):
    """(src sents, src paragraph ids, tgt sents, tgt paragraph ids, gold links with text on both sides)."""
    par, p, left = [], 0, rng.randint(3, 8)
    for _ in src:
        if left == 0:
            p, left = p + 1, rng.randint(3, 8)
        par.append(p)
        left -= 1
    # beads over the original 1-1 pairs: each item (src indices, tgt indices)
    beads = [([i], [i]) for i in range(len(src))]
    i = 0
    out = []
    while i < len(beads):
        r = rng.random()
        nxt_same = i + 1 < len(beads) and par[i + 1] == par[i]
        if r < change / 2:
            out.append((beads[i][0], []) if rng.random() < 0.5 else ([], beads[i][1]))
            i += 1
        elif r < change and nxt_same:
            a, b = beads[i], beads[i + 1]
            out.append((a[0] + b[0], a[1] + b[1]))  # merged on one side below
            out[-1] = out[-1] + (("src" if rng.random() < 0.5 else "tgt"),)
            i += 2
        else:
            out.append(beads[i])
            i += 1
    ss, sp, ts, tp, gold = [], [], [], [], set()
    for b in out:
        s_idx, t_idx = b[0], b[1]
        merge = b[2] if len(b) > 2 else None
        s_new, t_new = [], []
        if merge == "src":
            s_new = [len(ss)]
            ss.append(" ".join(src[i] for i in s_idx))
            sp.append(par[s_idx[0]])
        else:
            for i in s_idx:
                s_new.append(len(ss))
                ss.append(src[i])
                sp.append(par[i])
        if merge == "tgt":
            t_new = [len(ts)]
            ts.append(" ".join(tgt[i] for i in t_idx))
            tp.append(par[t_idx[0]])
        else:
            for i in t_idx:
                t_new.append(len(ts))
                ts.append(tgt[i])
                tp.append(par[i])
        if s_new and t_new:
            gold.add((tuple(s_new), tuple(t_new)))
    return ss, sp, ts, tp, gold


class GaleChurch:
    """The baseline: Gale & Church (1993) as published -- their priors, their length cost for every bead
    (1-0 included), no anchors, no paragraphs; one banded lattice per document."""

    PRIORS = {(1, 1): 0.89, (1, 0): 0.0099 / 2, (0, 1): 0.0099 / 2, (2, 1): 0.089 / 2, (1, 2): 0.089 / 2}

    def __init__(self, src: list[str], tgt: list[str]):
        self.ls, self.lt = [len(x) for x in src], [len(x) for x in tgt]
        self.c = sum(self.lt) / max(1, sum(self.ls))

    def __call__(self, i: int, j: int, k: int, l_: int) -> float:
        import math

        ls, lt = sum(self.ls[i:i + k]), sum(self.lt[j:j + l_])
        mean = (ls + lt / self.c) / 2.0
        delta = (lt - ls * self.c) / math.sqrt(6.8 * max(mean, 1.0))
        return -math.log(self.PRIORS[(k, l_)]) - math.log(max(math.erfc(abs(delta) / math.sqrt(2.0)), 1e-12))


def _translate_unsure(cases: list, cache: dict, cache_file: str) -> tuple[int, float]:
    """The demo model's translations of every document's sentences around unsure links, in one call (as
    one long document would be): (sentences to translate, seconds)."""
    from engine.align.aligner import align_texts
    from engine.align.model import find_model, translate
    from engine.align.run import unsure_sentences

    todo = []
    for ss, sp, ts, tp, _ in cases:
        first = align_texts(ss, ts, src_paragraphs=sp, tgt_paragraphs=tp)
        todo += [ss[i] for i in unsure_sentences(first, len(ss))]
    new = list(dict.fromkeys(x for x in todo if x not in cache))
    t0 = time.perf_counter()
    for x, t in zip(new, translate(new, find_model("en", "de")[0]) if new else []):
        cache[x] = t
        if cache_file:
            with open(cache_file, "a", encoding="utf-8") as fh:
                fh.write(json.dumps([x, t], ensure_ascii=False) + "\n")
    return len(todo), time.perf_counter() - t0


def prf(found: set, gold: set) -> dict:
    ok = len(found & gold)
    p = ok / len(found) if found else 0.0
    r = ok / len(gold) if gold else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--max-sents", type=int, default=400)
    ap.add_argument("--change", type=float, default=0.10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", action="store_true", help="also align with the demo model's translations")
    ap.add_argument("--corpora", default=",".join(c[0] for c in CORPORA))
    ap.add_argument("--mt-cache", default="", metavar="FILE.jsonl",
                    help="keep the model's translations here and reuse them (to try cost weights without "
                         "translating again; the speed figures then leave the translation out)")
    a = ap.parse_args()
    cache: dict[str, str] = {}
    if a.mt_cache and os.path.exists(a.mt_cache):
        with open(a.mt_cache, encoding="utf-8") as fh:
            cache = dict(json.loads(line) for line in fh if line.strip())
    from engine.align.aligner import align_texts

    rng = random.Random(a.seed)
    report = {}
    for name, folder, sf, tf, df, served in CORPORA:
        if name not in a.corpora.split(","):
            continue
        if not (SHARED_DATA / folder / sf).is_file():
            report[name] = "shared data absent"
            continue
        cases = [perturb(s, t, rng, a.change) for s, t in documents(folder, sf, tf, df, a.docs, a.max_sents)]
        row: dict = {"documents": len(cases), "source_sentences": sum(len(c[0]) for c in cases),
                     "gold_links": sum(len(c[4]) for c in cases)}
        methods = ["length"] + (["model"] if a.model and served else [])
        for method in methods:
            found, gold, t0, c0 = set(), set(), time.perf_counter(), time.process_time()
            mt_s, translated, unsure = 0.0, 0, set()
            if method == "model":
                translated, mt_s = _translate_unsure(cases, cache, a.mt_cache)
            for k, (ss, sp, ts, tp, g) in enumerate(cases):
                mt = None
                if method == "model":   # as engine.align.run: the model only around unsure links
                    from engine.align.run import unsure_sentences

                    first = align_texts(ss, ts, src_paragraphs=sp, tgt_paragraphs=tp)
                    mt = [None] * len(ss)
                    for i in unsure_sentences(first, len(ss)):
                        mt[i] = cache[ss[i]]
                links = align_texts(ss, ts, mt=mt, src_paragraphs=sp, tgt_paragraphs=tp)
                found |= {((k, x.src), (k, x.tgt)) for x in links if x.src and x.tgt}
                unsure |= {((k, x.src), (k, x.tgt)) for x in links if x.src and x.tgt and x.confidence < 0.9}
                gold |= {((k, s), (k, t)) for s, t in g}
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            wrong = found - gold
            row[method] = {**prf(found, gold), "seconds": round(dt, 1), "translate_seconds": round(mt_s, 1),
                           "sentences_translated": translated,
                           "wrong_links_below_0.9": f"{len(wrong & unsure)}/{len(wrong)}",
                           "cpu_seconds": round(cpu, 1),
                           "sentences_per_cpu_minute": round(row["source_sentences"] / max(cpu, 1e-9) * 60),
                           "sentences_per_minute": round(row["source_sentences"] / dt * 60)}
        found, gold, t0 = set(), set(), time.perf_counter()
        for k, (ss, sp, ts, tp, g) in enumerate(cases):
            from engine.align.dp import align

            links = align(len(ss), len(ts), GaleChurch(ss, ts))
            found |= {((k, x.src), (k, x.tgt)) for x in links if x.src and x.tgt}
            gold |= {((k, s), (k, t)) for s, t in g}
        dt = time.perf_counter() - t0
        row["gale_church"] = {**prf(found, gold), "seconds": round(dt, 1),
                              "sentences_per_minute": round(row["source_sentences"] / dt * 60)}
        # the same documents with the paragraphs taken away: the whole document is one lattice
        found, gold, t0 = set(), set(), time.perf_counter()
        for k, (ss, sp, ts, tp, g) in enumerate(cases):
            links = align_texts(ss, ts)
            found |= {((k, x.src), (k, x.tgt)) for x in links if x.src and x.tgt}
            gold |= {((k, s), (k, t)) for s, t in g}
        dt = time.perf_counter() - t0
        row["length_no_paragraphs"] = {**prf(found, gold), "seconds": round(dt, 1),
                                       "sentences_per_minute": round(row["source_sentences"] / dt * 60)}
        report[name] = row
        print(json.dumps({name: row}), flush=True)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
