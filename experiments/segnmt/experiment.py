"""The SEG-NMT experiment of issue 5 on the demo corpus (KDE manuals held out), CPU only.

Same extra budget for both systems, from the same baseline checkpoint:

* baseline: the demo run (``$VERSO_RUNS/demo-ende``) trained on; snapshots of its
  resumable state are kept by ``experiments/segnmt/snapshot.sh``;
* SEG-NMT: initialised from the baseline snapshot at step S (weights, Adam
  moments, RNG and position in the data: the same batches in the same order),
  memory parts new, everything fine-tuned with K = 1 retrieved pair per
  training pair (Algorithm 2), up to step S + N.

Commands (outputs under $VERSO_RUNS/segnmt, outside the repo)::

    # 1. seed the SEG-NMT run from the baseline snapshot at step S, then train it (resumable)
    .venv/bin/python -m experiments.segnmt.experiment seed --snapshot $VERSO_RUNS/segnmt/baseline-snapshots/step-0000200 \\
        --out $VERSO_RUNS/segnmt/seg --steps 200
    experiments/nmt_run.sh $VERSO_RUNS/segnmt/seg/run.json $VERSO_RUNS/segnmt/seg
    # 2. a model folder from any weights file (a baseline snapshot, the SEG run's last state)
    .venv/bin/python -m experiments.segnmt.experiment folder --weights SNAP/model.safetensors --config CFG.json --out DIR
    # 3. translate the test split with each system, then BLEU overall and per fuzzy band (+ TM copy)
    .venv/bin/python -m experiments.segnmt.experiment translate --name seg-k4 --model DIR --memory 4
    .venv/bin/python -m experiments.segnmt.experiment table base-200 base-400 seg-k4 ...
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from benchmarks.paths import ROOT, RUNS

DATA = RUNS / "demo-data"
CACHE = RUNS / "segnmt" / "memory"
DEVICE = os.environ.get("VERSO_BENCH_DEVICE", "cpu")


def cmd_seed(a) -> None:
    import torch
    from safetensors.torch import save_file

    from engine.nmt import checkpoint as ckpt
    from engine.nmt.config import load_config
    from engine.nmt.memory import init_from_checkpoint
    from engine.nmt.model import RNNSearch

    snap, out = Path(a.snapshot), Path(a.out)
    if (out / "last").exists():
        sys.exit(f"{out}: already seeded (resume it with experiments/nmt_run.sh)")
    cfg = load_config(a.config)
    base_cfg = json.loads((Path(a.baseline_run) / "config.json").read_text())
    cfg.model.src_vocab, cfg.model.tgt_vocab = base_cfg["model"]["src_vocab"], base_cfg["model"]["tgt_vocab"]
    state = json.loads((snap / "state.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(a.baseline_run) / "spm.model", out / "spm.model")
    ckpt.write_json(out / "config.json", cfg.to_dict())
    torch.manual_seed(cfg.train.seed)
    model = RNNSearch(cfg.model)
    info = init_from_checkpoint(model, snap / "model.safetensors")
    n_all = len(list(model.parameters()))
    # Adam moments of the baseline for the shared parameters (same order: the memory's come last)
    opt_t = ckpt.load_tensors(snap / "optim.safetensors")
    groups = state.pop("param_groups")
    n_base = len(groups[0]["params"])
    assert n_base + len(info["new"]) == n_all, (n_base, info, n_all)
    groups[0]["params"] = list(range(n_all))
    groups[0]["lr"] = cfg.train.lr  # the SEG-NMT run's own learning rate
    (out / "last").mkdir(exist_ok=True)
    ckpt.save_weights(model, out / "last" / "model.safetensors")
    save_file(opt_t, str(out / "last" / "optim.safetensors"))
    state.update(best_bleu=-1.0, best_step=0, bad_evals=0, lr_bad_evals=0, evals=0, best_files=[],
                 param_groups=groups)
    state.pop("finished", None)
    ckpt.write_json(out / "last" / "state.json", state)
    # the run's budget: N more steps than the snapshot
    note = {"seeded_from": str(snap), "start_step": state["step"], "steps": a.steps,
            "max_steps": state["step"] + a.steps, "new_parameters": info["new"], "time": time.time()}
    ckpt.write_json(out / "seed.json", note)
    run = cfg.to_dict()
    run["train"]["max_steps"] = note["max_steps"]
    ckpt.write_json(out / "run.json", run)  # the config to train with: experiments/nmt_run.sh OUT/run.json OUT
    print(json.dumps(note, indent=1))


def cmd_folder(a) -> None:
    """A loadable model folder (manifest, config, subwords, weights) from a weights file."""
    import torch

    from engine.nmt import checkpoint as ckpt
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.model import RNNSearch, count_parameters

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = ExperimentConfig.from_dict(json.loads(Path(a.config).read_text()))
    shutil.copyfile(Path(a.config), out / "config.json")
    shutil.copyfile(Path(a.config).parent / "spm.model", out / "spm.model")
    model = RNNSearch(cfg.model)
    ckpt.apply_tensors(model, ckpt.load_tensors(Path(a.weights)), Path(a.weights))
    ckpt.save_weights(model, out / "model.safetensors", dtype=torch.float16)
    step = json.loads((Path(a.weights).parent / "state.json").read_text()).get("step", 0) \
        if (Path(a.weights).parent / "state.json").is_file() else 0
    ckpt.write_manifest(out, best="model.safetensors", best_step=step, best_bleu=None,
                        params=count_parameters(model), extra={"weights_from": str(a.weights)})
    print(out)


def _test_retrieval(a):
    from engine.nmt.data import read_parallel
    from engine.nmt.retrieval import TrainingRetrieval

    src_train, tgt_train = read_parallel(DATA / "train.en", DATA / "train.de")
    srcs, refs = read_parallel(DATA / f"{a.split}.en", DATA / f"{a.split}.de")
    if a.limit:
        srcs, refs = srcs[:a.limit], refs[:a.limit]
    r = TrainingRetrieval(CACHE, DATA / "train.en", DATA / "train.de", src_train, tgt_train, k=1,
                          src_lang="en", tgt_lang="de")
    top = [r.pairs(n) for n in r.query(srcs, k=16)]
    cov = [r.pairs(n) for n in r.query(srcs, k=16, coverage=True)]
    return srcs, refs, top, cov


def cmd_translate(a) -> None:
    """Translate the test split with one system; hypotheses go to HYPS/NAME.de (kept: resumable)."""
    import torch

    from engine.nmt.translator import Translator

    torch.set_num_threads(a.threads)
    srcs, refs, top, cov = _test_retrieval(a)
    out = Path(a.hyps)
    out.mkdir(parents=True, exist_ok=True)
    if a.memory == "none":
        mem = None
    elif a.memory == "coverage":
        mem = cov
    else:
        mem = [p[:int(a.memory)] for p in top]
    tr = Translator.load(a.model, device=DEVICE)
    t0 = time.time()
    hyps = [x.text for x in tr.translate(srcs, beam=a.beam, memories=mem)]
    (out / f"{a.name}.de").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    (out / f"{a.name}.json").write_text(json.dumps({"model": a.model, "memory": a.memory, "beam": a.beam,
                                                    "sentences": len(srcs), "seconds": round(time.time() - t0, 1)}))
    print(a.name, round(time.time() - t0, 1), "s")


def cmd_table(a) -> None:
    """BLEU overall and per fuzzy band (of the best retrieved pair) of TM copy and every HYPS/*.de."""
    from engine.nmt.retrieval import bleu_by_band

    srcs, refs, top, cov = _test_retrieval(a)
    systems = {"tm_copy": [p[0].target if p else "" for p in top]}
    for name in a.systems:
        systems[name] = (Path(a.hyps) / f"{name}.de").read_text(encoding="utf-8").splitlines()
    res = bleu_by_band(systems, refs, [p[0].score if p else 0.0 for p in top])
    res.update({"split": a.split, "sentences": len(srcs),
                "coverage_pairs_mean": round(sum(map(len, cov)) / max(1, len(cov)), 2)})
    Path(a.hyps, "table.json").write_text(json.dumps(res, indent=1))
    names = list(systems)
    print("| band | sentences | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for row in [{"band": "all", **res["overall"]}] + res["bands"]:
        print(f"| {row['band']} | {row['sentences']} | " + " | ".join(f"{row['bleu'][n]:.2f}" for n in names) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("seed")
    p.add_argument("--snapshot", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--config", default=str(ROOT / "experiments/segnmt/config/demo/big.toml"))
    p.add_argument("--baseline-run", default=str(RUNS / "demo-ende"))
    p.set_defaults(fn=cmd_seed)
    p = sub.add_parser("folder")
    p.add_argument("--weights", required=True)
    p.add_argument("--config", required=True, help="config.json of the run (its folder holds spm.model)")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_folder)
    p = sub.add_parser("translate")
    p.add_argument("--name", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--memory", default="none", help="none | coverage | K (top-K retrieved pairs)")
    p.add_argument("--beam", type=int, default=5)
    p.set_defaults(fn=cmd_translate)
    p = sub.add_parser("table")
    p.add_argument("systems", nargs="*")
    p.set_defaults(fn=cmd_table)
    for q in (sub.choices["translate"], sub.choices["table"]):
        q.add_argument("--hyps", default=str(RUNS / "segnmt/hyps"))
        q.add_argument("--split", default="test")
        q.add_argument("--limit", type=int, default=0)
        q.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
