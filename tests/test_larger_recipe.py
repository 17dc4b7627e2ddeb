"""The larger model's GPU recipe (experiments/larger): its config trains on CUDA wherever torch sees one, at twice
the demo baseline's size, and stays within what the device tool can bring back."""
from __future__ import annotations

from pathlib import Path

import torch

from engine.nmt.config import load_config
from engine.nmt.train import pick_device

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "experiments" / "larger" / "config" / "base.toml"


def test_larger_recipe_trains_on_cuda_when_torch_sees_a_gpu_and_on_cpu_otherwise(monkeypatch, tmp_path):
    monkeypatch.setenv("VERSO_RUNS", str(tmp_path))
    cfg = load_config(CONFIG)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device(cfg.train.device).type == "cuda"
    assert cfg.train.amp
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert pick_device(cfg.train.device).type == "cpu"


def test_larger_recipe_doubles_the_demo_model_and_its_fp16_weights_fit_the_files_that_come_back(monkeypatch, tmp_path):
    monkeypatch.setenv("VERSO_RUNS", str(tmp_path))
    cfg = load_config(CONFIG)
    demo = load_config(ROOT / "experiments" / "demo" / "config" / "base.toml")
    assert (cfg.model.hidden, cfg.model.emb_dim) == (2 * demo.model.hidden, 2 * demo.model.emb_dim)
    assert (cfg.model.context_gate, cfg.data.train_src) == (demo.model.context_gate, demo.data.train_src)
    from engine.nmt.build import build_model

    cfg.model.src_vocab = cfg.model.tgt_vocab = cfg.data.vocab_size   # as training sets them (joint vocabulary)
    with torch.device("meta"):
        n = sum(p.numel() for p in build_model(cfg.model).parameters())
    assert cfg.train.save_dtype == "float16" and 2 * n < 48 * 2**20   # 64 MiB back in all, logs and results beside
