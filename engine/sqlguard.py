"""A SQLite database from someone else runs none of its own SQL.

A TM, a project or a glossary may be a file received from a stranger.  SQLite keeps
code in the file itself: a trigger runs on Verso's own inserts (one in a received
``tm.sqlite`` deleted 3,169 of 3,170 units during a 2-unit import that reported
``"added": 2``), a view answers in place of a table, a generated column or an index on
an expression computes on every read or write.  So before Verso reads a table, the
database's ``sqlite_master`` is compared with what Verso's own code creates -- run on
an empty in-memory database, so the check follows the schema wherever it changes:

* a trigger or a view is refused, always;
* a table, index or other object Verso does not create is refused;
* a table Verso creates must have exactly its columns (``exact``) or a subset of them
  (a store whose older versions lacked some: the migrations add them); a generated or
  hidden column is refused either way.

SQLite's internal tables (``sqlite_sequence``, ``sqlite_stat1``...) and automatic
indexes are the engine's own.  Every refusal is one line naming the file and the
object.  ``PRAGMA trusted_schema=OFF`` is set too, so a function with side effects is
never called from the schema even where a check were to miss it.
"""
from __future__ import annotations

import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Callable

#: name -> (type, table, columns: frozenset, or None for an index)
Schema = dict[str, tuple[str, str, frozenset | None]]


def _columns(conn: sqlite3.Connection, table: str) -> tuple[frozenset, list[str]]:
    """(column names, the names of generated or hidden columns) of ``table``."""
    rows = conn.execute("SELECT name, hidden FROM pragma_table_xinfo(?)", (table,)).fetchall()
    return frozenset(r[0] for r in rows), [r[0] for r in rows if r[1]]


def read_schema(conn: sqlite3.Connection) -> tuple[Schema, list[tuple[str, str]]]:
    """(the tables and indexes of ``conn``'s main database, (type, name) of what else it holds)."""
    objects: Schema = {}
    other = []
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM main.sqlite_master").fetchall()
    for kind, name, table, sql in rows:
        if kind == "table" and (sql or "").lstrip()[:14].upper() == "CREATE VIRTUAL":
            other.append(("virtual table", name))
        elif kind == "table":
            objects[name] = ("table", table, _columns(conn, name)[0])
        elif kind == "index":
            objects[name] = ("index", table, None)
        else:
            other.append((kind, name))
    return objects, other


@lru_cache(maxsize=None)
def expected_schema(create: Callable[[sqlite3.Connection], None]) -> Schema:
    """What ``create(conn)`` makes in an empty database: the schema Verso's code writes."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        create(conn)
        return read_schema(conn)[0]
    finally:
        conn.close()


def _internal(name: str) -> bool:
    return name.startswith("sqlite_")


def check_schema(conn: sqlite3.Connection, path: str | Path, create: Callable[[sqlite3.Connection], None],
                 error: type[Exception], *, exact: bool = True) -> None:
    """Raise ``error`` (one line: ``path`` and the object) unless every object of ``conn``'s
    database is one ``create`` makes (see the module's docstring)."""
    conn.execute("PRAGMA trusted_schema=OFF")
    try:
        objects, other = read_schema(conn)
    except sqlite3.DatabaseError as e:
        raise error(f"{path}: not a readable database ({e})") from None
    for kind, name in other:
        raise error(f"{path}: holds a {kind} {name!r}, which Verso never makes; a received database runs no "
                    "SQL of its own")
    want = expected_schema(create)
    for name, (kind, table, cols) in objects.items():
        if _internal(name):
            continue
        exp = want.get(name)
        if exp is None or exp[0] != kind or exp[1] != table:
            what = f"{kind} {name!r}" + (f" on {table!r}" if kind == "index" else "")
            raise error(f"{path}: holds a {what}, which Verso never makes there; refused")
        if kind != "table":
            continue
        hidden = _columns(conn, name)[1]
        if hidden:
            raise error(f"{path}: table {name!r} has a generated column {hidden[0]!r}, which Verso never makes")
        extra, missing = sorted(cols - exp[2]), sorted(exp[2] - cols)
        if extra or (exact and missing):
            col = extra[0] if extra else missing[0]
            why = "a column Verso never makes" if extra else "no column"
            raise error(f"{path}: table {name!r} has {why} {col!r}; not a database Verso made")


__all__ = ["check_schema", "expected_schema", "read_schema"]
