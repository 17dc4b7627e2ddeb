"""NMT speed: CPU translation latency (beam 5, ~20-word sentences, fp32 and
dynamic int8), the CPU of a whole `verso translate` process, and training throughput (target tokens/s).

    .venv/bin/python -m benchmarks.nmt_speed latency --model DIR --src FILE|held-out [--threads 1] [--n 40]
    .venv/bin/python -m benchmarks.nmt_speed process --model DIR [--src FILE|held-out] [--n 20] [--tree DIR[,DIR2]] [--runs 3]
    .venv/bin/python -m benchmarks.nmt_speed engine-start --model DIR [--tree DIR[,DIR2]] [--runs 6]
    .venv/bin/python -m benchmarks.nmt_speed train --config CFG [--steps 40] [--threads 1]

``--src held-out``: sentences of the held-out KDE manuals (the demo model's test documents, raw
lines with their markup).  ``latency`` reports wall and CPU time (``time.process_time``) per
sentence, one sentence per call as the editor asks.  ``process`` runs ``python -m engine translate
--threads 1`` on the sentences in a subprocess (``--tree``: another checkout, e.g. a worktree of an
earlier commit, run with this virtualenv by PYTHONPATH; several, comma-separated: interleaved) and
reports its user+sys CPU per sentence, model loading and imports included -- what a command-line user
pays (issue 37 item 4) --, the fixed cost (a process on one sentence) and the marginal cost per sentence.
``engine-start`` starts the editor's engine process (``RemoteTranslator``, one thread) from a fresh
process and reports the wall time until it is ready and the engine process's user+sys CPU (same trees).

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




def held_out_lines() -> list[str]:
    """The raw lines of the held-out KDE manual documents (``experiments.demo.prepare.held_out``)."""
    from benchmarks.paths import SHARED_DATA
    from experiments.demo.prepare import held_out

    kde = SHARED_DATA / "kde4-l10n-de"
    en = (kde / "docs.en").read_text(encoding="utf-8").splitlines()
    doc = (kde / "docs.doc").read_text(encoding="utf-8").splitlines()
    return [s.strip() for s, d in zip(en, doc) if held_out(d) == 2 and s.strip()]


def pick_sentences(path: str, n: int, lo: int = 18, hi: int = 22) -> list[str]:
    from engine.nmt.data import read_lines

    lines = [s for s in (held_out_lines() if path == "held-out" else read_lines(path)) if lo <= len(s.split()) <= hi]
    if not lines:
        raise SystemExit(f"{path}: no sentence of {lo}-{hi} words")
    return lines[:n]


def latency(model: str, src: str, *, n: int, beam: int, threads: int) -> dict:
    from engine.formats.textutil import protect_text
    from engine.nmt.translator import Translator

    sents = [protect_text(x).text for x in pick_sentences(src, n)]  # markup as codes, as the editor reads it
    out = {"model": model, "sentences": len(sents), "beam": beam, "threads": threads,
           "mean_words": round(statistics.mean(len(s.split()) for s in sents), 1)}
    for name, quant in (("fp32", False), ("int8_dynamic", True)):
        tr = Translator.load(model, quantize=quant, threads=threads)
        for s in sents[:3]:  # warm-up
            tr.translate([s], beam=beam)
        times, cpu, lens = [], [], []
        for s in sents:
            t0, c0 = time.perf_counter(), time.process_time()
            r = tr.translate([s], beam=beam)[0]
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            lens.append(len(r.tokens))
        times.sort()
        out[name] = {"p50_ms": round(times[len(times) // 2], 1),
                     "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
                     "mean_ms": round(statistics.mean(times), 1),
                     "cpu_mean_ms": round(statistics.mean(cpu), 1),
                     "mean_output_subwords": round(statistics.mean(lens), 1)}
        if name == "fp32":
            out["parameters"] = tr.info()["parameters"]
    return out


def process_cpu(model: str, src: str, *, n: int, tree: str | None, runs: int, lo: int = 18, hi: int = 22) -> dict:
    """User+sys CPU of whole `python -m engine translate --threads 1` processes on ``n`` sentences and on
    the first one alone: the fixed cost (one sentence) and the marginal cost per sentence
    ((CPU on n - CPU on 1) / (n - 1)).  ``tree``: one checkout or several, comma-separated, run
    interleaved (each run: every checkout in turn, the order reversed every other run)."""
    import os
    import resource
    import subprocess
    import sys

    from benchmarks.paths import ROOT

    sents = pick_sentences(src, n, lo, hi)
    roots = [Path(t).resolve() for t in tree.split(",")] if tree else [ROOT]
    cpu: dict[tuple[Path, int], list[float]] = {(r, k): [] for r in roots for k in (1, len(sents))}

    # compiled bytecode kept between runs, as an installed Verso has its .pyc files (this VM sets
    # PYTHONDONTWRITEBYTECODE: a tree without __pycache__ compiled every engine module it imports in each run)
    import tempfile

    cache = tempfile.mkdtemp(prefix="nmt-speed-pyc-")
    env0 = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def one(root: Path, lines: list[str]) -> float:
        env = {**env0, "PYTHONPATH": str(root), "PYTHONPYCACHEPREFIX": cache}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "engine", "translate", "--model", model, "--threads", "1"],
                       input="\n".join(lines) + "\n", text=True, capture_output=True, check=True, cwd=root, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime

    for root in roots:  # fills the bytecode cache (not counted)
        one(root, sents[:1])
    for i in range(runs):
        for root in (roots if i % 2 == 0 else roots[::-1]):
            for k in (1, len(sents)):
                cpu[(root, k)].append(one(root, sents[:k]))
    import shutil

    shutil.rmtree(cache, ignore_errors=True)
    out: dict = {"model": model, "sentences": len(sents), "runs": runs, "load_average": list(os.getloadavg())}
    for root in roots:
        one_s, all_s = statistics.median(cpu[(root, 1)]), statistics.median(cpu[(root, len(sents))])
        out[str(root)] = {"cpu_s_one_sentence": [round(x, 2) for x in cpu[(root, 1)]],
                          "cpu_s_all": [round(x, 2) for x in cpu[(root, len(sents))]],
                          "fixed_cpu_s": round(one_s, 2),
                          "marginal_cpu_ms_per_sentence": round(1000 * (all_s - one_s) / max(1, len(sents) - 1), 1),
                          "cpu_ms_per_sentence": round(1000 * all_s / len(sents), 1)}
    return out


_ENGINE_START = """
import json, resource, sys, time
t = time.perf_counter()
from engine.nmt.remote import RemoteTranslator
r = RemoteTranslator(sys.argv[1], threads=1)
ready = time.perf_counter() - t
r.close()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"ready_s": ready, "engine_cpu_s": ru.ru_utime + ru.ru_stime}))
"""


def engine_start(model: str, *, tree: str | None, runs: int) -> dict:
    """The editor's engine process started ``runs`` times per checkout, interleaved (the order reversed
    every other run; a first start per checkout fills the bytecode cache, not counted): wall seconds
    until it answers that the model is loaded, and its user+sys CPU (the parent's own start excluded)."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    from benchmarks.paths import ROOT

    roots = [Path(t).resolve() for t in tree.split(",")] if tree else [ROOT]
    cache = tempfile.mkdtemp(prefix="nmt-speed-pyc-")
    env0 = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    got: dict[Path, list[dict]] = {r: [] for r in roots}
    for i in range(runs + 1):
        for root in (roots if i % 2 == 0 else roots[::-1]):
            p = subprocess.run([sys.executable, "-c", _ENGINE_START, model], capture_output=True, text=True, check=True,
                               cwd=root, env={**env0, "PYTHONPATH": str(root), "PYTHONPYCACHEPREFIX": cache})
            if i:
                got[root].append(json.loads(p.stdout.strip().splitlines()[-1]))
    shutil.rmtree(cache, ignore_errors=True)
    out: dict = {"model": model, "runs": runs, "load_average": list(os.getloadavg())}
    for root, v in got.items():
        ready, cpu = [x["ready_s"] for x in v], [x["engine_cpu_s"] for x in v]
        out[str(root)] = {"ready_s": round(statistics.median(ready), 2), "ready_s_all": sorted(round(x, 2) for x in ready),
                          "engine_cpu_s": round(statistics.median(cpu), 2),
                          "engine_cpu_s_all": sorted(round(x, 2) for x in cpu)}
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
    pr = sub.add_parser("process")
    pr.add_argument("--model", required=True)
    pr.add_argument("--src", default="held-out")
    pr.add_argument("--n", type=int, default=20)
    pr.add_argument("--tree", default=None, help="the checkout(s) to run, comma-separated (default: this one)")
    pr.add_argument("--runs", type=int, default=3)
    pr.add_argument("--words", default="18-22", help="LO-HI: sentences of LO to HI words (1-1000: the first N)")
    es = sub.add_parser("engine-start")
    es.add_argument("--model", required=True)
    es.add_argument("--tree", default=None, help="the checkout(s) to run, comma-separated (default: this one)")
    es.add_argument("--runs", type=int, default=6)
    t = sub.add_parser("train")
    t.add_argument("--config", required=True)
    t.add_argument("--steps", type=int, default=40)
    t.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    if args.what == "latency":
        res = latency(args.model, args.src, n=args.n, beam=args.beam, threads=args.threads)
    elif args.what == "process":
        lo, hi = (int(x) for x in args.words.split("-"))
        res = process_cpu(args.model, args.src, n=args.n, tree=args.tree, runs=args.runs, lo=lo, hi=hi)
    elif args.what == "engine-start":
        res = engine_start(args.model, tree=args.tree, runs=args.runs)
    else:
        res = train_speed(args.config, steps=args.steps, threads=args.threads)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
