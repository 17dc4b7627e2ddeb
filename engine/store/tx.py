"""A project's transactions: ``BEGIN IMMEDIATE`` ... ``COMMIT``, savepoints when nested, under the
project's lock."""
from __future__ import annotations


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or a savepoint when nested."""

    def __init__(self, project):   # an engine.store.project.Project
        self.p = project
        self.name: str | None = None

    def __enter__(self):
        self.p._lock.acquire()
        conn = self.p._conn
        if conn.in_transaction:
            self.name = f"sp{id(self)}"
            conn.execute(f"SAVEPOINT {self.name}")
        else:
            conn.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, exc_type, exc, tb):
        conn = self.p._conn
        try:
            if self.name:
                if exc_type is not None:
                    conn.execute(f"ROLLBACK TO SAVEPOINT {self.name}")
                conn.execute(f"RELEASE SAVEPOINT {self.name}")
            elif exc_type is not None:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            else:
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:   # a COMMIT refused (the disk full, busy) leaves it open:
                        conn.execute("ROLLBACK")   # never to be committed by the next transaction
                    raise
        finally:
            self.p._lock.release()
        return False
