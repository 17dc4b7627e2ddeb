"""One GPU session's experiments, run side by side on one lent GPU (issues 4, 5 and 7).

A lent GPU machine comes for 30 minutes at most, in calls of 10 minutes, so every
experiment runs at once under one driver that outlives the calls (``start``
detaches it), with a wall-clock budget per run; ``status`` prints where each run is
and ``pack`` gathers what comes back (results, hypotheses, histories, the demo
models).  The plan (``PLAN``) is data: for each job its steps, each a command
with an optional deadline in seconds after the driver started; a training step
that reaches its deadline is stopped (its best checkpoint stays: the model folder
is valid at every evaluation) and the job goes on with its evaluation steps.

    # on the GPU machine, in the repo root, data unpacked under ../runs and ../shared (gpu_session.sh)
    python3 benchmarks/gpu_session.py start --runs ../runs/gpu
    python3 benchmarks/gpu_session.py status --runs ../runs/gpu
    python3 benchmarks/gpu_session.py pack --runs ../runs/gpu --out $OUT
    # here: a dry run of the whole plan with tiny budgets on the CPU
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


def seg_config(runs: Path, fusion: str) -> Path:
    """SEG-NMT fine-tune config: the demo config + memory, started from the demo baseline run."""
    text = (CFG / "segnmt_demo.toml").read_text(encoding="utf-8")
    data = RUNS_DATA / "demo-data"
    for split in ("train", "dev"):
        for lang in ("en", "de"):
            text = text.replace(f'"../../../runs/demo-data/{split}.{lang}"', f'"{data / f"{split}.{lang}"}"')
    text = text.replace('memory = "shallow"', f'memory = "{fusion}"')
    text = text.replace('memory_cache = "../../../runs/segnmt/memory"',
                        f'memory_cache = "{RUNS_DATA / "segnmt" / "memory"}"\ninit_from = "{runs / "demo-base"}"')
    text = text.replace("eval_every = 100", "eval_every = 300").replace("checkpoint_every = 20", "checkpoint_every = 300")
    path = runs / f"seg-{fusion}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def plan(runs: Path, scale: float = 1.0) -> list[dict]:
    """The jobs, in start order.  ``scale`` shrinks every deadline (dry runs)."""
    T = lambda minutes: minutes * MIN * scale  # noqa: E731
    m30k = SHARED / "multi30k"
    jobs: list[dict] = []
    # issue 4/5/6: the demo baseline (KDE + Magento En->De), then SEG-NMT fine-tunes from it
    base = runs / "demo-base"
    jobs.append({"name": "demo-base", "steps": [
        _train(CFG / "demo" / "kde-magento-ende.toml", base, T(9)),
        _eval(base, RUNS_DATA / "demo-data/test.en", RUNS_DATA / "demo-data/test.de")]})
    # issue 4: Multi30k, 6 systems x 2 seeds (Table 2 of the context-gates paper)
    for cfg in sorted((CFG / "multi30k").glob("*.toml")):
        out = runs / "multi30k" / cfg.stem
        jobs.append({"name": f"m30k/{cfg.stem}", "steps": [
            _train(cfg, out, T(15)),
            _eval(out, m30k / "test_2016_flickr.en", m30k / "test_2016_flickr.de")]})
    # issue 4: attention alignment, Hansards En->Fr, AER on the WPT trial gold
    for cfg in sorted((CFG / "hansards").glob("*.toml")):
        out = runs / "hansards" / cfg.stem
        jobs.append({"name": f"hansards/{cfg.stem}", "steps": [
            _train(cfg, out, T(15)),
            _sh([PY, ROOT / "benchmarks/aer_wpt.py", "--model", out, "--data", RUNS_DATA / "hansards-data",
                 "--device", DEV], Path(str(out) + ".aer.json")),
            _eval(out, RUNS_DATA / "hansards-data/dev.en", RUNS_DATA / "hansards-data/dev.fr", hyps=False, name="dev")]})
    # issue 7: cross-sentence context, KDE manuals by document: baseline vs the paper's best combination
    for name in ("baseline-s1", "best-s1"):
        out = runs / "doc" / "kde" / name
        jobs.append({"name": f"doc/{name}", "steps": [_train(CFG / "doc_kde" / f"{name}.toml", out, T(15))]})
    jobs.append({"name": "doc-eval", "after": ["doc/baseline-s1", "doc/best-s1"], "steps": [
        _sh([PY, ROOT / "benchmarks/doc_experiments.py", "evaluate", "--runs", runs / "doc",
             "--data", RUNS_DATA / "doc-data", "--out", runs / "doc-eval"], runs / "doc-eval.log",
            env={"VERSO_BENCH_DEVICE": DEV})]})
    # issue 5: SEG-NMT from the demo baseline, shallow and deep fusion, then the test table
    hyps = runs / "seg-hyps"
    for fusion in ("shallow", "deep"):
        out = runs / f"seg-{fusion}"
        steps = [_sh(["mkdir", "-p", out]), _sh(["cp", base / "spm.model", out / "spm.model"]),
                 _train(seg_config(runs, fusion), out, T(16))]
        mems = ("none", "1", "2", "4", "8", "16", "coverage") if fusion == "shallow" else ("none", "4")
        for mem in mems:
            steps.append(_sh([PY, ROOT / "benchmarks/segnmt_experiment.py", "translate", "--name",
                              f"{fusion}-{mem}", "--model", out, "--memory", mem, "--hyps", hyps],
                             env={"VERSO_BENCH_DEVICE": DEV, "VERSO_RUNS": str(RUNS_DATA)}))
        jobs.append({"name": f"seg-{fusion}", "after": ["demo-base"], "steps": steps})
    jobs.append({"name": "seg-table", "after": ["seg-shallow", "seg-deep"], "steps": [
        _sh([PY, ROOT / "benchmarks/segnmt_experiment.py", "translate", "--name", "base-none", "--model", base,
             "--memory", "none", "--hyps", hyps], env={"VERSO_BENCH_DEVICE": DEV, "VERSO_RUNS": str(RUNS_DATA)}),
        _sh([PY, ROOT / "benchmarks/segnmt_experiment.py", "table", "--hyps", hyps, "base-none",
             *[f"shallow-{m}" for m in ("none", "1", "2", "4", "8", "16", "coverage")], "deep-none", "deep-4"],
            runs / "seg-table.md", env={"VERSO_RUNS": str(RUNS_DATA)})]})
    return jobs


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
        Driver(runs, plan(runs, a.scale), a.parallel, time.time()).run()
        return
    log = open(runs / "driver.log", "ab")
    p = subprocess.Popen([PY, __file__, "start", "--runs", str(runs), "--parallel", str(a.parallel),
                          "--scale", str(a.scale), "--foreground"], cwd=ROOT, stdout=log, stderr=log,
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
    for name in a.models:
        folder = runs / name
        if not (folder / "manifest.json").is_file():
            continue
        man = json.loads((folder / "manifest.json").read_text())
        best = man.get("best")
        tar = out / f"model-{name}.tar"
        with tarfile.open(tar, "w") as tf:
            for f in ("config.json", "manifest.json", "spm.model", "history.jsonl", best):
                if f and (folder / f).is_file():
                    tf.add(folder / f, arcname=f"{name}/{f}")
        size = tar.stat().st_size
        if size > a.part_bytes:  # files come back at most 16 MiB each
            with open(tar, "rb") as fh:
                k = 0
                while chunk := fh.read(a.part_bytes):
                    (out / f"model-{name}.tar.part{k:02d}").write_bytes(chunk)
                    k += 1
            tar.unlink()
    for p in sorted(out.iterdir()):
        print(p.name, p.stat().st_size)


def cmd_plan(a) -> None:
    for job in plan(Path(a.runs).resolve()):
        print(job["name"], "after", job.get("after", []))
        for s in job["steps"]:
            print("   ", " ".join(map(str, s["cmd"])), "| until", s.get("until"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start")
    s.add_argument("--runs", required=True)
    s.add_argument("--parallel", type=int, default=20)
    s.add_argument("--scale", type=float, default=1.0, help="multiply every deadline (dry runs)")
    s.add_argument("--foreground", action="store_true")
    s.set_defaults(fn=cmd_start)
    s = sub.add_parser("status")
    s.add_argument("--runs", required=True)
    s.set_defaults(fn=cmd_status)
    s = sub.add_parser("pack")
    s.add_argument("--runs", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--models", nargs="*", default=["seg-shallow", "demo-base"])
    s.add_argument("--part-bytes", type=int, default=15 * 1024 * 1024)
    s.set_defaults(fn=cmd_pack)
    s = sub.add_parser("plan")
    s.add_argument("--runs", required=True)
    s.set_defaults(fn=cmd_plan)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
