"""Is a BLEU / chrF difference more than the test set's noise?  Paired bootstrap resampling
(Koehn 2004) through sacrebleu, the first system being the baseline:

    .venv/bin/python -m engine.nmt.significance --ref test.de baseline=base.hyp context=ctx.hyp ...

Prints a markdown table: each system's score, the bootstrap mean with its 95 % confidence
interval, and the p-value of the difference to the baseline (1,000 resamples, sacrebleu's fixed
seed 12345, so a rerun prints the same table).  ``--lines FILE`` scores a subset: the 1-based line
numbers in FILE (one per line), e.g. the sentences of one fuzzy-match band.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["paired_bootstrap", "table", "main"]


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _check_lengths(ref: list[str], systems: list[tuple[str, list[str]]]) -> None:
    for name, hyps in systems:
        if len(hyps) != len(ref):
            raise SystemExit(f"{name}: {len(hyps)} lines, the reference has {len(ref)}")


def paired_bootstrap(ref: list[str], systems: list[tuple[str, list[str]]], n: int = 1000) -> list[dict]:
    """One dict per system: name, bleu / chrf with ``mean``, ``ci`` (half-width of the 95 % interval)
    and, except for the baseline (the first), ``p`` of its difference to the baseline."""
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    _check_lengths(ref, systems)
    test = PairedTest(systems, {"BLEU": BLEU(), "chrF": CHRF()}, [ref], test_type="bs", n_samples=n)
    _, scores = test()
    rows = []
    for i, name in enumerate(scores["System"]):
        row = {"name": name}
        for key, metric in zip(("bleu", "chrf"), [k for k in scores if k != "System"]):  # "BLEU", "chrF2"
            res = scores[metric][i]
            row[key] = {"score": round(float(res.score), 2), "mean": round(float(res.mean), 2),
                        "ci": round(float(res.ci), 2), "p": None if i == 0 else round(float(res.p_value), 4)}
        rows.append(row)
    return rows


def table(rows: list[dict], sentences: int) -> str:
    out = [f"| system ({sentences} sentences) | BLEU | 95 % CI | p vs {rows[0]['name']} | chrF | 95 % CI | p |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        b, c = r["bleu"], r["chrf"]
        fmt = lambda m: f"{m['score']:.2f} | {m['mean']:.2f} +- {m['ci']:.2f} | " + (  # noqa: E731
            "-" if m["p"] is None else f"{m['p']:.4f}")
        out.append(f"| {r['name']} | {fmt(b)} | {fmt(c)} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, type=Path)
    ap.add_argument("--lines", type=Path, help="score only these 1-based line numbers (one per line)")
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("systems", nargs="+", help="NAME=HYP_FILE, the baseline first")
    a = ap.parse_args(argv)
    systems = []
    for spec in a.systems:
        name, sep, path = spec.partition("=")
        if not sep:
            ap.error(f"{spec!r}: write NAME=HYP_FILE")
        systems.append((name, _read(Path(path))))
    if len(systems) < 2:
        ap.error("give the baseline and at least one system")
    ref = _read(a.ref)
    _check_lengths(ref, systems)  # whole files line up before any subset is taken
    if a.lines:
        keep = [int(x) - 1 for x in a.lines.read_text(encoding="utf-8").split()]
        ref = [ref[i] for i in keep]
        systems = [(name, [hyps[i] for i in keep]) for name, hyps in systems]
    print(table(paired_bootstrap(ref, systems, a.samples), len(ref)))


if __name__ == "__main__":
    sys.exit(main())
