"""Retrieval for the SEG-NMT experiment (issue 5), ahead of training.

Builds the TM of the demo corpus' training part (``$VERSO_RUNS/demo-data``,
whole KDE manuals held out for dev/test) and retrieves, with the same code
and cache as training (:class:`engine.nmt.retrieval.TrainingRetrieval`):

* for every training pair, in the order training will visit them (epoch 0
  batches of the demo config from ``--from-batch`` on), its top-K neighbours,
  never itself nor a same-source pair (Algorithm 2);
* for the dev and test sentences, their top-16 pairs and the coverage selection.

Results go to the JSON-lines cache that ``verso train`` reads, so training
never waits for a search it can find there::

    nice -n 10 .venv/bin/python -m experiments.segnmt.prepare \\
        --data $VERSO_RUNS/demo-data --vocab $VERSO_RUNS/demo-ende/spm.model \\
        --cache $VERSO_RUNS/segnmt/memory --from-batch 500
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.paths import RUNS

from engine.nmt.data import encode_corpus, make_batches, read_parallel  # noqa: E402
from engine.nmt.retrieval import TrainingRetrieval  # noqa: E402
from engine.nmt.vocab import SubwordVocab  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(RUNS / "demo-data"))
    ap.add_argument("--vocab", default=str(RUNS / "demo-ende/spm.model"))
    ap.add_argument("--cache", default=str(RUNS / "segnmt/memory"))
    ap.add_argument("--k", type=int, default=1, help="neighbours per training pair")
    ap.add_argument("--from-batch", type=int, default=0, help="first epoch-0 batch to retrieve for")
    ap.add_argument("--batch-tokens", type=int, default=4000)
    ap.add_argument("--max-len", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eval-k", type=int, default=16)
    a = ap.parse_args()
    d = Path(a.data)
    src, tgt = read_parallel(d / "train.en", d / "train.de")
    t0 = time.time()
    r = TrainingRetrieval(a.cache, d / "train.en", d / "train.de", src, tgt, k=a.k, src_lang="en", tgt_lang="de")
    r.tm
    print(f"TM ready: {len(r.tm)} units, {time.time() - t0:.0f} s", flush=True)
    for split in ("dev", "test"):
        s, _ = read_parallel(d / f"{split}.en", d / f"{split}.de")
        r.query(s, k=a.eval_k)
        r.query(s, k=a.eval_k, coverage=True)
    print(f"dev/test retrieved, {time.time() - t0:.0f} s", flush=True)
    sv = SubwordVocab.load(a.vocab)
    examples = encode_corpus(src, tgt, sv, sv, max_len=a.max_len)
    batches = make_batches(examples, a.batch_tokens, seed=a.seed, epoch=0)
    order = batches[a.from_batch:] + batches[:a.from_batch]
    done = 0
    for k, b in enumerate(order):
        r.neighbours([e.index for e in b])
        done += len(b)
        if k % 10 == 0:
            print(f"batch {a.from_batch + k}: {done} pairs, {r.searched} searched, "
                  f"{time.time() - t0:.0f} s", flush=True)
    r.close()


if __name__ == "__main__":
    main()
