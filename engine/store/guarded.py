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

    def execute(self, *args) -> "GuardedCursor":
        with self._guard:
            return GuardedCursor(self._guard, self._raw.execute(*args))

    def executemany(self, *args) -> "GuardedCursor":
        with self._guard:
            return GuardedCursor(self._guard, self._raw.executemany(*args))

    def close(self) -> None:
        with self._guard:
            self._raw.close()

    def __getattr__(self, name: str):
        return getattr(self._raw, name)


class GuardedCursor:
    """A cursor whose fetches take the connection's lock too: a SELECT's next row is another
    ``sqlite3_step`` on the connection, so an unguarded ``fetchone()`` could still meet
    ``close()`` half way (a job reading settings while the window closed: one segfault in a CI
    run).  Iteration takes the lock once per :data:`ROWS_PER_LOCK` rows."""

    ROWS_PER_LOCK = 256
    __slots__ = ("_guard", "_raw")

    def __init__(self, guard: threading.Lock, cursor: sqlite3.Cursor):
        self._guard, self._raw = guard, cursor

    def fetchone(self):
        with self._guard:
            return self._raw.fetchone()

    def fetchall(self) -> list:
        with self._guard:
            return self._raw.fetchall()

    def fetchmany(self, size: int = 1) -> list:
        with self._guard:
            return self._raw.fetchmany(size)

    def __iter__(self):
        while True:
            with self._guard:
                rows = self._raw.fetchmany(self.ROWS_PER_LOCK)
            if not rows:
                return
            yield from rows

    def __next__(self):
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def __getattr__(self, name: str):
        return getattr(self._raw, name)   # lastrowid, rowcount, description
