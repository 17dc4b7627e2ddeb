"""BLEU and chrF by fuzzy band for several hypothesis files of one test set, each against the first (issue 47:
"no drop of BLEU by fuzzy band", before / after).  The band of a sentence is that of its best match in the TM
(engine.nmt.retrieval.FUZZY_BANDS, as ``verso eval --tm`` bands it; sources read as the editor reads them,
markup as inline codes); in every band each system after the first gets the p of a paired bootstrap against it
(engine/nmt/significance.py: 1,000 resamples, sacrebleu's fixed seed; "= first": the same outputs in that band).

    .venv/bin/python -m benchmarks.band_compare --src test.en --ref test.de --tm TM_DIR base=base.hyp head=head.hyp
"""
from __future__ import annotations

import argparse
from pathlib import Path


def best_scores(tm_dir: str, sources: list[str]) -> list[float]:
    from engine.formats.textutil import protect_text
    from engine.nmt.retrieval import retrieve
    from engine.tm import TranslationMemory

    with TranslationMemory(tm_dir, create=False) as tm:
        found = [retrieve(tm, protect_text(s).text, k=1) for s in sources]
    return [m[0].score if m else 0.0 for m in found]


def band_rows(refs: list[str], systems: list[tuple[str, list[str]]], best: list[float], samples: int) -> list[str]:
    from engine.nmt.retrieval import FUZZY_BANDS
    from engine.nmt.significance import paired_bootstrap

    head = "| band | sentences | " + " | ".join(f"{n} BLEU | {n} chrF" for n, _ in systems) + " |"
    out = [head, "|" + "---|" * (2 + 2 * len(systems))]
    groups = [("all", 0.0, float("inf"))] + [(name, lo, hi) for lo, hi, name in FUZZY_BANDS]
    for name, lo, hi in groups:
        idx = [i for i, s in enumerate(best) if lo <= s < hi]
        if not idx:
            continue
        sub = [(n, [h[i] for i in idx]) for n, h in systems]
        rows = paired_bootstrap([refs[i] for i in idx], sub, n=samples)

        def cell(m, same):
            note = "" if m["p"] is None else " (= first)" if same else f" (p {m['p']:.3f})"
            return f"{m['score']:.2f}" + note
        same = [h == sub[0][1] for _, h in sub]  # the bootstrap's p of identical outputs means nothing
        out.append(f"| {name} | {len(idx)} | " + " | ".join(
            f"{cell(r['bleu'], s)} | {cell(r['chrf'], s)}" for r, s in zip(rows, same)) + " |")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--tm", required=True, metavar="TM_DIR")
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("systems", nargs="+", metavar="NAME=HYP", help="the first is the baseline")
    a = ap.parse_args(argv)
    read = lambda p: Path(p).read_text(encoding="utf-8").splitlines()  # noqa: E731
    sources, refs = read(a.src), read(a.ref)
    systems = []
    for spec in a.systems:
        name, sep, path = spec.partition("=")
        if not sep:
            raise SystemExit(f"{spec}: expected NAME=HYP_FILE")
        hyps = read(path)
        if len(hyps) != len(refs):
            raise SystemExit(f"{path}: {len(hyps)} lines, {a.ref} has {len(refs)}")
        systems.append((name, hyps))
    print("\n".join(band_rows(refs, systems, best_scores(a.tm, sources), a.samples)))


if __name__ == "__main__":
    main()
