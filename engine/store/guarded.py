"""The project's sqlite connection, shared by the UI thread and background jobs, guarded
against being closed under a call in flight.

``check_same_thread=False`` lets jobs read the project while the editor uses it; sqlite itself
serialises their statements, but Python's ``sqlite3`` does not serialise ``close()`` with a
statement another thread is running: a job still reading a project the editor just closed
segfaulted the process (tests/store/test_project.py holds it).  Each call here and ``close()``
take one short lock, so a read either finishes first or is refused with the usual
``ProgrammingError`` ("Cannot operate on a closed database").  Statements were already
serialised by sqlite's own connection mutex, so the lock adds no waiting between jobs.
"""
from __future__ import annotations

import sqlite3
import threading


class GuardedConnection:
    """``execute``/``executemany``/``close`` of a :class:`sqlite3.Connection` under one lock;
    everything else (``in_transaction``, ``total_changes``, ...) passes through."""

    def __init__(self, conn: sqlite3.Connection):
        self._raw = conn
        self._guard = threading.Lock()

    def execute(self, *args) -> sqlite3.Cursor:
        with self._guard:
            return self._raw.execute(*args)

    def executemany(self, *args) -> sqlite3.Cursor:
        with self._guard:
            return self._raw.executemany(*args)

    def close(self) -> None:
        with self._guard:
            self._raw.close()

    def __getattr__(self, name: str):
        return getattr(self._raw, name)
