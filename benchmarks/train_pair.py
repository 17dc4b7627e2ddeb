"""Your pair, your model: the recipe table's throughput, and `verso train` on
pairs other than En->De within a CPU time budget.

    python -m benchmarks.train_pair speed [--steps 40] [--threads 1 2]
        target tokens/s of every CPU recipe (engine/training/recipes.py) on 5,000
        En->Fr JRC-Acquis sentences: the table's throughput column
    python -m benchmarks.train_pair run --pair jrc-en-fr --budget 1800 [--name N] [-- --recipe cpu-small ...]
        `verso train --corpus SRC TGT DOCS --time-budget B` into $VERSO_RUNS/pairs/PAIR-B (or N);
        run again, it resumes a cancelled run with the time spent counted
    python -m benchmarks.train_pair table
    python -m benchmarks.train_pair curve RUN [RUN...]
        dev BLEU (greedy) against training minutes of runs: two recipes compared at equal time
        the before/after band tables of every finished run (markdown)

Pairs: ``jrc-en-fr`` (JRC-Acquis, 238 laws), ``pydocs-en-fr`` (Python docs, 452
documents), ``hansards-fr-en`` (Senate debates, 162 sitting days).  Results and
the machine go to benchmarks/RESULTS.md ("Your pair, your model").
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.paths import RUNS, SHARED_DATA

PAIRS = {
    "jrc-en-fr": ("jrc-acquis-endefr/common.en", "jrc-acquis-endefr/common.fr", "jrc-acquis-endefr/common.docid",
                  "en", "fr"),
    "pydocs-en-fr": ("python-docs-fr/docs.en", "python-docs-fr/docs.fr", "python-docs-fr/docs.doc", "en", "fr"),
    "hansards-fr-en": ("hansards-senate-enfr/senate.fr", "hansards-senate-enfr/senate.en",
                       "hansards-senate-enfr/senate.docid", "fr", "en"),
}


def speed(steps: int, threads: list[int], names: list[str]) -> list[dict]:
    import torch

    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train
    from engine.training import recipes

    src, tgt = (SHARED_DATA / PAIRS["jrc-en-fr"][i] for i in (0, 1))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        lines = {}
        for side, path in (("src", src), ("tgt", tgt)):
            text = path.read_text(encoding="utf-8").splitlines()
            lines[side] = text
            (Path(tmp) / f"train.{side}").write_text("\n".join(text[:5000]) + "\n", encoding="utf-8")
            (Path(tmp) / f"dev.{side}").write_text("\n".join(text[5000:5005]) + "\n", encoding="utf-8")
        files = {f"{n}.{s}": Path(tmp) / f"{n}.{s}" for n in ("train", "dev") for s in ("src", "tgt")}
        for r in recipes.RECIPES:
            if r.device != "cpu" or (names and r.name not in names):
                continue
            for t in threads:
                torch.set_num_threads(t)
                rr = dataclasses.replace(r, steps=steps, eval_every=0, threads=t, vocab_size=8000)
                d = recipes.experiment_config(rr, files, "en", "fr", device="cpu")
                d["train"].update(dev_max_sentences=1, log_every=max(1, steps // 4), checkpoint_every=10**6)
                d["train"]["knn_calibrate"] = False
                events = []
                t0 = time.time()
                train(ExperimentConfig.from_dict(d), Path(tmp) / f"m-{r.name}-{t}", on_event=events.append)
                done = events[-1]
                start = next(e for e in events if e["event"] == "start")
                row = {"recipe": r.name, "threads": t, "steps": steps, "parameters": start["parameters"],
                       "tokens_per_s": done["tokens_per_s"], "seconds": round(time.time() - t0, 1),
                       "load_avg": round(os.getloadavg()[0], 2)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    return rows


def run_pair(pair: str, budget: float, *, extra: list[str], name: str = "") -> Path:
    src, tgt, docs, sl, tl = PAIRS[pair]
    out = RUNS / "pairs" / (name or f"{pair}-{int(budget)}")
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "engine", "train", "--corpus", str(SHARED_DATA / src), str(SHARED_DATA / tgt),
           str(SHARED_DATA / docs), "--src-lang", sl, "--tgt-lang", tl, "--out", str(out),
           "--time-budget", str(budget), "--device", "cpu", "--events", *extra]
    print(" ".join(cmd), file=sys.stderr)
    with open(out / "events.jsonl", "ab") as fh:  # where the editor's runs keep theirs (engine.training.runs)
        subprocess.run(cmd, stdout=fh, check=True)
    return out


def table() -> str:
    rows = []
    for rec_path in sorted((RUNS / "pairs").glob("*/training.json")):
        rec = json.loads(rec_path.read_text(encoding="utf-8"))
        if rec.get("status") != "finished":
            continue
        t = rec["after"]["table"]
        man = json.loads((rec_path.parent / "manifest.json").read_text(encoding="utf-8"))
        size = sum((rec_path.parent / n).stat().st_size for n in man["files"])
        rows.append(f"\n### {rec_path.parent.name}: recipe {rec['recipe']['name']}, "
                    f"{rec['split']['train']:,} training pairs, {rec.get('steps')} steps in "
                    f"{rec['spent_s'] / 60:.1f} min, {man['parameters']:,} parameters ({size / 2**20:.1f} MiB), "
                    f"memory {t['memory']}, beam {t['beam']}\n")
        rows.append("| band | sentences | TM copy BLEU / chrF | model | model + memory |\n|---|---|---|---|---|")
        for b in t["bands"] + [{"band": "all", **t["overall"]}]:
            cells = [f"{b['bleu'][k]:.1f} / {b['chrf'][k]:.1f}" if k in b["bleu"] else "-"
                     for k in ("tm_copy", "model", "model_memory")]
            rows.append(f"| {b['band']} | {b['sentences']} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def curve(names: list[str]) -> str:
    """Markdown: per run, its dev evaluations as (training minutes, step, dev BLEU)."""
    rows = ["| run | recipe | training min | step | dev BLEU |", "|---|---|---|---|---|"]
    for name in names:
        folder = RUNS / "pairs" / name
        rec = json.loads((folder / "training.json").read_text(encoding="utf-8"))
        for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines():
            e = json.loads(line) if line.startswith("{") else {}
            if e.get("event") == "eval":
                rows.append(f"| {name} | {rec['recipe']['name']} | {e['training_s'] / 60:.0f} | {e['step']} | "
                            f"{e['dev_bleu']:.2f} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    a = sub.add_parser("speed")
    a.add_argument("--steps", type=int, default=40)
    a.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    a.add_argument("--recipe", nargs="*", default=[])
    a = sub.add_parser("run")
    a.add_argument("--pair", choices=sorted(PAIRS), required=True)
    a.add_argument("--budget", type=float, required=True, help="seconds")
    a.add_argument("--name", default="", help="run folder under $VERSO_RUNS/pairs (default PAIR-BUDGET)")
    a.add_argument("extra", nargs="*", help="more `verso train` arguments (after --)")
    sub.add_parser("table")
    a = sub.add_parser("curve")
    a.add_argument("runs", nargs="+", help="run folders under $VERSO_RUNS/pairs")
    args = ap.parse_args()
    if args.what == "speed":
        speed(args.steps, args.threads, args.recipe)
    elif args.what == "run":
        print(run_pair(args.pair, args.budget, extra=args.extra, name=args.name))
    elif args.what == "curve":
        print(curve(args.runs))
    else:
        print(table())


if __name__ == "__main__":
    main()
