"""How much work the document-context summaries save (issue 7 efficiency requirement).

Training: for the real length-bucketed batches of a corpus, the number of
context sentences the sentence RNN reads per batch (each once, ContextTable)
against the naive count (K per sentence, re-read by every sentence that
follows it).  Translation: sentences summarised by the translator's cache
while a whole test set is translated document by document, and the wall time
of translate_document with the cache against a fresh cache per batch of 32.

    .venv/bin/python -m experiments.doccontext.efficiency --data $VERSO_RUNS/doc-data/kde --model MODEL [--sentences 200]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path




def training_counts(data: Path, model: str, batch_tokens: int, k: int) -> dict:
    from engine.nmt.checkpoint import load_model
    from engine.nmt.data import encode_corpus, make_batches, read_parallel
    from engine.nmt.doccontext import ContextTable
    from engine.nmt.documents import parallel_layout

    lm = load_model(model)
    src, tgt = read_parallel(data / "train.en", data / "train.de")
    lay, tgt = parallel_layout(src, tgt, docs=data / "train.doc")
    ex = encode_corpus(lay.sentences, tgt, lm.src_vocab, lm.tgt_vocab, max_len=100)
    table = ContextTable.build(lay.sentences, lay.contexts(k), lm.src_vocab, k, 100)
    from engine.nmt.doccontext import window_batches

    out = {"sentences": len(ex)}
    for name, fn in (("length", make_batches), ("window", window_batches)):
        unique = naive = pad = 0
        batches = fn(ex, batch_tokens, seed=1)
        for b in batches:
            rows = [e.index for e in b]
            unique += table.batch(rows).unique_sentences
            naive += sum(len(table.contexts[r][-k:]) for r in rows)
            longest = max(max(len(e.src), len(e.tgt)) for e in b)
            pad += sum(longest - len(e.src) for e in b)
        out[name] = {"batches": len(batches), "context_reads_naive": naive, "context_reads_unique": unique,
                     "saving": round(1 - unique / max(naive, 1), 3), "source_padding_tokens": pad}
    return out


def translation_counts(data: Path, model: str, n: int, threads: int) -> dict:
    import torch

    from engine.nmt.data import read_lines
    from engine.nmt.documents import read_doc_ids
    from engine.nmt.translator import Translator

    torch.set_num_threads(threads)
    src = read_lines(data / "test.en")[:n]
    ids = read_doc_ids(data / "test.doc")[:n]
    tr = Translator.load(model)
    t0 = time.perf_counter()
    tr.translate_document(src, ids, beam=1)
    cached_s = time.perf_counter() - t0
    computed = tr._doc_cache.computed if tr._doc_cache else 0
    # without the translator cache: a fresh cache for each batch of 32 sentences
    t0 = time.perf_counter()
    fresh = naive = 0
    from engine.nmt.documents import context_texts

    ctx = context_texts(src, ids, tr.loaded.cfg.model.doc_k)
    for lo in range(0, len(src), 32):  # the same batches of 32, each context summarised afresh
        tr._doc_cache = None
        tr.translate(src[lo:lo + 32], context=ctx[lo:lo + 32], beam=1)
        fresh += tr._doc_cache.computed if tr._doc_cache else 0
        naive += sum(len(c) for c in ctx[lo:lo + 32])
    fresh_s = time.perf_counter() - t0
    return {"sentences": len(src), "summaries_naive_K_per_sentence": naive,
            "summaries_fresh_cache_per_batch_of_32": fresh, "summaries_with_translator_cache": computed,
            "seconds_with_cache": round(cached_s, 2), "seconds_fresh_cache_per_batch": round(fresh_s, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True, help="a document-context model folder (its vocabulary and doc_k)")
    ap.add_argument("--batch-tokens", type=int, default=4000)
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    from engine.nmt.checkpoint import load_model

    k = load_model(args.model).cfg.model.doc_k
    out = {"training": training_counts(Path(args.data), args.model, args.batch_tokens, k),
           "translation": translation_counts(Path(args.data), args.model, args.sentences, args.threads)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
