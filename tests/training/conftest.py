"""Fixtures of the training-flow tests: the toy corpus read the other way round
(German -> English: a pair no shipped model serves), with document ids."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from nmt.toydata import write_corpus

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def pair_corpus(tmp_path_factory) -> dict[str, Path]:
    """train.de/train.en (400 lines) and train.doc: 20 documents of 20 lines."""
    files = write_corpus(tmp_path_factory.mktemp("pair"), n_train=400, n_dev=40)
    n = len(files["train_en"].read_text(encoding="utf-8").splitlines())
    doc = files["train_en"].parent / "train.doc"
    doc.write_text("".join(f"manual-{i // 20}\n" for i in range(n)), encoding="utf-8")
    files["train_doc"] = doc
    return files


@pytest.fixture(scope="session")
def pair_model(pair_corpus, tmp_path_factory) -> Path:
    """A de->en model trained by the flow (80 steps of the tiny recipe, ~15 s)."""
    from engine.training.flow import TrainRequest, run

    out = tmp_path_factory.mktemp("pairmodel") / "de-en"
    final = run(TrainRequest(out=str(out), src_lang="de", tgt_lang="en", max_steps=80, lr=0.005, threads=1,
                             beam=1, device="cpu",
                             corpora=[[str(pair_corpus["train_de"]), str(pair_corpus["train_en"]),
                                       str(pair_corpus["train_doc"])]]))
    assert final["event"] == "finished", final
    return out
