"""The tests' own PostgreSQL server starts wherever the clone lives, and says why when it does not."""
from __future__ import annotations

import os
import shutil
import stat

import psycopg
import pytest

from pgserver_helper import find_bin, start_server


def _private_copy(tmp_path):
    """The binaries as a clone's virtualenv holds them, inside a 0700 folder (``mktemp -d``)."""
    bindir = find_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL binaries")
    root = bindir.parent
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    site = private / "v" / ".venv" / "site-packages"
    shutil.copytree(root, site / root.parent.name / root.name, symlinks=True)
    libs = root.parent.parent / f"{root.parent.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, site / libs.name, symlinks=True)
    os.chmod(private, 0o700)
    return site / root.parent.name / root.name / "bin"


def test_the_server_starts_from_binaries_inside_a_private_folder(tmp_path):
    bindir = _private_copy(tmp_path)
    assert stat.S_IMODE(os.stat(tmp_path / "private").st_mode) == 0o700
    url, srv, why = start_server(use_env=False, bindir=bindir)
    try:
        assert url, why
        with psycopg.connect(url, connect_timeout=5) as c:
            assert c.execute("SELECT 1").fetchone() == (1,)
    finally:
        if srv is not None:
            srv.cleanup()


def test_a_server_that_fails_to_start_says_why(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name in ("initdb", "pg_ctl"):
        (bindir / name).write_text("#!/bin/sh\necho 'could not create directory: disk full' >&2\nexit 1\n")
        os.chmod(bindir / name, 0o755)
    os.chmod(tmp_path, 0o755)
    url, srv, why = start_server(use_env=False, bindir=bindir)
    assert (url, srv) == ("", None)
    assert "PostgreSQL did not start" in why and "disk full" in why
