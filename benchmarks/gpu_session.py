"""One GPU session's experiments, run side by side on one lent GPU (issues 4, 5 and 7).

A lent GPU machine comes for 30 minutes at most, in calls of 10 minutes, so every
experiment runs at once under one driver that outlives the calls (``start``
detaches it), with a wall-clock budget per run; ``status`` prints where each run is
and ``pack`` gathers what comes back (results, hypotheses, histories, the SEG-NMT
models' best weights).  A plan (``PLANS``) is data: for each job its steps, each a command
with an optional deadline in seconds after the driver started; a training step
that reaches its deadline is stopped (its best checkpoint stays: the model folder
is valid at every evaluation) and the job goes on with its evaluation steps.  Session 9 ran
it on one H100: its 24 trainings took the 80 GB (2-7 GB each) and two Hansards runs ran out of
memory at their start, so a plan that adds jobs should count their memory.

    # here: the data the plan reads, as .devdata/data.tar.gz (untracked, not ignored: it travels)
    .venv/bin/python benchmarks/gpu_session.py bundle --plan s12
    # on the GPU machine, call 1: unpack beside the repo, CUDA check, start the driver (gpu_session.sh)
    PLAN=s12 bash benchmarks/gpu_session.sh .devdata/data.tar.gz
    python3 benchmarks/gpu_session.py start --runs ../runs/gpu --plan s12     # (what gpu_session.sh runs)
    python3 benchmarks/gpu_session.py status --runs ../runs/gpu
    python3 benchmarks/gpu_session.py pack --runs ../runs/gpu --out $OUT
    # here: print a plan's jobs and commands (session 9's: --plan s9; the next one: s12, the default)
    .venv/bin/python benchmarks/gpu_session.py plan --runs /tmp/gpu
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CFG = ROOT / "benchmarks" / "configs"
RUNS_DATA = ROOT.parent / "runs"          # demo-data, hansards-data, doc-data, segnmt/memory
SHARED = ROOT.parent / "shared" / "data"  # multi30k

MIN = 60
DEV = os.environ.get("VERSO_BENCH_DEVICE", "cuda")  # where evaluations decode


def _train(cfg: Path | str, out: Path, until: float) -> dict:
    return {"cmd": [PY, "-m", "engine", "train", "--config", str(cfg), "--out", str(out), "--events", "--quiet"],
            "stdout": str(out) + ".events.jsonl", "until": until}


def _sh(argv: list[str], stdout: Path | None = None, env: dict | None = None) -> dict:
    return {"cmd": [str(a) for a in argv], "stdout": str(stdout) if stdout else None, "env": env or {}}


def _eval(model: Path, src: Path, ref: Path, *, hyps: bool = True, name: str = "test") -> dict:
    """``verso eval`` of ``model`` on (src, ref): JSON to MODEL.NAME.json (hypotheses to MODEL.test.de)."""
    argv = [PY, "-m", "engine", "eval", "--model", model, "--src", src, "--ref", ref, "--device", DEV]
    if hyps:
        argv += ["--hyp-out", str(model) + ".test.de"]
    return _sh(argv, Path(f"{model}.{name}.json"))


PATH_KEYS = {"data": ("train_src", "train_tgt", "dev_src", "dev_tgt", "train_docs", "dev_docs"),
             "train": ("memory_cache", "init_from")}


def derive(cfg: Path, out: Path, **changes: dict) -> Path:
    """A copy of config ``cfg`` at ``out`` with its paths made absolute and ``changes`` applied
    (``section={key: value}``; a value of None removes the key)."""
    from doc_experiments import write_toml

    d = tomllib.loads(cfg.read_text(encoding="utf-8"))
    for section, keys in PATH_KEYS.items():
        for k in keys:
            v = d.get(section, {}).get(k)
            if v and not Path(v).is_absolute():
                d[section][k] = str((cfg.parent / v).resolve())
    for section, body in changes.items():
        for k, v in body.items():
            if v is None:
                d[section].pop(k, None)
            else:
                d[section][k] = v
    out.parent.mkdir(parents=True, exist_ok=True)
    write_toml(out, d, f"derived from {cfg.relative_to(ROOT)} with {changes}")
    return out


NO_MEMORY = {"memory": None, "memory_coverage": None, "memory_gate_bias": None, "memory_score": None,
             "memory_match": None, "memory_metric_init": None}
NO_MEMORY_TRAIN = {"memory_k_train": None, "memory_cache": None, "memory_exact_rate": None}


def plan_s9(runs: Path, scale: float = 1.0) -> list[dict]:
    """The jobs, in start order.  ``scale`` shrinks every deadline (dry runs).

    Session 9's plan (what the CPU could not do in sessions 1-8): the second seeds of the six
    Multi30k systems at seed 1's budget (12 epochs), Hansards trained ~17 minutes for AER, the
    document-context baseline and best system from scratch on both corpora with two seeds, and
    long SEG-NMT fine-tunes (the paper's model and session 8's best variant, each with its
    no-memory control continued for as long) whose weights come back for the TM band tables."""
    T = lambda minutes: minutes * MIN * scale  # noqa: E731
    m30k = SHARED / "multi30k"
    cfgs = runs / "configs"
    jobs: list[dict] = []
    # issue 4: Multi30k, seed 2 of the 6 systems, 12 epochs as seed 1 (Table 2 of the context-gates paper)
    for cfg in sorted((CFG / "multi30k").glob("*-s2.toml")):
        out = runs / "multi30k" / cfg.stem
        jobs.append({"name": f"m30k/{cfg.stem}", "steps": [
            _train(derive(cfg, cfgs / "multi30k" / cfg.name, train={"max_epochs": 12}), out, T(17)),
            _eval(out, m30k / "test_2016_flickr.en", m30k / "test_2016_flickr.de")]})
    # issue 4: attention alignment, Hansards En->Fr, AER on the WPT trial gold
    for stem in ("gru-base-s1", "gru-bridge-source-s1", "gru-bridge-direct-s1"):
        out = runs / "hansards" / stem
        jobs.append({"name": f"hansards/{stem}", "steps": [
            _train(CFG / "hansards" / f"{stem}.toml", out, T(17)),
            _sh([PY, ROOT / "benchmarks/aer_wpt.py", "--model", out, "--data", RUNS_DATA / "hansards-data",
                 "--device", DEV], Path(str(out) + ".aer.json")),
            _eval(out, RUNS_DATA / "hansards-data/dev.en", RUNS_DATA / "hansards-data/dev.fr", hyps=False, name="dev")]})
    # issue 7: cross-sentence context from scratch, baseline vs the paper's best combination, 2 seeds, 2 corpora;
    # each run scored as soon as it stops, then per corpus the consistency of all runs (baseline as aligner)
    for corpus in ("kde", "jrc"):
        jobs += _doc_jobs(runs, corpus, ["baseline-s1", "best-s1", "baseline-s2", "best-s2"], T(17))
    # issue 5: long SEG-NMT fine-tunes from each corpus's baseline (dev BLEU every few hundred steps, early
    # stopping), the paper's model, session 8's best variant, and the baseline continued without memory
    seg = {"kde": (CFG / "demo" / "segnmt-small.toml", CFG / "demo" / "segnmt-small-cos-score-exact-ls0.toml",
                   {"max_steps": 6000, "max_epochs": 10, "eval_every": 300, "checkpoint_every": 300,
                    "patience": 6, "lr_patience": 3, "log_every": 50}),
           "jrc": (CFG / "segnmt_jrc" / "seg-ft-s1.toml", CFG / "segnmt_jrc" / "seg-cos-score-exact-ls0-s1.toml",
                   {"max_steps": 3000, "max_epochs": 40, "eval_every": 100, "checkpoint_every": 100,
                    "patience": 8, "lr_patience": 3, "log_every": 20})}
    for corpus, (paper, best, longer) in seg.items():
        variants = {"paper": derive(paper, cfgs / "seg" / f"{corpus}-paper.toml", train=longer),
                    "best": derive(best, cfgs / "seg" / f"{corpus}-best.toml", train=longer),
                    "base": derive(paper, cfgs / "seg" / f"{corpus}-base.toml", model=NO_MEMORY,
                                   train={**longer, **NO_MEMORY_TRAIN})}
        for variant, cfg in variants.items():
            out = runs / "seg" / f"{corpus}-{variant}"
            init = Path(tomllib.loads(cfg.read_text(encoding="utf-8"))["train"]["init_from"])
            jobs.append({"name": f"seg/{corpus}-{variant}", "steps": [
                _sh(["mkdir", "-p", out]), _sh(["cp", init / "spm.model", out / "spm.model"]),
                _train(cfg, out, T(17))]})
    return jobs


def _doc_jobs(runs: Path, corpus: str, names: list[str], until: float, train: dict | None = None) -> list[dict]:
    """Issue 7: train each ``doc_{corpus}/{name}.toml`` (with ``train`` changes), score it as soon as it stops,
    then the consistency of all of them (the seed-1 baseline as the aligner)."""
    doc_env = {"VERSO_BENCH_DEVICE": DEV}
    jobs, done = [], []
    for name in names:
        out = runs / "doc" / corpus / name
        cfg = CFG / f"doc_{corpus}" / f"{name}.toml"
        if train:
            cfg = derive(cfg, runs / "configs" / f"doc_{corpus}" / f"{name}.toml", train=train)
        done.append(f"doc/{corpus}/{name}")
        jobs.append({"name": done[-1], "steps": [
            _train(cfg, out, until),
            _sh([PY, ROOT / "benchmarks/doc_experiments.py", "evaluate", "--runs", runs / "doc", "--data",
                 RUNS_DATA / "doc-data", "--out", runs / "doc-eval", "--corpus", corpus, "--only", name,
                 "--no-consistency"], Path(f"{out}.eval.log"), env=doc_env)]})
    jobs.append({"name": f"doc-eval/{corpus}", "after": done, "steps": [
        _sh([PY, ROOT / "benchmarks/doc_experiments.py", "evaluate", "--runs", runs / "doc", "--data",
             RUNS_DATA / "doc-data", "--out", runs / "doc-eval", "--corpus", corpus, "--cached-only"],
            runs / f"doc-eval-{corpus}.log", env=doc_env)]})
    return jobs


def plan_s12(runs: Path, scale: float = 1.0) -> list[dict]:
    """The next GPU session's plan (written in session 11, on a CPU-only machine): issue 7's Table 1 from
    scratch on the KDE manuals at EQUAL budgets -- the seven systems (baseline, init-enc, init-dec,
    init-both, aux, gated-aux, the paper's combination), two seeds each, every run capped at the same
    5,000 steps (20 epochs) with early stopping on dev BLEU, under a deadline (19 minutes) that session 9's
    slowest system (the combination, ~4,000 steps in 17 minutes beside 23 other jobs) should not reach with
    14 jobs; a run the deadline stops is scored at its best checkpoint and says so in ``driver.json``.
    Data: ``bundle --plan s12`` (the KDE document split and its contrastive set, 2.3 MB).  Memory: session 9's
    processes took 2-7 GB each; 14 at once may not fit in 80 GB -- a job that fails at its start shows as
    ``failed`` in ``status`` (its stderr under logs/), and ``start --parallel 10`` queues the rest instead."""
    systems = ["baseline", "init-enc", "init-dec", "init-both", "aux", "gated-aux", "best"]
    names = [f"{s}-s{seed}" for seed in (1, 2) for s in systems]
    return _doc_jobs(runs, "kde", names, 19 * MIN * scale, train={"max_steps": 5000})


PLANS = {"s9": plan_s9, "s12": plan_s12}
# What each plan reads from beside the repository (``bundle``): paths under its parent folder.
PLAN_DATA = {"s9": ["runs/demo-data", "runs/demo-small", "runs/doc-data", "runs/hansards-data", "runs/segnmt",
                    "runs/segnmt-jrc", "shared/data/multi30k"],
             "s12": ["runs/doc-data/kde"]}


# ------------------------------------------------------------------ the driver
class Driver:
    def __init__(self, runs: Path, jobs: list[dict], parallel: int, t0: float):
        self.runs, self.jobs, self.parallel, self.t0 = runs, jobs, parallel, t0
        self.state = {j["name"]: {"status": "waiting", "step": 0,
                                  "events": next((s["stdout"] for s in j["steps"] if "until" in s), None)}
                      for j in jobs}
        self.procs: dict[str, subprocess.Popen] = {}
        self.handles: dict[str, object] = {}

    def save(self) -> None:
        tmp = self.runs / ".driver.json.tmp"
        tmp.write_text(json.dumps({"t0": self.t0, "now": time.time(), "jobs": self.state}, indent=1))
        tmp.replace(self.runs / "driver.json")

    def launch(self, job: dict) -> None:
        name, st = job["name"], self.state[job["name"]]
        step = job["steps"][st["step"]]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", **step.get("env", {})}
        if step.get("stdout"):
            Path(step["stdout"]).parent.mkdir(parents=True, exist_ok=True)
        out = open(step["stdout"], "ab") if step.get("stdout") else subprocess.DEVNULL
        err = open(self.runs / "logs" / (name.replace("/", "_") + ".stderr"), "ab")
        self.procs[name] = subprocess.Popen(step["cmd"], cwd=ROOT, env=env, stdout=out, stderr=err,
                                            start_new_session=True)
        st.update(status="running", pid=self.procs[name].pid, started=round(time.time() - self.t0, 1),
                  cmd=" ".join(step["cmd"][:6]))

    def tick(self) -> bool:
        now = time.time()
        for job in self.jobs:
            name, st = job["name"], self.state[job["name"]]
            p = self.procs.get(name)
            if p is None:
                continue
            step = job["steps"][st["step"]]
            rc = p.poll()
            if rc is None and step.get("until") is not None and now - self.t0 > step["until"]:
                os.killpg(p.pid, signal.SIGTERM)
                st["stopped_at_deadline"] = st.get("stopped_at_deadline", []) + [st["step"]]
                try:
                    rc = p.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    rc = p.wait()
            if rc is None:
                continue
            del self.procs[name]
            st.setdefault("rc", []).append(rc)
            deadline_stop = st["step"] in st.get("stopped_at_deadline", [])
            if rc != 0 and not deadline_stop:
                st["status"] = "failed"
                continue
            st["step"] += 1
            if st["step"] >= len(job["steps"]):
                st.update(status="done", finished=round(now - self.t0, 1))
            else:
                self.launch(job)
        for job in self.jobs:
            name, st = job["name"], self.state[job["name"]]
            if st["status"] != "waiting" or len(self.procs) >= self.parallel:
                continue
            deps = [self.state[d]["status"] for d in job.get("after", [])]
            if any(d == "failed" for d in deps):
                st["status"] = "failed"
                st["why"] = "a job it needs failed"
            elif all(d == "done" for d in deps):
                self.launch(job)
        self.save()
        return any(s["status"] in ("waiting", "running") for s in self.state.values())

    def run(self) -> None:
        while self.tick():
            time.sleep(2)
        self.save()


def cmd_start(a) -> None:
    runs = Path(a.runs).resolve()
    (runs / "logs").mkdir(parents=True, exist_ok=True)
    if a.foreground:
        Driver(runs, PLANS[a.plan](runs, a.scale), a.parallel, time.time()).run()
        return
    log = open(runs / "driver.log", "ab")
    p = subprocess.Popen([PY, __file__, "start", "--runs", str(runs), "--parallel", str(a.parallel),
                          "--scale", str(a.scale), "--plan", a.plan, "--foreground"], cwd=ROOT, stdout=log, stderr=log,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    print(f"driver pid {p.pid}, runs in {runs}")


def _last_events(path: Path) -> dict:
    out: dict = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[-400:]:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        out[ev.get("event")] = ev
    return out


def cmd_status(a) -> None:
    runs = Path(a.runs).resolve()
    d = json.loads((runs / "driver.json").read_text())
    print(f"driver: {time.time() - d['t0']:.0f} s since start, last tick {time.time() - d['now']:.0f} s ago")
    for name, st in d["jobs"].items():
        ev = _last_events(Path(st["events"])) if st.get("events") else {}
        step, evl = ev.get("step", {}), ev.get("eval", {})
        print(f"{name:32s} {st['status']:8s} step#{st['step']} "
              f"train step {step.get('step', '-')} ep {step.get('epoch', '-')} loss {step.get('loss', '-')} "
              f"tok/s {step.get('tokens_per_s', '-')} | dev BLEU {evl.get('dev_bleu', '-')} best {evl.get('best_bleu', '-')}"
              + (f" rc {st.get('rc')}" if st.get("rc") else ""))
    for f in sorted((runs / "logs").glob("*.stderr")):
        tail = f.read_text(errors="replace").strip().splitlines()[-3:]
        if tail and any("Error" in t or "Traceback" in t for t in tail):
            print(f"--- {f.name}:", *tail, sep="\n  ")


def cmd_pack(a) -> None:
    """results.tar.gz: every small file (no weights); model-*.tar(.partNN): the demo models' folders."""
    runs, out = Path(a.runs).resolve(), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out / "results.tar.gz", "w:gz") as tf:
        for p in sorted(runs.rglob("*")):
            if p.is_file() and p.suffix not in (".safetensors", ".model") and p.stat().st_size < 8_000_000:
                tf.add(p, arcname=str(p.relative_to(runs)))
    tar = out / "models.tar"  # the named model folders without their intermediate checkpoints
    with tarfile.open(tar, "w") as tf:
        for name in a.models:
            folder = runs / name
            if not (folder / "manifest.json").is_file():
                continue
            best = json.loads((folder / "manifest.json").read_text()).get("best")
            for f in ("config.json", "manifest.json", "spm.model", "history.jsonl", best):
                if f and (folder / f).is_file():
                    tf.add(folder / f, arcname=f"{name}/{f}")
    if tar.stat().st_size > a.part_bytes:  # files come back at most 16 MiB each
        with open(tar, "rb") as fh:
            k = 0
            while chunk := fh.read(a.part_bytes):
                (out / f"models.tar.part{k:02d}").write_bytes(chunk)
                k += 1
        tar.unlink()
    for p in sorted(out.iterdir()):
        print(p.name, p.stat().st_size)


def cmd_plan(a) -> None:
    for job in PLANS[a.plan](Path(a.runs).resolve()):
        print(job["name"], "after", job.get("after", []))
        for s in job["steps"]:
            print("   ", " ".join(map(str, s["cmd"])), "| until", s.get("until"))


def cmd_bundle(a) -> None:
    """The data a plan reads, as one tarball that ``gpu_session.sh`` unpacks beside the repository there."""
    parent = ROOT.parent
    missing = [p for p in PLAN_DATA[a.plan] if not (parent / p).exists()]
    if missing:
        sys.exit(f"bundle: missing beside the repository ({parent}): {', '.join(missing)}")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:gz") as tf:
        for p in PLAN_DATA[a.plan]:
            tf.add(parent / p, arcname=p)
    print(f"{out}: {out.stat().st_size / 1e6:.1f} MB ({', '.join(PLAN_DATA[a.plan])})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start")
    s.add_argument("--runs", required=True)
    s.add_argument("--parallel", type=int, default=20)
    s.add_argument("--scale", type=float, default=1.0, help="multiply every deadline (dry runs)")
    s.add_argument("--foreground", action="store_true")
    s.add_argument("--plan", choices=sorted(PLANS), default="s12")
    s.set_defaults(fn=cmd_start)
    s = sub.add_parser("status")
    s.add_argument("--runs", required=True)
    s.set_defaults(fn=cmd_status)
    s = sub.add_parser("pack")
    s.add_argument("--runs", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--models", nargs="*", default=[f"seg/{c}-{v}" for c in ("kde", "jrc")
                                                    for v in ("paper", "best", "base")])
    s.add_argument("--part-bytes", type=int, default=15 * 1024 * 1024)
    s.set_defaults(fn=cmd_pack)
    s = sub.add_parser("plan")
    s.add_argument("--runs", required=True)
    s.add_argument("--plan", choices=sorted(PLANS), default="s12")
    s.set_defaults(fn=cmd_plan)
    s = sub.add_parser("bundle")
    s.add_argument("--plan", choices=sorted(PLANS), default="s12")
    s.add_argument("--out", default=str(ROOT / ".devdata" / "data.tar.gz"))
    s.set_defaults(fn=cmd_bundle)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
