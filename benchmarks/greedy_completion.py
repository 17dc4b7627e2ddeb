"""The first completion on a long row whose suggestion was translated greedily ahead (app/suggest_ahead.py):
CPU of the completion and the unconstrained searches it runs, completed at beam 2 (the completion's own beam)
against at beam 1 (the beam of the suggestion shown, whose search the engine remembers).

    PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.greedy_completion --model resources/models/demo [--n 30]

Sentences: the first ``--n`` of 15 words or more of the held-out KDE manuals; the translator types the
suggestion's first word; two rounds, one thread, CPU by ``time.process_time``."""
from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=30)
    args = ap.parse_args()
    import torch

    from benchmarks.nmt_speed import held_out_lines
    from engine.nmt.results import TranslationRequest
    from engine.nmt.translator import Translator

    torch.set_num_threads(1)
    tr = Translator.load(args.model)
    rows = [s for s in held_out_lines() if len(s.split()) >= 15][:args.n]
    cpu: dict[int, list[float]] = {1: [], 2: []}
    plain = {1: 0, 2: 0}
    real = tr.translate

    def counted(beam: int):
        def translate(texts, **kw):
            plain[beam] += not any(kw.get("prefixes") or ())
            return real(texts, **kw)
        return translate

    for _round in range(2):
        for s in rows:
            for beam in (2, 1):
                tr.__dict__.pop("_plain", None)
                shown = tr.suggest(TranslationRequest(s, "", (), None, ()), beam=1)  # the row ahead, greedy
                typed = shown.text.split()[0] + " "
                tr.translate = counted(beam)
                t = time.process_time()
                tr.suggest(TranslationRequest(s, typed, (), None, ()), beam=beam)
                cpu[beam].append((time.process_time() - t) * 1000)
                del tr.translate
    for beam in (2, 1):
        v = sorted(cpu[beam])
        print(f"completion at beam {beam}: n={len(v)} CPU ms mean {statistics.mean(v):.1f} p50 {v[len(v) // 2]:.1f} "
              f"p95 {v[int(len(v) * 0.95)]:.1f}; unconstrained searches {plain[beam]}")


if __name__ == "__main__":
    main()
