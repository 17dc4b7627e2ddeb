"""NMT speed: CPU translation latency (beam 5, ~20-word sentences, fp32 and
dynamic int8) and training throughput (target tokens/s).

    .venv/bin/python -m benchmarks.nmt_speed latency --model DIR --src FILE [--threads 1] [--n 40]
    .venv/bin/python -m benchmarks.nmt_speed train --config CFG [--steps 40] [--threads 1]

Prints JSON.  Results and the machine they were measured on go to
benchmarks/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path




def pick_sentences(path: str, n: int, lo: int = 18, hi: int = 22) -> list[str]:
    from engine.nmt.data import read_lines

    lines = [s for s in read_lines(path) if lo <= len(s.split()) <= hi]
    if not lines:
        raise SystemExit(f"{path}: no sentence of {lo}-{hi} words")
    return lines[:n]


def latency(model: str, src: str, *, n: int, beam: int, threads: int) -> dict:
    import torch

    from engine.nmt.translator import Translator

    torch.set_num_threads(threads)
    sents = pick_sentences(src, n)
    out = {"model": model, "sentences": len(sents), "beam": beam, "threads": threads,
           "mean_words": round(statistics.mean(len(s.split()) for s in sents), 1)}
    for name, quant in (("fp32", False), ("int8_dynamic", True)):
        tr = Translator.load(model, quantize=quant)
        for s in sents[:3]:  # warm-up
            tr.translate([s], beam=beam)
        times, lens = [], []
        for s in sents:
            t0 = time.perf_counter()
            r = tr.translate([s], beam=beam)[0]
            times.append((time.perf_counter() - t0) * 1000)
            lens.append(len(r.tokens))
        times.sort()
        out[name] = {"p50_ms": round(times[len(times) // 2], 1),
                     "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
                     "mean_ms": round(statistics.mean(times), 1),
                     "mean_output_subwords": round(statistics.mean(lens), 1)}
        if name == "fp32":
            out["parameters"] = tr.info()["parameters"]
    return out


def train_speed(config: str, *, steps: int, threads: int) -> dict:
    import torch

    from engine.nmt.config import load_config
    from engine.nmt.train import train

    cfg = load_config(config)
    cfg.train.max_steps = steps
    cfg.train.threads = threads
    cfg.train.eval_every = 0
    cfg.train.dev_max_sentences = 1
    cfg.train.log_every = max(1, steps // 4)
    events = []
    with tempfile.TemporaryDirectory() as tmp:
        train(cfg, Path(tmp) / "m", on_event=events.append)
    steps_ev = [e for e in events if e["event"] == "step"]
    start = next(e for e in events if e["event"] == "start")
    return {"config": config, "steps": steps, "threads": threads, "device": start["device"],
            "parameters": start["parameters"],
            "tokens_per_s_last_window": steps_ev[-1]["tokens_per_s"] if steps_ev else None,
            "tokens_per_s_overall": events[-1]["tokens_per_s"], "torch": torch.__version__}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    a = sub.add_parser("latency")
    a.add_argument("--model", required=True)
    a.add_argument("--src", required=True)
    a.add_argument("--n", type=int, default=40)
    a.add_argument("--beam", type=int, default=5)
    a.add_argument("--threads", type=int, default=1)
    t = sub.add_parser("train")
    t.add_argument("--config", required=True)
    t.add_argument("--steps", type=int, default=40)
    t.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    if args.what == "latency":
        res = latency(args.model, args.src, n=args.n, beam=args.beam, threads=args.threads)
    else:
        res = train_speed(args.config, steps=args.steps, threads=args.threads)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
