"""The SEG-NMT experiment of issue 5 on the demo corpus (KDE manuals held out), CPU only.

Same extra budget for both systems, from the same baseline checkpoint:

* baseline: the demo run (``/work/runs/demo-ende``) trained on; snapshots of its
  resumable state are kept by ``benchmarks/segnmt_snapshot.sh``;
* SEG-NMT: initialised from the baseline snapshot at step S (weights, Adam
  moments, RNG and position in the data: the same batches in the same order),
  memory parts new, everything fine-tuned with K = 1 retrieved pair per
  training pair (Algorithm 2), up to step S + N.

Commands (outputs under /work/runs/segnmt, outside the repo)::

    # 1. seed the SEG-NMT run from the baseline snapshot at step S, then train it (resumable)
    .venv/bin/python benchmarks/segnmt_experiment.py seed --snapshot /work/runs/segnmt/baseline-snapshots/step-0000200 \\
        --out /work/runs/segnmt/seg --steps 200
    benchmarks/nmt_run.sh /work/runs/segnmt/seg/run.json /work/runs/segnmt/seg
    # 2. a model folder from any weights file (a baseline snapshot, the SEG run's last state)
    .venv/bin/python benchmarks/segnmt_experiment.py folder --weights SNAP/model.safetensors --config CFG.json --out DIR
    # 3. test BLEU overall and per fuzzy band: TM copy, baseline, SEG-NMT (K and coverage sweeps)
    .venv/bin/python benchmarks/segnmt_experiment.py eval --baseline DIR --seg DIR --k 1 2 4 --json OUT.json
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = Path("/work/runs/demo-data")
CACHE = Path("/work/runs/segnmt/memory")


def cmd_seed(a) -> None:
    import torch
    from safetensors.torch import save_file

    from engine.nmt import checkpoint as ckpt
    from engine.nmt.config import load_config
    from engine.nmt.memory import init_from_checkpoint
    from engine.nmt.model import RNNSearch

    snap, out = Path(a.snapshot), Path(a.out)
    if (out / "last").exists():
        sys.exit(f"{out}: already seeded (resume it with benchmarks/nmt_run.sh)")
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
    ckpt.write_json(out / "run.json", run)  # the config to train with: benchmarks/nmt_run.sh OUT/run.json OUT
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


def cmd_eval(a) -> None:
    import torch

    from engine.nmt.data import read_parallel
    from engine.nmt.retrieval import TrainingRetrieval, bleu_by_band
    from engine.nmt.translator import Translator

    torch.set_num_threads(a.threads)
    src_train, tgt_train = read_parallel(DATA / "train.en", DATA / "train.de")
    srcs, refs = read_parallel(DATA / f"{a.split}.en", DATA / f"{a.split}.de")
    if a.limit:
        srcs, refs = srcs[:a.limit], refs[:a.limit]
    r = TrainingRetrieval(CACHE, DATA / "train.en", DATA / "train.de", src_train, tgt_train, k=1,
                          src_lang="en", tgt_lang="de")
    top = [r.pairs(n) for n in r.query(srcs, k=16)]
    cov = [r.pairs(n) for n in r.query(srcs, k=16, coverage=True)]
    best = [p[0].score if p else 0.0 for p in top]
    systems: dict[str, list[str]] = {"tm_copy": [p[0].target if p else "" for p in top]}
    timing = {}
    for name, folder in (("baseline", a.baseline), ("baseline_end", a.baseline_end)):
        if folder:
            t0 = time.time()
            systems[name] = [x.text for x in Translator.load(folder).translate(srcs, beam=a.beam)]
            timing[name] = round(time.time() - t0, 1)
    if a.seg:
        tr = Translator.load(a.seg)
        t0 = time.time()
        systems["seg_no_memory"] = [x.text for x in tr.translate(srcs, beam=a.beam)]
        timing["seg_no_memory"] = round(time.time() - t0, 1)
        for k in a.k:
            t0 = time.time()
            systems[f"seg_k{k}"] = [x.text for x in tr.translate(srcs, beam=a.beam, memories=[p[:k] for p in top])]
            timing[f"seg_k{k}"] = round(time.time() - t0, 1)
        if a.coverage:
            t0 = time.time()
            systems["seg_coverage"] = [x.text for x in tr.translate(srcs, beam=a.beam, memories=cov)]
            timing["seg_coverage"] = round(time.time() - t0, 1)
    res = bleu_by_band(systems, refs, best)
    res.update({"split": a.split, "sentences": len(srcs), "beam": a.beam, "seconds": timing,
                "coverage_pairs_mean": round(sum(map(len, cov)) / max(1, len(cov)), 2),
                "models": {"baseline": a.baseline, "baseline_end": a.baseline_end, "seg": a.seg}})
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1, ensure_ascii=False))
        hyp_dir = Path(a.json).with_suffix(".hyps")
        hyp_dir.mkdir(exist_ok=True)
        for name, hyps in systems.items():
            (hyp_dir / f"{name}.de").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
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
    p.add_argument("--config", default=str(ROOT / "benchmarks/configs/segnmt_demo.toml"))
    p.add_argument("--baseline-run", default="/work/runs/demo-ende")
    p.set_defaults(fn=cmd_seed)
    p = sub.add_parser("folder")
    p.add_argument("--weights", required=True)
    p.add_argument("--config", required=True, help="config.json of the run (its folder holds spm.model)")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_folder)
    p = sub.add_parser("eval")
    p.add_argument("--baseline", help="model folder: the baseline at the SEG-NMT start")
    p.add_argument("--baseline-end", help="model folder: the baseline after the same extra steps")
    p.add_argument("--seg", help="SEG-NMT model folder")
    p.add_argument("--k", type=int, nargs="*", default=[1, 2, 4])
    p.add_argument("--coverage", action="store_true")
    p.add_argument("--split", default="test")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json")
    p.set_defaults(fn=cmd_eval)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
