"""Many rows into one table, several rows a statement.

``executemany`` runs the INSERT once a row, and each run evaluates the ``segments`` table's CHECK
constraints from the start: a ``status IN ('new', 'draft', 'confirmed')`` builds its list of values
again for every row (SQLite 3.40, the 13,247 rows of 3 MB of JRC-Acquis HTML into a table in memory:
0.074 s, 0.038 s without the two CHECKs).  One ``INSERT ... VALUES (...), (...), ...`` of :data:`ROWS`
rows evaluates them once a statement (into a project: 0.110 -> 0.073 s CPU), and an existing
project's schema stays as it is.  The rows go in in order: they get the ids ``executemany`` gave them.
"""
from __future__ import annotations

from itertools import chain, islice
from typing import Iterable

#: Rows a statement: 16 values each stays under 999 parameters, the limit of SQLite before 3.32.
ROWS = 60


def insert_rows(conn, head: str, width: int, rows: Iterable[tuple]) -> None:
    """``head`` (``INSERT INTO t (a, b, ...)``) with ``rows`` of ``width`` values each, :data:`ROWS`
    a statement; ``rows`` is read as it goes (a generator is never held whole)."""
    one = "(" + ", ".join("?" * width) + ")"
    per = max(1, min(ROWS, 999 // width))
    full = f"{head} VALUES " + ", ".join([one] * per)
    it = iter(rows)
    while True:
        batch = list(islice(it, per))
        if not batch:
            return
        sql = full if len(batch) == per else f"{head} VALUES " + ", ".join([one] * len(batch))
        conn.execute(sql, list(chain.from_iterable(batch)))
