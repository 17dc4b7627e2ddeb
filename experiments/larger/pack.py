"""Make runs/larger-carry/ here, what experiments/larger/gpu_run.sh reads on the lent GPU machine (it reaches no
network and has no ../shared): ``data.tar.xz`` -- the demo corpus (experiments/demo/prepare.py's train/dev/test),
the KDE manuals' docs.en/de/doc (benchmarks/effort.py's held-aside documents) and effort's TM of the other manuals
(built here once, as effort builds it) -- and ``whl/``, wheels for the device image's Python 3.12 of the packages
it lacks (its list: /work/.library/device/KINDS.md), fetched with ``pip download`` here.  Everything carried
must stay under the device tool's 64 MiB with the working tree.

    .venv/bin/python -m experiments.larger.pack [--no-wheels]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile

from benchmarks.paths import ROOT, RUNS, SHARED_DATA

CARRY = ROOT / "runs" / "larger-carry"
# what the engine's training, `verso eval --tm` and benchmarks/effort.py imported in the CPU check (modules recorded
# at exit) that the device image lacks (KINDS.md lists click, python-dateutil, pluggy, tabulate, lxml, regex, ...)
WHEELS = ["rapidfuzz==3.14.6", "whoosh-reloaded==2.7.5", "cached-property==2.0.1", "sqlite-utils==4.2.1",
          "sqlite-fts4==1.0.3", "click-default-group==1.2.4"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-wheels", action="store_true")
    a = ap.parse_args(argv)
    CARRY.mkdir(parents=True, exist_ok=True)
    data = RUNS / "demo-data"
    if not (data / "train.en").is_file():
        subprocess.run([sys.executable, "-m", "experiments.demo.prepare", "--out", str(data)], check=True)
    from benchmarks.effort import CORPORA, documents
    from engine.nmt.retrieval import build_training_tm, data_hash

    _, pairs = documents("kde", 1, 8, 40, 40)
    folder, en, de, _ = CORPORA["kde"]   # the folder effort's working_tm builds and finds by the data's hash
    tm = RUNS / "effort" / f"tm-kde-{data_hash(SHARED_DATA / folder / en, SHARED_DATA / folder / de, extra='effort-tm')}"
    build_training_tm(tm, [p[0] for p in pairs], [p[1] for p in pairs], src_lang="en", tgt_lang="de").close()
    with tarfile.open(CARRY / "data.tar.xz", "w:xz", preset=6) as tar:
        for name in ("train.en", "train.de", "dev.en", "dev.de", "test.en", "test.de"):
            tar.add(data / name, f"demo-data/{name}")
        for name in ("docs.en", "docs.de", "docs.doc"):
            tar.add(SHARED_DATA / "kde4-l10n-de" / name, f"shared/kde4-l10n-de/{name}")
        tar.add(tm, f"effort/{tm.name}")
    if not a.no_wheels:
        whl = CARRY / "whl"
        whl.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.12", "--implementation", "cp",
                        "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64",
                        "--platform", "manylinux2014_x86_64", "-d", str(whl), *WHEELS], check=True)
    total = sum(p.stat().st_size for p in CARRY.rglob("*") if p.is_file())
    print(f"{CARRY}: {total / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
