"""Fixtures of the NMT tests: a tiny synthetic corpus and one small trained model."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from nmt.toydata import toy_config_dict, write_corpus

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def toy_corpus(tmp_path_factory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("toy"))


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

    return Translator.load(trained_model, threads=1)  # one thread: the same sums on any machine
