"""`verso tm import` of a Trados Studio TM (.sdltm) of 100,000 units (issue 48: <= 30 s).

Builds an .sdltm with Trados' schema (tests/packages/trados.py) from the KDE UI strings of
../shared/data/kde4-l10n-de (real en-de pairs; one in three with a tag pair, fields on half the
units), then times ``python -m engine tm import`` in a fresh process (wall time, its CPU seconds -- what a
loaded shared machine still measures fairly -- and peak RSS).

    .venv/bin/python -m benchmarks.sdltm_import [--units 100000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _trados_writer():
    """tests/packages/trados.py's ``write_sdltm`` (the tests' .sdltm builder), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("trados_fixture", ROOT / "tests" / "packages" / "trados.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.write_sdltm

DATA = ROOT.parent / "shared" / "data" / "kde4-l10n-de"


def _pairs(n: int):
    src = (DATA / "ui.en").read_text("utf-8").splitlines()
    tgt = (DATA / "ui.de").read_text("utf-8").splitlines()
    seen, out = set(), []
    for s, t in zip(src, tgt):
        if s.strip() and t.strip() and s not in seen:
            seen.add(s)
            if len(out) % 3 == 0 and " " in s and " " in t:
                a, b = s.split(" ", 1)
                c, d = t.split(" ", 1)
                out.append(((a + " ", ("Start", 1), b, ("End", 1)), (c + " ", ("Start", 1), d, ("End", 1))))
            else:
                out.append((s, t))
        if len(out) == n:
            break
    i = 0
    while len(out) < n:  # past the corpus's distinct strings: numbered variants
        s, t = out[i]
        out.append(((s if isinstance(s, str) else "".join(p for p in s if isinstance(p, str))) + f" ({i})",
                    (t if isinstance(t, str) else "".join(p for p in t if isinstance(p, str))) + f" ({i})"))
        i += 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", type=int, default=100_000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="verso-sdltm-") as tmp:
        sdltm = _trados_writer()(Path(tmp) / "Client.sdltm", _pairs(a.units))
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "engine", "tm", "import", str(sdltm), "--tm", str(Path(tmp) / "tm")],
                              capture_output=True, text=True, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
        wall = time.perf_counter() - t0
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
        res = json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr.strip()[-300:]}
        print(json.dumps({"units": a.units, "sdltm_mb": round(sdltm.stat().st_size / 1e6, 1), "seconds": round(wall, 2),
                          "cpu_seconds": round(cpu, 2),
                          "peak_rss_mib": round(rss), "added": res.get("added"), "skipped": res.get("skipped"),
                          "error": res.get("error"), "machine": f"{platform.machine()} {os.cpu_count()} cores",
                          "load": os.getloadavg()[0]}))
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
