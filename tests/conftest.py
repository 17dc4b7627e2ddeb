"""Shared fixtures.  Tests that read ../shared/data skip cleanly when it is absent."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from datafiles import ROOT, SHARED_DATA, data_file  # noqa: F401  (re-exported for fixtures)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The installation key that seals TM indexes (engine.tm.seal): the tests' own, never the user's.
os.environ.setdefault("VERSO_INDEX_KEY", str(Path(tempfile.mkdtemp(prefix="verso-key-")) / "index.key"))
# The folders outside a project its user confirmed (engine.store.trusted): the tests' own record.
os.environ.setdefault("VERSO_TRUST_FILE", str(Path(tempfile.mkdtemp(prefix="verso-trust-")) / "trusted.json"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (or ``$VERSO_SHARED_DATA``); skips the test when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA
