"""TM fixtures: a real PostgreSQL server for the session, and ``make_tm`` that
opens a TM of either backend so the same tests run against both."""
from __future__ import annotations

import itertools
import tempfile
import os

import pytest

from pgserver_helper import find_bin, start_server

_names = itertools.count()


@pytest.fixture(scope="session")
def pg_server():
    """(URL of a database on a real PostgreSQL server, the server object or None).
    Skipped only when there are no PostgreSQL binaries at all (and VERSO_REQUIRE_PG
    is unset); binaries that fail to start fail the test, saying why."""
    url, srv, why = start_server()
    if not url:
        if os.environ.get("VERSO_REQUIRE_PG") or find_bin() is not None:
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    yield url, srv
    if srv is not None:
        srv.cleanup()


@pytest.fixture
def pg_url(pg_server):
    """A URL of a fresh, empty TM on the server (``...?tm=tNNN``)."""
    return _tm_url(pg_server[0])


def _tm_url(base: str) -> str:
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}tm=t{os.getpid()}_{next(_names)}"


@pytest.fixture(params=["local", "pg"])
def backend(request):
    return request.param


@pytest.fixture
def make_tm(backend, tmp_path, request):
    """``make_tm(name="tm", **kw)`` opens (creating) TM ``name`` of the test's
    backend -- a folder under tmp_path, or a TM on the PostgreSQL server; the
    same name gives the same TM (a second handle, as another process would)."""
    from engine.tm import open_tm

    urls: dict[str, str] = {}
    opened = []
    if backend == "pg":
        base = request.getfixturevalue("pg_server")[0]

    def ref(name: str = "tm"):
        if backend == "local":
            return tmp_path / name
        if name not in urls:
            urls[name] = _tm_url(base)
        return urls[name]

    def make(name: str = "tm", **kw):
        t = open_tm(ref(name), **kw)
        opened.append(t)
        return t

    make.ref = ref
    make.backend = backend
    yield make
    for t in opened:
        try:
            t.close()
        except Exception:  # noqa: BLE001
            pass


# Shared TMs' local replicas (engine.tm.replica) in a folder of the test session's, never the user's cache.
os.environ.setdefault("VERSO_REPLICAS", tempfile.mkdtemp(prefix="verso-replicas-"))
