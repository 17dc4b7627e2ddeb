"""Shared fixtures.  Tests that read ../shared/data skip cleanly when it is absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("VERSO_SHARED_DATA", ROOT.parent / "shared" / "data"))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (or ``$VERSO_SHARED_DATA``); skips the test when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


def data_file(*parts: str) -> Path:
    """A file under shared data, or skip."""
    p = SHARED_DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data file not found: {p}")
    return p
