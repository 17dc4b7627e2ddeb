"""A training run saves its resumable checkpoint by time as well as by steps: a run killed
(SIGKILL: no handler runs) before any step-count checkpoint resumes from the last timed one,
not from step 0."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nmt.toydata import toy_config_dict
from engine.errors import ConfigError
from engine.nmt.config import ExperimentConfig

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, corpus: dict, name: str, **train) -> Path:
    # no dev evaluation and no step-count checkpoint before step 100,000: only the clock saves
    d = toy_config_dict(corpus, train={"max_steps": 100_000, "eval_every": 100_000, "checkpoint_every": 0,
                                       "checkpoint_every_s": 1.0, "log_every": 1, "threads": 1,
                                       "knn_calibrate": False, **train})
    p = tmp_path / name
    p.write_text(json.dumps(d), encoding="utf-8")
    return p


def _verso_train(cfg: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "engine", "train", "--config", str(cfg), "--out", str(out),
                             "--events"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_a_run_killed_after_its_timed_checkpoint_resumes_past_step_0(toy_corpus, tmp_path):
    out = tmp_path / "m"
    p = _verso_train(_config(tmp_path, toy_corpus, "a.json"), out)
    saved = None
    for line in p.stdout:
        ev = json.loads(line)
        if ev["event"] == "checkpoint":
            saved = ev["step"]
            p.send_signal(signal.SIGKILL)  # the machine went down: nothing more is written
            break
    p.wait(timeout=60)
    assert p.returncode == -signal.SIGKILL and saved is not None and saved > 0

    p = _verso_train(_config(tmp_path, toy_corpus, "b.json", max_steps=saved + 3), out)
    events = [json.loads(line) for line in p.stdout]
    assert p.wait(timeout=120) == 0, p.stderr.read()
    resumed = next(e for e in events if e["event"] in ("start", "resume"))
    assert resumed["event"] == "resume" and resumed["step"] >= saved > 0
    assert events[-1]["event"] == "done" and events[-1]["step"] == saved + 3


@pytest.mark.parametrize("bad", [-1.0, float("inf")])
def test_a_negative_or_endless_checkpoint_interval_is_refused_in_one_line(toy_corpus, bad):
    with pytest.raises(ConfigError, match="checkpoint_every_s") as e:
        ExperimentConfig.from_dict(toy_config_dict(toy_corpus, train={"checkpoint_every_s": bad}), where="x.json")
    assert "\n" not in str(e.value) and str(e.value).startswith("x.json")
