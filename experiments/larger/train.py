"""Train an experiment config for a fixed number of seconds (a lent GPU's budget), then stop cleanly:
the model folder holds the best dev checkpoint so far (or the last weights before any evaluation).

    .venv/bin/python -m experiments.larger.train --config experiments/larger/config/base.toml --out DIR --seconds 420

``--max-steps`` / ``--batch-tokens`` / ``--eval-every`` override the config (the CPU check runs 20 small steps).
The device is the config's ``train.device`` (``auto``: CUDA when torch sees it; engine.nmt.train.pick_device).
Prints one JSON line per evaluation and the last event.
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv: list[str] | None = None) -> int:
    from benchmarks.paths import RUNS  # noqa: F401  (sets $VERSO_RUNS, which the configs name)
    from engine.errors import VersoError
    from engine.nmt.config import load_config
    from engine.nmt.train import pick_device, train

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, required=True, help="wall seconds from the start, data reading included")
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--batch-tokens", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=0)
    a = ap.parse_args(argv)
    t0 = time.time()
    try:
        cfg = load_config(a.config)
    except VersoError as e:
        sys.exit(str(e))
    if a.max_steps:
        cfg.train.max_steps = a.max_steps
    if a.batch_tokens:
        cfg.train.batch_tokens = a.batch_tokens
    if a.eval_every:
        cfg.train.eval_every = a.eval_every
    device = pick_device(cfg.train.device)
    print(json.dumps({"event": "device", "device": str(device), "config": a.config}), flush=True)

    def on_event(ev: dict):
        if ev.get("event") in ("eval", "start"):
            print(json.dumps({**ev, "wall_s": round(time.time() - t0, 1)}), flush=True)
        if time.time() - t0 > a.seconds:
            return False  # a clean stop: the resumable state and the best checkpoint are kept
        return None

    last = train(cfg, a.out, on_event=on_event)
    print(json.dumps({**last, "wall_s": round(time.time() - t0, 1)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
