"""Fixtures of the NMT tests: a tiny synthetic corpus and one small trained model."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from toydata import write_corpus  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def toy_corpus(tmp_path_factory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("toy"))


def toy_config_dict(corpus: dict[str, Path], *, model: dict | None = None, train: dict | None = None) -> dict:
    return {
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": str(corpus["train_en"]),
                 "train_tgt": str(corpus["train_de"]), "dev_src": str(corpus["dev_en"]),
                 "dev_tgt": str(corpus["dev_de"]), "vocab_size": 80},
        "model": {"emb_dim": 32, "hidden": 48, "dropout": 0.0, "emb_dropout": 0.0, **(model or {})},
        "train": {"batch_tokens": 400, "lr": 0.01, "max_epochs": 50, "max_steps": 200, "eval_every": 100,
                  "log_every": 50, "label_smoothing": 0.0, "patience": 0, **(train or {})},
    }


@pytest.fixture(scope="session")
def trained_model(toy_corpus, tmp_path_factory) -> Path:
    """A GRU model with context gates (both) trained for 200 steps (a few seconds)."""
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train

    out = tmp_path_factory.mktemp("model") / "m"
    cfg = ExperimentConfig.from_dict(toy_config_dict(toy_corpus, model={"context_gate": "both"}))
    train(cfg, out)
    return out


@pytest.fixture(scope="session")
def translator(trained_model):
    from engine.nmt.translator import Translator

    return Translator.load(trained_model)
