"""Issue 23, every input bounded: time and peak memory of reading one-line inputs.

For 100 KB, 1 MB and 10 MB of prose on ONE line it measures, each in a fresh
subprocess (peak memory = that process's ``ru_maxrss``):

* ``txt``: reading a plain-text document (``read_document``: decode, protect,
  sentence segmentation);
* ``po``: reading a PO file whose one msgid is that line;
* ``tm-pair``: ``verso tm import`` of two line-aligned text files, one line each.

Inputs over the 1 MiB line limit are refused; the table shows how fast and
in how much memory.  Usage::

    python -m benchmarks.bounded_input [--sizes 100000,1000000,10000000]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.paths import ROOT

PROSE = ("The committee met on Monday to discuss the new budget. Several members asked "
         "for more time, and the chair agreed! Would the report be ready by June? ")

CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]  # run in the repository root: engine imports from there
from engine.errors import VersoError
t0 = time.perf_counter()
try:
    if kind == "tm-pair":
        import contextlib, io
        from engine.cli import main
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = main(["tm", "import", path, "--target-file", sys.argv[3], "--tm", sys.argv[4],
                       "--src-lang", "en", "--tgt-lang", "de"])
        outcome = "imported" if rc == 0 else "refused: " + err.getvalue().strip().split(": ", 2)[-1]
    else:
        from engine.formats import read_document
        doc = read_document(path, src_lang="en", tgt_lang="de")
        outcome = f"{len(doc.segments)} segments"
except VersoError as e:
    outcome = "refused: " + e.message
dt = time.perf_counter() - t0
print(json.dumps({"s": dt, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "outcome": outcome}))
"""


def line_of(size: int) -> str:
    return (PROSE * (size // len(PROSE) + 1))[:size]


def run(kind: str, size: int, tmp: Path) -> dict:
    text = line_of(size)
    args: list[str]
    if kind == "txt":
        p = tmp / f"one-{size}.txt"
        p.write_text(text, "utf-8")
        args = [str(p)]
    elif kind == "po":
        p = tmp / f"one-{size}.po"
        p.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                     f'msgid "{text}"\nmsgstr ""\n', "utf-8")
        args = [str(p)]
    else:
        s, t = tmp / f"s-{size}.txt", tmp / f"t-{size}.txt"
        s.write_text(text, "utf-8")
        t.write_text(text.replace("the", "die"), "utf-8")
        args = [str(s), str(t), str(tmp / f"tm-{size}")]
    out = subprocess.run([sys.executable, "-c", CHILD, kind, *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        return {"s": float("nan"), "maxrss_mb": float("nan"), "outcome": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000,1000000,10000000")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    print("| input | one line of | time (s) | peak RSS (MiB) | outcome |")
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as d:
        for kind in ("txt", "po", "tm-pair"):
            for size in sizes:
                r = run(kind, size, Path(d))
                outcome = r["outcome"] if len(r["outcome"]) < 70 else r["outcome"][:67] + "..."
                print(f"| {kind} | {size:,} B | {r['s']:.2f} | {r['maxrss_mb']:.0f} | {outcome} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
