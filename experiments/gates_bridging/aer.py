"""AER of a model's attention alignments on the WPT 2003 En-Fr trial gold (issue 4; Table 4 of Tu et al. 2017).

Forced decoding of each gold pair (``Translator.align``: one link per target word, the most-attended
source word, subword attention summed per word), scored against the sure/possible gold links::

    .venv/bin/python -m experiments.gates_bridging.aer --model MODEL [MODEL ...] --data $VERSO_RUNS/hansards-data [--device cuda]

Prints one JSON line per model: AER (%), precision against possible links, recall of sure links.
``--variants`` adds the AER of other ways to read links off the same word attention matrix: one link per
source word (``source``), the intersection and union of both directions, and grow-diag-final of the two
(``gdf``, the usual symmetrisation of two directional aligners, here applied to one attention matrix).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path



from engine.nmt.align import aer, read_wpt  # noqa: E402


def _scores(pred: list[set], gold: list) -> dict:
    n_a = sum(map(len, pred))
    in_p = sum(len(A & (P | S)) for A, (S, P) in zip(pred, gold))
    n_s = sum(len(S) for S, _ in gold)
    sure_found = sum(len(A & S) for A, (S, _) in zip(pred, gold))
    return {"aer": round(aer(pred, gold), 2), "precision": round(100 * in_p / max(1, n_a), 2),
            "recall_sure": round(100 * sure_found / max(1, n_s), 2), "links": n_a, "gold_sure": n_s}


def grow_diag_final(a: set, b: set) -> set:
    """Koehn et al.'s grow-diag-final of two link sets of (source, target) pairs."""
    union, out = a | b, set(a & b)
    near = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]

    def free(p):
        return not any(q[0] == p[0] for q in out) or not any(q[1] == p[1] for q in out)

    grew = True
    while grew:
        grew = False
        for j, i in sorted(out):
            for dj, di in near:
                p = (j + dj, i + di)
                if p in union and p not in out and free(p):
                    out.add(p)
                    grew = True
    out |= {p for p in sorted(union) if p not in out and free(p)}
    return out


def extractions(att: list[list[float]], n_src: int, n_tgt: int) -> dict[str, set]:
    """Link sets read off a (target words x source words [+ </s>]) attention matrix."""
    import numpy as np

    w = np.asarray(att, dtype=float)[:n_tgt, :n_src]
    tgt = {(int(np.argmax(w[i])), i) for i in range(n_tgt)}
    src = {(j, int(np.argmax(w[:, j]))) for j in range(n_src)}
    return {"source": src, "intersection": tgt & src, "union": tgt | src, "gdf": grow_diag_final(tgt, src)}


def score_model(model: str, data: Path, device: str, variants: bool = False) -> dict:
    from engine.nmt.translator import Translator

    srcs = (data / "trial.en").read_text(encoding="utf-8").splitlines()
    tgts = (data / "trial.fr").read_text(encoding="utf-8").splitlines()
    ids = [int(x) for x in (data / "trial.ids").read_text(encoding="utf-8").split()]
    gold = read_wpt(data / "trial.wa", ids)
    tr = Translator.load(model, device=device)
    pred = [set(map(tuple, links)) for links in tr.align(srcs, tgts)]
    out = {"model": model, "sentences": len(srcs), **_scores(pred, gold)}
    if variants:
        per = [extractions(r.alignment, len(s.split()), len(t.split()))
               for s, t, r in zip(srcs, tgts, tr.forced(srcs, tgts))]
        out["variants"] = {name: _scores([p[name] for p in per], gold) for name in per[0]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", nargs="+", required=True)
    ap.add_argument("--data", required=True, help="output folder of experiments/gates_bridging/prepare.py")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--variants", action="store_true", help="also other link extractions from the same attention")
    a = ap.parse_args()
    for m in a.model:
        print(json.dumps(score_model(m, Path(a.data), a.device, a.variants)), flush=True)


if __name__ == "__main__":
    main()
