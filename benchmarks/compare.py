"""One benchmark on two checkouts, interleaved in one run: ``--tree OTHER [--rounds N]``.

    .venv/bin/python -m benchmarks.tm_search --reuse 1000000 --sizes 1000000 --tree /work/base951 --rounds 3
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.ui_latency ... --tree /work/base951

A benchmark whose ``main()`` starts with ``if compare.run_if_asked("MODULE"): return`` takes two
more options: ``--tree`` (another checkout, e.g. ``git worktree add /tmp/base 951c082``) and
``--rounds`` (default 3).  With ``--tree`` the benchmark itself is not run here: each round runs it
once per checkout, each in a fresh process, in alternating order (this, other; other, this; ...),
with the same arguments -- the same inputs, the same load -- and this report is printed as JSON:
every number of the benchmark's JSON output (nested keys joined by ``.``) as the median over the
rounds per checkout and the ratio this / other, plus each run's output and load average.

The benchmark's code is this checkout's in both runs; only what it measures differs: the child
process puts OTHER first on ``sys.path`` (and in ``PYTHONPATH`` for the processes it starts), so
``engine`` and ``app`` come from OTHER and ``benchmarks`` from here.  Paths in the arguments
should be absolute (the child runs in OTHER's folder).
"""
from __future__ import annotations

import importlib.util
import json
import os
import runpy
import shutil
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pop_option(argv: list[str], name: str) -> str | None:
    """Remove ``name VALUE`` or ``name=VALUE`` from ``argv``; the value, or None."""
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            value = argv[i + 1]
            del argv[i:i + 2]
            return value
        if a.startswith(name + "="):
            del argv[i]
            return a.split("=", 1)[1]
    return None


def json_objects(text: str) -> list[dict]:
    """Every JSON object in a benchmark's output (one per line, or one indented object)."""
    dec, out, i = json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) >= 0:
        if i and text[i - 1] != "\n":
            i += 1
            continue
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        i = end
    return out


def numbers(obj, prefix: str = "") -> dict[str, float]:
    """The numeric leaves of a JSON value, by dotted key (lists by index)."""
    out: dict[str, float] = {}
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        key = f"{prefix}{k}"
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            out[key] = float(v)
        else:
            out.update(numbers(v, key + "."))
    return out


def tree_tm(folder: Path, share_index: bool = False) -> Path:
    """The TM folder for the checkout whose ``engine`` runs: ``folder`` for this one; for another,
    a sibling holding a copy of its SQLite only, whose index that checkout builds once, here, in a
    process of its own (one checkout's index need not be another's to read) -- the same units and
    ids.  ``share_index``: the index files are linked instead (same index format; a 752k TM's
    index takes the other checkout many minutes to build)."""
    import engine

    tree = Path(engine.__file__).resolve().parents[1]
    if tree == ROOT:
        return folder
    mine = folder.with_name(f"{folder.name}@{zlib.crc32(str(tree).encode()):08x}{'-shared' if share_index else ''}")
    if not (mine / "tm.sqlite").exists():
        tmp = mine.with_name(mine.name + ".part")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for p in folder.glob("tm.sqlite*"):
            shutil.copy2(p, tmp / p.name)
        if share_index:
            (tmp / "index").mkdir()
            for p in (folder / "index").iterdir():
                if p.name == "state.json":
                    shutil.copy2(p, tmp / "index" / p.name)
                else:
                    os.link(p, tmp / "index" / p.name)
        else:
            code = ("import sys; from engine.tm import TranslationMemory as T; t = T(sys.argv[1], create=False); "
                    "getattr(t, 'wait_for_index', lambda: None)(); t.close()")
            subprocess.run([sys.executable, "-c", code, str(tmp)], check=True)
        os.replace(tmp, mine)
    return mine


def run_child(tree: Path, module: str, args: list[str], timeout: float | None = None) -> dict:
    """The benchmark ``module`` run once in a fresh process against ``tree``'s engine and app."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree), module, *args]
    t0, load = time.perf_counter(), os.getloadavg()[0]
    p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    out = {"tree": str(tree), "rc": p.returncode, "wall_s": round(time.perf_counter() - t0, 2),
           "loadavg_1min_before": load, "results": json_objects(p.stdout)}
    if p.returncode or not out["results"]:
        out["stderr_tail"] = p.stderr[-2000:]
    return out


def compare(module: str, args: list[str], other: Path, rounds: int, timeout: float | None = None) -> dict:
    """``rounds`` interleaved runs of ``module`` on this checkout and on ``other``; medians, ratios."""
    trees = {"this": ROOT, "other": other.resolve()}
    runs: list[dict] = []
    for r in range(rounds):
        for name in (("this", "other") if r % 2 == 0 else ("other", "this")):
            run = run_child(trees[name], module, args, timeout)
            run["name"], run["round"] = name, r
            print(json.dumps({"round": r, "tree": name, "rc": run["rc"], "wall_s": run["wall_s"]}),
                  file=sys.stderr, flush=True)
            runs.append(run)
    per: dict[str, dict[str, list[float]]] = {"this": {}, "other": {}}
    for run in runs:
        for i, res in enumerate(run["results"]):
            for k, v in numbers(res).items():
                per[run["name"]].setdefault(f"{i}.{k}" if len(run["results"]) > 1 else k, []).append(v)
    medians = {}
    for k in per["this"].keys() | per["other"].keys():
        a, b = per["this"].get(k), per["other"].get(k)
        row = {"this": statistics.median(a) if a else None, "other": statistics.median(b) if b else None}
        if row["this"] is not None and row["other"]:
            row["ratio"] = round(row["this"] / row["other"], 3)
        medians[k] = row
    return {"module": module, "args": args, "rounds": rounds, "this": str(ROOT), "other": str(trees["other"]),
            "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()}",
            "medians": dict(sorted(medians.items())), "runs": runs}


def run_if_asked(module: str, argv: list[str] | None = None) -> bool:
    """With ``--tree`` in the command line: run the comparison, print it, return True (the
    caller returns); else False and the benchmark runs as usual."""
    argv = list(sys.argv[1:] if argv is None else argv)
    tree = _pop_option(argv, "--tree")
    rounds = _pop_option(argv, "--rounds")
    if tree is None:
        return False
    if not (Path(tree) / "engine").is_dir():
        sys.exit(f"--tree {tree}: not a Verso checkout (no engine/ folder)")
    print(json.dumps(compare(module, argv, Path(tree), int(rounds or 3)), indent=1))
    return True


def _child(tree: str, module: str, args: list[str]) -> None:
    """Run ``benchmarks.<module>`` (this checkout's) with ``engine``/``app`` from ``tree``."""
    here = str(ROOT / "benchmarks")
    sys.path[:] = [tree] + [p for p in sys.path if p not in (here, str(ROOT), "")]
    spec = importlib.util.spec_from_file_location("benchmarks", ROOT / "benchmarks" / "__init__.py",
                                                  submodule_search_locations=[here])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules["benchmarks"] = pkg
    spec.loader.exec_module(pkg)
    sys.argv = [f"benchmarks.{module}", *args]
    runpy.run_module(f"benchmarks.{module}", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit("usage: a benchmark's own command line with --tree OTHER [--rounds N]")
