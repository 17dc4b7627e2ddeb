"""Where benchmarks and experiments read shared data and write their runs.

``VERSO_RUNS`` names the runs folder (corpora built by the experiments' ``prepare`` modules, trained
models, hypotheses); it defaults to ``runs/`` in the repository, which git ignores.  Configs under
``experiments/*/config`` name it as ``$VERSO_RUNS``, so ``verso train --config`` needs it exported;
importing this module sets it for the subprocesses a script starts.  ``VERSO_SHARED_DATA`` names the
shared corpora (default ``../shared/data`` beside the repository).
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = Path(os.environ.get("VERSO_RUNS") or ROOT / "runs")
SHARED_DATA = Path(os.environ.get("VERSO_SHARED_DATA") or ROOT.parent / "shared" / "data")
os.environ.setdefault("VERSO_RUNS", str(RUNS))
