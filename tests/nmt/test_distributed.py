"""Training on several processes (engine/nmt/train.py under DistributedDataParallel):
2 processes on the CPU with the gloo backend, started with torch.multiprocessing
(spawn) as torchrun would (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT).

One run of 2 ranks, stopped half way through its second epoch and resumed, against
one process with ``train.accumulate = 2`` (the same global batch of 2 batches a step):

(a) over each epoch the ranks together train on every example exactly once (an odd
    batch count: the last step's second rank runs a weight-0 filler), and every step
    takes the same batches as the single process's step;
(b) only rank 0 writes (history, checkpoints, "last"), and resuming from its files
    goes on where it stopped;
(c) every rank ends with the same weights (bit for bit);
(d) the loss of every step matches the single process's (relative 1e-4; the weights
    to 1e-4): both compute the mean over all the step's target tokens, only the
    summation order differs.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest
import torch

from nmt.toydata import toy_config_dict, write_corpus

WORLD = 2
TIMEOUT_S = 240


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world: int, port: int, cfg_dict: dict, out: str, record: str, stop_at: int = 0) -> None:
    """One rank, as torchrun starts it; what it saw goes to ``record``-RANK.json."""
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if sys.platform.startswith("linux"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    torch.set_num_threads(1)
    import engine.nmt.checkpoint as ckpt
    import engine.nmt.train as tr
    import engine.nmt.train_data as td
    from engine.nmt.config import ExperimentConfig

    writes: list[str] = []
    if rank != 0:  # every writer a rank could call: recorded (and still done)
        def spy(mod, name):
            orig = getattr(mod, name)

            def wrapped(*a, **k):
                writes.append(name)
                return orig(*a, **k)
            setattr(mod, name, wrapped)
        for mod, name in ((tr, "save_last"), (tr, "_append_history"), (td, "train_vocab"),
                          (ckpt, "save_weights"), (ckpt, "write_json"), (ckpt, "write_manifest")):
            spy(mod, name)
    events: list[dict] = []
    per_rank: list[dict] = []
    def on_event(ev: dict) -> bool:  # stop_at: rank 0's listener asks to stop after that step
        events.append(ev)
        return not (stop_at and ev["event"] == "step" and ev["step"] == stop_at)

    last = tr.train(ExperimentConfig.from_dict(cfg_dict), out, on_event=on_event, on_rank=per_rank.append)
    per_rank.append(last)
    Path(f"{record}-{rank}.json").write_text(json.dumps({"events": events, "rank": per_rank, "writes": writes},
                                                        default=str), "utf-8")


def _run_ranks(cfg_dict: dict, out: Path, record: Path, stop_at: int = 0) -> list[dict]:
    import torch.multiprocessing as mp

    ctx = mp.spawn(_worker, args=(WORLD, _free_port(), cfg_dict, str(out), str(record), stop_at), nprocs=WORLD,
                   join=False)
    deadline = time.monotonic() + TIMEOUT_S
    while not ctx.join(timeout=2):
        if time.monotonic() > deadline:
            for p in ctx.processes:
                p.kill()
            pytest.fail(f"{WORLD} ranks did not finish in {TIMEOUT_S} s")
    return [json.loads(Path(f"{record}-{r}.json").read_text("utf-8")) for r in range(WORLD)]


def _losses(events: list[dict]) -> dict[int, float]:
    return {e["step"]: e["loss"] for e in events if e["event"] == "step"}


def _batches_by(events: list[dict], key: str) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for e in events:
        if e["event"] == "batch":
            out.setdefault(e[key], []).extend(e["indices"])
    return out


def test_two_ranks_match_one_process_and_resume(tmp_path):
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.data import encode_corpus, make_batches, read_parallel
    from engine.nmt.train import build_vocabs, train

    corpus = write_corpus(tmp_path / "data", n_train=90, n_dev=6, seed=11)
    base = toy_config_dict(corpus, train={"batch_tokens": 150, "max_epochs": 2, "max_steps": 0, "eval_every": 0,
                                          "log_every": 1, "lr_decay": 1.0, "patience": 0, "dev_max_sentences": 3,
                                          "checkpoint_every": 0, "knn_calibrate": False, "threads": 1})

    # the single process: the same global batch (2 batches a step) by gradient accumulation
    ref_dir = tmp_path / "one"
    ref_events: list[dict] = []
    ref_rank: list[dict] = []
    cfg = json.loads(json.dumps(base))
    cfg["train"]["accumulate"] = WORLD
    train(ExperimentConfig.from_dict(cfg), ref_dir, on_event=ref_events.append, on_rank=ref_rank.append)
    start = next(e for e in ref_events if e["event"] == "start")
    spe, total = start["steps_per_epoch"], start["total_steps"]
    # the epoch's batch count is odd, so the last step of each epoch leaves rank 1 without a batch
    c = ExperimentConfig.from_dict(cfg)
    src, tgt = read_parallel(corpus["train_en"], corpus["train_de"])
    sv, tv = build_vocabs(c, ref_dir, src, tgt)  # (the folder's: loaded)
    n_batches = len(make_batches(encode_corpus(src, tgt, sv, tv, max_len=c.data.max_len), c.train.batch_tokens,
                                 seed=c.train.seed, epoch=0))
    assert n_batches % WORLD == 1 and spe == (n_batches + 1) // WORLD
    assert total == 2 * spe

    # 2 ranks, stopped in the middle of the second epoch, then resumed to the end
    out, stop_at = tmp_path / "two", spe + 1
    first = json.loads(json.dumps(base))
    first["train"]["max_steps"] = stop_at
    run1 = _run_ranks(first, out, tmp_path / "run1")
    assert (out / "last" / "state.json").is_file()
    second = json.loads(json.dumps(base))
    second["train"]["max_steps"] = total
    run2 = _run_ranks(second, out, tmp_path / "run2")

    # (b) rank 0 alone wrote; the second run resumed at the step the first stopped at
    for run in (run1, run2):
        assert run[1]["writes"] == [] and run[1]["events"] == []
    resumed = next(e for e in run2[0]["events"] if e["event"] in ("start", "resume"))
    assert (resumed["event"], resumed["step"], resumed["world_size"]) == ("resume", stop_at, WORLD)
    history = [json.loads(x) for x in (out / "history.jsonl").read_text("utf-8").splitlines()]
    assert [e["event"] for e in history if e["event"] in ("start", "resume")] == ["start", "resume"]
    assert run2[0]["events"][-1]["step"] == total and (out / "manifest.json").is_file()

    # (a) each epoch: every example exactly once over the ranks, and each step the same batches
    # as the single process's step
    dist_events = [e for run in (run1, run2) for r in run for e in r["rank"]]
    ref_by_epoch = _batches_by(ref_rank, "epoch")
    dist_by_epoch = _batches_by(dist_events, "epoch")
    assert sorted(ref_by_epoch) == sorted(dist_by_epoch) == [0, 1]
    for epoch, seen in dist_by_epoch.items():
        assert len(seen) == len(set(seen)) and sorted(seen) == sorted(ref_by_epoch[epoch])
    ref_by_step, dist_by_step = _batches_by(ref_rank, "step"), _batches_by(dist_events, "step")
    assert sorted(dist_by_step) == list(range(1, total + 1))
    assert all(sorted(dist_by_step[s]) == sorted(ref_by_step[s]) for s in dist_by_step)
    last_steps = [spe, total]  # the filler steps: rank 1 trained on nothing there
    assert all({e["rank"] for e in dist_events if e["event"] == "batch" and e["step"] == s} == {0}
               for s in last_steps)

    # (c) identical weights on every rank, after each run
    for run in (run1, run2):
        digests = {e["sha256"] for r in run for e in r["rank"] if e["event"] == "weights"}
        assert len(digests) == 1

    # (d) the loss curve of 2 ranks is the single process's with the same global batch
    ref_loss = _losses(ref_events)
    dist_loss = {**_losses(run1[0]["events"]), **_losses(run2[0]["events"])}
    assert sorted(dist_loss) == sorted(ref_loss) == list(range(1, total + 1))
    worst = max(abs(dist_loss[s] - ref_loss[s]) / ref_loss[s] for s in ref_loss)
    print(f"\nsteps {total} (per epoch {spe}, batches {n_batches}); loss rel diff max {worst:.2e}")
    assert worst < 1e-4, (worst, ref_loss, dist_loss)
    from engine.nmt.checkpoint import load_tensors

    a, b = load_tensors(ref_dir / "last" / "model.safetensors"), load_tensors(out / "last" / "model.safetensors")
    assert a.keys() == b.keys()
    diff = max(float((a[k] - b[k]).abs().max()) for k in a)
    print(f"weights max abs diff {diff:.2e}")
    assert diff < 1e-4, diff


def test_a_stop_asked_on_rank_0_stops_every_rank_at_the_same_step(tmp_path):
    """on_event returning False (or Ctrl+C) reaches rank 0 only: every rank stops before
    the next step instead of the others waiting in an all-reduce for ever."""
    corpus = write_corpus(tmp_path / "data", n_train=60, n_dev=4, seed=3)
    cfg = toy_config_dict(corpus, train={"batch_tokens": 150, "max_epochs": 3, "max_steps": 0, "eval_every": 0,
                                         "log_every": 1, "dev_max_sentences": 2, "knn_calibrate": False,
                                         "threads": 1})
    run = _run_ranks(cfg, tmp_path / "m", tmp_path / "rec", stop_at=3)
    ends = [r["rank"][-1] for r in run]
    assert [(e["event"], e["step"]) for e in ends] == [("cancelled", 3)] * WORLD
    assert len({e["sha256"] for r in run for e in r["rank"] if e.get("event") == "weights"}) == 1
    assert (tmp_path / "m" / "last" / "state.json").is_file()  # resumable
