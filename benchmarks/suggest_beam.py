"""The editor's suggestion: what a smaller beam costs in quality and saves in CPU, by segment length.

    .venv/bin/python -m benchmarks.suggest_beam --model resources/models/demo [--n 120] [--beams 5,3,2,1]

Held-out sentence pairs of the KDE manuals (the demo model's test documents; lines without markup),
``--n`` per source-length band (1-14, 15-29, 30+ words, every k-th pair of the band), each translated
alone as the editor asks (one thread, ``Translator.translate([s], beam=B)``).  Per band and beam:
BLEU and chrF against the reference (sacrebleu), mean and p95 CPU ms per sentence
(``time.process_time``), and the paired-bootstrap p-value of the BLEU difference to beam 5.  Prints
JSON; results go to benchmarks/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

BANDS = ((1, 14), (15, 29), (30, 10**9))


def pairs(n: int) -> dict[str, list[tuple[str, str]]]:
    from benchmarks.paths import SHARED_DATA
    from experiments.demo.prepare import held_out

    kde = SHARED_DATA / "kde4-l10n-de"
    en = (kde / "docs.en").read_text(encoding="utf-8").splitlines()
    de = (kde / "docs.de").read_text(encoding="utf-8").splitlines()
    doc = (kde / "docs.doc").read_text(encoding="utf-8").splitlines()
    test = [(s.strip(), t.strip()) for s, t, d in zip(en, de, doc)
            if held_out(d) == 2 and s.strip() and t.strip() and not any(c in s + t for c in "<>&")]
    out = {}
    for lo, hi in BANDS:
        band = [p for p in test if lo <= len(p[0].split()) <= hi]
        step = max(1, len(band) // n)
        out[f"{lo}-{hi}" if hi < 10**9 else f"{lo}+"] = band[::step][:n]
    return out


def run(model: str, n: int, beams: list[int]) -> dict:
    from engine.nmt.evaluate import CHRF, bleu
    from engine.nmt.significance import paired_bootstrap
    from engine.nmt.translator import Translator

    tr = Translator.load(model, threads=1)
    tr.translate(["Warm up the engine."], beam=5)
    out: dict = {"model": model, "beams": beams, "bands": {}}
    for band, ps in pairs(n).items():
        srcs, refs = [s for s, _ in ps], [t for _, t in ps]
        row: dict = {"sentences": len(ps), "mean_words": round(statistics.mean(len(s.split()) for s in srcs), 1)}
        hyps_of = {}
        for beam in beams:
            hyps, cpu = [], []
            for s in srcs:
                c0 = time.process_time()
                hyps.append(tr.translate([s], beam=beam)[0].text)
                cpu.append((time.process_time() - c0) * 1000)
            hyps_of[beam] = hyps
            cpu.sort()
            row[f"beam{beam}"] = {"bleu": round(bleu(hyps, refs), 2),
                                  "chrf": round(CHRF().corpus_score(hyps, [refs]).score, 2),
                                  "cpu_ms_mean": round(statistics.mean(cpu), 1),
                                  "cpu_ms_p95": round(cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))], 1),
                                  "same_as_beam5": (sum(a == b for a, b in zip(hyps, hyps_of[5])) if 5 in hyps_of
                                                    else None)}
        if 5 in hyps_of and len(hyps_of) > 1:  # p of each BLEU difference to beam 5 (paired bootstrap)
            rows = paired_bootstrap(refs, [(f"beam{b}", hyps_of[b]) for b in [5, *(b for b in beams if b != 5)]])
            for r in rows[1:]:
                row[r["name"]]["bleu_p_vs_beam5"] = r["bleu"]["p"]
        out["bands"][band] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--beams", default="5,3,2,1")
    a = ap.parse_args()
    print(json.dumps(run(a.model, a.n, [int(b) for b in a.beams.split(",")]), indent=2))


if __name__ == "__main__":
    main()
