"""The experiment config of a training run: the recipe chosen from data, budget and hardware, the
base model's config when fine-tuning, or the user's full config; and a fine-tuning folder seeded with
the base model's weights (:mod:`engine.training.flow` runs the steps)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from engine.errors import ConfigError, ModelError
from engine import folder_guard
from engine.training import data as tdata

#: fine-tuning defaults (the base model already knows the language: a small learning rate, few epochs)
FINETUNE_LR = 2e-4
FINETUNE_EPOCHS = 3


def read_base_config(base: Path) -> dict:
    try:
        return folder_guard.read_json(base, "config.json")
    except ModelError as e:
        raise ConfigError(f"{e} (not a model folder)") from None


def with_data(d: dict, files: dict, src_lang: str, tgt_lang: str) -> dict:
    return {**d, "data": {**d.get("data", {}), "src_lang": src_lang, "tgt_lang": tgt_lang,
                          "train_src": str(files["train.src"]), "train_tgt": str(files["train.tgt"]),
                          "dev_src": str(files["dev.src"]), "dev_tgt": str(files["dev.tgt"]),
                          "train_docs": "", "dev_docs": ""}}


def experiment(req, base: Path | None, base_cfg: dict, files: dict, split: tdata.Split,
            src_lang: str, tgt_lang: str, hw) -> tuple[dict, dict]:
    """(experiment config dict, recipe record) of this run."""
    from engine.nmt.config import load_config
    from engine.training import recipes

    device = hw.device
    if base is not None:
        d = with_data(base_cfg, files, src_lang, tgt_lang)
        d["train"] = {**base_cfg.get("train", {}), "lr": req.lr or FINETUNE_LR,
                      "batch_tokens": req.batch_tokens or 2000, "max_epochs": req.epochs or FINETUNE_EPOCHS,
                      "max_steps": req.max_steps, "eval_every": req.eval_every, "log_every": 5,
                      # a count of its own: the before-scoring's translate left the inference count
                      # (one thread on 2 cores, engine/nmt/threads.py), which 0 would keep
                      "device": device, "threads": req.threads or (0 if hw.cuda else hw.threads),
                      "seed": req.seed, "dev_beam": 1,
                      "dev_max_sentences": 0, "patience": 0,
                      # the base model's own training folders mean nothing here: the retrieval cache goes to
                      # OUT/memory and the weights come from the base (train.context_only needs a name)
                      "memory_cache": "",
                      "init_from": base.resolve().name if base_cfg.get("train", {}).get("context_only") else ""}
        return d, {"name": "fine-tune", "base_model": base.resolve().name,
                   "reason": "fine-tuning keeps the base model's size and vocabulary"}
    if req.config:
        d = with_data(load_config(req.config).to_dict(), files, src_lang, tgt_lang)
        return d, {"name": "user config", "config": Path(req.config).name, "reason": "given by the user"}
    words = sum(len(p.target.split()) for p in split.train)
    if req.threads and not hw.cuda:  # the speed of the threads the run will have
        hw = dataclasses.replace(hw, cores=req.threads)
    r = recipes.choose(len(split.train), words, req.time_budget_s, hw, name=req.recipe)
    if req.max_steps or req.epochs:  # the user's budget replaces the recipe's
        r = dataclasses.replace(r, steps=req.max_steps, max_epochs=req.epochs or r.max_epochs,
                                eval_every=req.eval_every or (max(1, req.max_steps // 4) if req.max_steps else 0))
    if req.threads:
        r = dataclasses.replace(r, threads=req.threads)
    for k in ("lr", "batch_tokens"):
        if getattr(req, k):
            r = dataclasses.replace(r, **{k: getattr(req, k)})
    d = recipes.experiment_config(r, files, src_lang, tgt_lang, device=device, seed=req.seed)
    return d, {**r.to_dict(), "train_pairs": len(split.train), "train_words": words}


def seed_folder(base: Path, out: Path, cfg_dict: dict, lr: float) -> None:
    """Make ``out`` a resumable training folder whose weights are the base model's."""
    import torch

    from engine.nmt import checkpoint as ckpt
    from engine.nmt.config import ExperimentConfig, portable_paths
    from engine.nmt.train import save_last

    cfg = ExperimentConfig.from_dict(cfg_dict)
    for name in sorted(set(ckpt.vocab_files(cfg))):
        folder_guard.copy_file(base, name, out)
    ckpt.write_json(out / "config.json", portable_paths(cfg.to_dict(), out))  # names no folder of this machine
    loaded = ckpt.load_model(base)
    opt = torch.optim.Adam(loaded.model.parameters(), lr=lr)
    state = {"step": 0, "epoch": 0, "batch": 0, "best_bleu": -1.0, "best_step": 0, "bad_evals": 0,
             "lr_bad_evals": 0, "tokens": 0, "evals": 0, "best_files": []}
    save_last(out, loaded.model, opt, state)
