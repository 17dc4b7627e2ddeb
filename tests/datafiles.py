"""Where the shared research data is, for tests that read a slice of it.

A module of its own (not ``conftest``) so that ``from datafiles import ...``
resolves the same way from every test folder.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("VERSO_SHARED_DATA", ROOT.parent / "shared" / "data"))


def data_file(*parts: str) -> Path:
    """A file under shared data, or skip the test with a clear message."""
    p = SHARED_DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data file not found: {p}")
    return p
