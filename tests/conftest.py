"""Shared fixtures.  Tests that read ../shared/data skip cleanly when it is absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from datafiles import ROOT, SHARED_DATA, data_file  # noqa: F401  (re-exported for fixtures)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (or ``$VERSO_SHARED_DATA``); skips the test when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA
