"""Tools ▸ Models shows a model's test BLEU as TM copy / model / model + memory, overall then per band,
and a dash where a system or the whole table is missing."""
from __future__ import annotations

from pathlib import Path

from app.dialogs.models import _scores
from engine.training.events import BandScore, ScoreTable
from engine.training.models import ModelInfo


def _info(scores: ScoreTable | None) -> ModelInfo:
    return ModelInfo(Path("m"), "m", "trained", "de", "en", 1, 1, "2026-01-01", "", scores=scores)


def test_the_models_scores_column_reads_overall_then_each_band():
    table = ScoreTable(BandScore("all", 30, {"tm_copy": 20.0, "model": 25.5, "model_memory": 27.25}),
                       (BandScore("75-84%", 12, {"tm_copy": 31.0, "model": 30.0}),))
    assert _scores(_info(table)) == "20.0 / 25.5 / 27.2  (75-84%: 31.0 / 30.0 / –)"
    assert _scores(_info(None)) == "–"
