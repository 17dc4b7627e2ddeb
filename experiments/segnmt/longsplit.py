"""Issue 5, JRC-Acquis: translate test sentences over the training length limit piece by piece
(``Translator.translate(split_long=...)``, :mod:`engine.nmt.longsplit`) and re-score the SEG-NMT band table.

Only the sentences that get cut are re-translated; the others keep their stored hypotheses (a sentence's output
does not depend on the rest of its batch), so the "whole" column is the stored system and "split" the same system
with cutting.  Paths follow the runs of RESULTS.md (under $VERSO_RUNS, default runs/ in the repository):

    OMP_NUM_THREADS=1 .venv/bin/python -m experiments.segnmt.longsplit            # all systems
    OMP_NUM_THREADS=1 .venv/bin/python -m experiments.segnmt.longsplit seg_k1     # one
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import sacrebleu
import torch

from engine.nmt.casing import fold_if_caps, is_all_caps  # noqa: E402
from engine.nmt.retrieval import bleu_by_band, retrieve  # noqa: E402
from engine.nmt.translator import Translator  # noqa: E402
from benchmarks.paths import RUNS
from engine.tm import TranslationMemory  # noqa: E402

D, R, O = RUNS / "doc-data/jrc", RUNS / "segnmt-jrc", RUNS / "longsplit"
SYSTEMS = {  # name: (model, stored hypotheses of the whole test set, reads the memory)
    "seg_k1": (R / "seg-ft300-s1", R / "segnmt-jrc_seg-ft300-s1.k1.hyp", True),
    "base_cont300": (R / "base-cont300-s1", R / "base-cont300.hyp", False),
    "baseline": (RUNS / "doc-ft/jrc/baseline-s1", RUNS / "caps/jrc-baseline.hyp", False),
}


def lines(p: Path) -> list[str]:
    return p.read_text(encoding="utf-8").splitlines()


def main(only: list[str]) -> None:
    torch.set_num_threads(1)
    O.mkdir(parents=True, exist_ok=True)
    src, ref = lines(D / "test.en"), lines(D / "test.de")
    tm = TranslationMemory(R / "tm", create=False)
    mem = [retrieve(tm, s, k=1) for s in src]
    score = [m[0].score if m else 0.0 for m in mem]
    out = {"tm_copy": [m[0].target if m else "" for m in mem]}
    long_, cut = [], []
    t0 = time.time()
    for name in only:
        model, stored, use_mem = SYSTEMS[name]
        tr = Translator.load(model)
        lim = tr.loaded.cfg.data.max_len
        long_ = [i for i, s in enumerate(src) if len(tr.loaded.src_vocab.encode(fold_if_caps(s))) >= lim]
        cut = [i for i in long_ if len(tr._cut(src[i], lim)[0]) > 1]
        whole = lines(stored)
        assert len(whole) == len(src), stored
        split = list(whole)
        for i, r in zip(cut, tr.translate([src[i] for i in cut], memories=[mem[i] for i in cut] if use_mem else None)):
            split[i] = r.text
        (O / f"{name}.split.hyp").write_text("".join(h + "\n" for h in split), encoding="utf-8")
        out[f"{name}_whole"], out[f"{name}_split"] = whole, split
        print(f"{name}: {len(long_)} sentences at the limit or over, {len(cut)} cut, {time.time() - t0:.0f} s", flush=True)
    res = bleu_by_band(out, ref, score)
    sets = {"cut": cut, "long, not cut": [i for i in long_ if i not in cut],
            ">=0.9, long": [i for i in long_ if score[i] >= 0.9],
            ">=0.9, all caps": [i for i, s in enumerate(src) if score[i] >= 0.9 and is_all_caps(s)],
            ">=0.9, the others": [i for i, s in enumerate(src) if score[i] >= 0.9 and not is_all_caps(s)
                                  and i not in long_]}
    res["subsets"] = {k: {"sentences": len(ii), "bleu": {n: round(sacrebleu.corpus_bleu(
        [h[i] for i in ii], [[ref[i] for i in ii]]).score, 2) for n, h in out.items()}} for k, ii in sets.items()}
    (O / f"table-{'-'.join(only)}.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(res))


if __name__ == "__main__":
    main(sys.argv[1:] or list(SYSTEMS))
