"""Time Verso's start to the first painted window: the bundle vs ``verso`` from a venv.

    .venv/bin/python packaging/startbench.py [--bundle dist/verso] [--venv .venv] [--warm 3]

For each program (the bundle's ``verso`` run with ``env -i``; the venv's console
script) and each Qt platform (offscreen; xcb on an Xvfb this script starts):

* cold: the program's files dropped from the page cache first (posix_fadvise
  DONTNEED on every file: no root needed; pages another process has mapped stay)
  and a fresh HOME, so the demo project is created as on a first start;
* warm: the same HOME again, files cached (median of ``--warm`` runs).

The time is from just before exec to ``VERSO_FIRST_PAINT`` printed by the probe
(packaging/rthook_startup_probe.py: a runtime hook in the bundle,
packaging/probe/sitecustomize.py for the venv), which then quits the editor.
Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def evict(paths: list[Path]) -> int:
    """Drop these trees' files from the page cache; returns the number of files."""
    n = 0
    for base in paths:
        files = [base] if base.is_file() else (p for p in base.rglob("*") if p.is_file() and not p.is_symlink())
        for p in files:
            try:
                fd = os.open(p, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                n += 1
            finally:
                os.close(fd)
    return n


def start_xvfb() -> tuple[subprocess.Popen, str]:
    for n in range(131, 160):
        if Path(f"/tmp/.X11-unix/X{n}").exists() or Path(f"/tmp/.X{n}-lock").exists():
            continue
        proc = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{n}").exists():
                return proc, f":{n}"
            time.sleep(0.05)
        proc.kill()
    raise SystemExit("startbench: cannot start Xvfb")


def one_start(cmd: list[str], env: dict) -> float:
    t0 = time.time()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    for line in r.stderr.splitlines():
        if line.startswith("VERSO_FIRST_PAINT "):
            return float(line.split()[1]) - t0
    raise RuntimeError(f"no first paint from {cmd}: rc {r.returncode}\n{r.stderr[-2000:]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", type=Path, default=ROOT / "dist" / "verso")
    ap.add_argument("--venv", type=Path, default=ROOT / ".venv")
    ap.add_argument("--warm", type=int, default=3)
    ap.add_argument("--cold", type=int, default=1)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="verso-startbench-"))
    emptybin = tmp / "emptybin"
    emptybin.mkdir()
    xvfb, display = start_xvfb()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    programs = {
        "bundle (env -i)": ([str(args.bundle / "verso")], {"PATH": str(emptybin), "LANG": "C.UTF-8"},
                            [args.bundle]),
        "venv `verso`": ([str(args.venv / "bin" / "verso")],
                         {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                          "PYTHONPATH": str(ROOT / "packaging" / "probe")},
                         [args.venv / "lib", ROOT / "app", ROOT / "engine", ROOT / "resources", stdlib]),
    }
    rows = []
    try:
        for platform in ("offscreen", "xcb"):
            for label, (cmd, base_env, trees) in programs.items():
                env = dict(base_env, VERSO_STARTUP_PROBE="exit")
                env.update({"QT_QPA_PLATFORM": "offscreen"} if platform == "offscreen" else {"DISPLAY": display})
                colds = []
                for i in range(args.cold):
                    home = tmp / f"home-{platform}-{label[:6]}-{i}"
                    home.mkdir()
                    evict(trees)
                    colds.append(one_start(cmd, dict(env, HOME=str(home))))
                warms = [one_start(cmd, dict(env, HOME=str(home))) for _ in range(args.warm)]
                rows.append((platform, label, colds, warms))
                print(f"{platform:9} {label:16} cold {colds} warm {warms}", file=sys.stderr, flush=True)
    finally:
        xvfb.kill()
    print("| platform | program | cold (fresh HOME, files evicted) | warm (median of %d) | warm runs |" % args.warm)
    print("|---|---|---|---|---|")
    for platform, label, colds, warms in rows:
        print(f"| {platform} | {label} | {' / '.join(f'{c:.2f} s' for c in colds)} | "
              f"{statistics.median(warms):.2f} s | {', '.join(f'{w:.2f}' for w in warms)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
