"""Stream a large generated TMX file through :func:`engine.formats.tmx.read_tmx`.

Writes a TMX of about ``--size-mb`` megabytes (default 1024) into a temporary
folder (deleted afterwards), then reads it back and reports units per second
and resident memory: the peak of the whole process and the largest growth
seen while streaming.  The units look like a real TM export: two languages,
dates, a creator, a prop, and a bold pair in one unit of three.

    .venv/bin/python -m benchmarks.tmx_stream [--size-mb 1024] [--keep DIR]

``--tree OTHER [--rounds N]``: the same on another checkout, interleaved (:mod:`benchmarks.compare`).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks import compare
from engine.formats.tmx import read_tmx

_WORDS = ("the file system index cache server printer option window report user account "
          "value table query export import language setting network driver update").split()


def _sentence(i: int, n: int) -> str:
    return " ".join(_WORDS[(i * 7 + k * 3) % len(_WORDS)] for k in range(n)).capitalize() + "."


def generate(path: Path, size_bytes: int) -> int:
    """Write a TMX of at least ``size_bytes``; return its number of units."""
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tmx SYSTEM "tmx14.dtd">\n'
            '<tmx version="1.4">\n<header creationtool="bench" creationtoolversion="1" '
            'segtype="sentence" o-tmf="bench" adminlang="en" srclang="en-US" datatype="plaintext"/>\n'
            '<body>\n')
    n = 0
    written = 0
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head)
        batch: list[str] = []
        while written < size_bytes:
            words = 8 + n % 17
            src, tgt = _sentence(n, words), _sentence(n + 5, words + 2)
            if n % 3 == 0:
                src = f'<bpt i="1" x="1" type="bold">&lt;b&gt;</bpt>{src}<ept i="1">&lt;/b&gt;</ept>'
                tgt = f'<bpt i="1" x="1" type="bold">&lt;b&gt;</bpt>{tgt}<ept i="1">&lt;/b&gt;</ept>'
            tu = (f'<tu tuid="{n}" creationdate="20200101T120000Z" creationid="bench" usagecount="{n % 9}">'
                  f'<prop type="x-doc">doc{n % 1000}</prop>\n'
                  f'<tuv xml:lang="en-US"><seg>{src} #{n}</seg></tuv>\n'
                  f'<tuv xml:lang="de-DE"><seg>{tgt} #{n}</seg></tuv>\n</tu>\n')
            batch.append(tu)
            written += len(tu)
            n += 1
            if len(batch) == 10_000:
                fh.write("".join(batch))
                batch.clear()
        fh.write("".join(batch))
        fh.write("</body>\n</tmx>\n")
    return n


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    if compare.run_if_asked("tmx_stream"):
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--keep", type=Path, help="write the file here and keep it")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="verso-tmx-bench-")) if args.keep is None else args.keep
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "big.tmx"
    try:
        t0 = time.perf_counter()
        expected = generate(path, args.size_mb * 2**20)
        gen_s = time.perf_counter() - t0
        size = path.stat().st_size
        base = _rss()
        grow = 0
        count = 0
        problems: list[str] = []
        t0 = time.perf_counter()
        for _unit in read_tmx(path, src_lang="en", tgt_lang="de", problems=problems):
            count += 1
            if count % 20_000 == 0:
                grow = max(grow, _rss() - base)
        read_s = time.perf_counter() - t0
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({
            "file_mb": round(size / 2**20, 1),
            "units": count,
            "expected_units": expected,
            "problems": len(problems),
            "generate_s": round(gen_s, 1),
            "read_s": round(read_s, 1),
            "units_per_s": round(count / read_s),
            "mb_per_s": round(size / 2**20 / read_s, 1),
            "rss_growth_while_streaming_mb": round(grow / 2**20, 1),
            "peak_rss_mb": round(peak_kib / 1024, 1),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        }, indent=2))
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
