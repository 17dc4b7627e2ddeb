"""AER of a model's attention alignments on the WPT 2003 En-Fr trial gold (issue 4; Table 4 of Tu et al. 2017).

Forced decoding of each gold pair (``Translator.align``: one link per target word, the most-attended
source word, subword attention summed per word), scored against the sure/possible gold links::

    .venv/bin/python benchmarks/aer_wpt.py --model MODEL [MODEL ...] --data /work/runs/hansards-data [--device cuda]

Prints one JSON line per model: AER (%), precision against possible links, recall of sure links.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.nmt.align import aer, read_wpt  # noqa: E402


def score_model(model: str, data: Path, device: str) -> dict:
    from engine.nmt.translator import Translator

    srcs = (data / "trial.en").read_text(encoding="utf-8").splitlines()
    tgts = (data / "trial.fr").read_text(encoding="utf-8").splitlines()
    ids = [int(x) for x in (data / "trial.ids").read_text(encoding="utf-8").split()]
    gold = read_wpt(data / "trial.wa", ids)
    tr = Translator.load(model, device=device)
    pred = [set(map(tuple, links)) for links in tr.align(srcs, tgts)]
    n_a = sum(map(len, pred))
    in_p = sum(len(A & (P | S)) for A, (S, P) in zip(pred, gold))
    n_s = sum(len(S) for S, _ in gold)
    sure_found = sum(len(A & S) for A, (S, _) in zip(pred, gold))
    return {"model": model, "sentences": len(srcs), "aer": round(aer(pred, gold), 2),
            "precision": round(100 * in_p / max(1, n_a), 2), "recall_sure": round(100 * sure_found / max(1, n_s), 2),
            "links": n_a, "gold_sure": n_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", nargs="+", required=True)
    ap.add_argument("--data", required=True, help="output folder of benchmarks/hansards_data.py")
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    for m in a.model:
        print(json.dumps(score_model(m, Path(a.data), a.device)), flush=True)


if __name__ == "__main__":
    main()
