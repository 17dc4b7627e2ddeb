"""SQLite side of a TM: the truth (units, vocabulary, change journal).

Tables (one database ``tm.sqlite`` in WAL mode, created with sqlite-utils):

* ``units``: source/target text and tag tables, languages, ``enc`` /
  ``senc`` / ``penc`` (the source's core tokens, the same tokens as
  written, and its punctuation; one character per token through ``vocab``,
  so the re-rank compares stored strings without re-tokenising), metadata columns
  and ``meta`` (JSON: props, notes, tuid, ...), ``dkey`` (unique key of
  source + target + languages: an exact duplicate updates metadata).
* ``vocab``: core token -> integer id (append-only).
* ``journal``: one row per change of a unit since the search index last
  caught up (``seq`` orders them); pruned after each index commit.
* ``meta``: schema version, languages, index id.
"""
from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import sqlite_utils

from engine.errors import TMError
from engine.sqlguard import check_schema

SCHEMA_VERSION = 1
#: Query tokens absent from the vocabulary are encoded downwards from here.
_UNKNOWN_TOP = 0x10FFFF


def token_char(token_id: int) -> str:
    """Character encoding token id ``token_id`` (skips the surrogates)."""
    cp = 0x100 + token_id
    if cp >= 0xD800:
        cp += 0x800
    if cp > 0x10FFFF - 65536:
        raise TMError("TM vocabulary is full (over a million distinct tokens)")
    return chr(cp)


def encode_with(tokens, ids) -> str:
    """Tokens as one character each: a known token (``ids``: token -> id) as :func:`token_char`,
    an unknown one as a distinct character from the top of the range, which matches nothing stored."""
    unknown: dict[str, str] = {}
    out = []
    for t in tokens:
        i = ids.get(t)
        if i is not None:
            out.append(token_char(i))
        else:
            c = unknown.get(t)
            if c is None:
                c = unknown[t] = chr(_UNKNOWN_TOP - len(unknown))
            out.append(c)
    return "".join(out)


def dup_key(source: str, target: str, src_lang: str, tgt_lang: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in (src_lang, tgt_lang, source, target):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def connect(path: Path) -> sqlite3.Connection:
    """The TM database ``path``, once its schema is one Verso makes (:mod:`engine.sqlguard`:
    every open of a TM passes here, so a received TM's triggers and views never run)."""
    conn = None
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                               timeout=30.0)
        check_schema(conn, path, tm_schema, TMError)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
    except (sqlite3.DatabaseError, TMError) as e:
        if conn is not None:
            conn.close()
        if isinstance(e, TMError):
            raise
        raise TMError(f"{path}: not a readable TM database ({e})") from None
    return conn


def tm_schema(conn: sqlite3.Connection) -> None:
    """Every table and index Verso makes in a TM database (what :func:`connect` compares with)."""
    from engine.tm.seal import create_table

    create_schema(conn)
    create_table(conn)


def create_schema(conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(conn)
    if "meta" not in db.table_names():
        db["meta"].create({"key": str, "value": str}, pk="key")
    if "units" not in db.table_names():
        db["units"].create({
            "id": int, "source": str, "source_tags": str, "target": str, "target_tags": str,
            "src_lang": str, "tgt_lang": str, "enc": str, "senc": str, "penc": str, "origin": str,
            "created": str, "changed": str, "creator": str, "changer": str,
            "usage_count": int, "last_used": str, "meta": str, "dkey": str,
        }, pk="id", not_null={"source", "target", "enc", "dkey"})
        db["units"].create_index(["dkey"], unique=True)
    # Exact lookups of a source that has no words to search by (a segment of tags only).
    conn.execute("CREATE INDEX IF NOT EXISTS units_source ON units(source)")
    if "vocab" not in db.table_names():
        db.execute("CREATE TABLE vocab (token TEXT PRIMARY KEY, id INTEGER NOT NULL UNIQUE) "
                   "WITHOUT ROWID")
    if "journal" not in db.table_names():
        db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                   "uid INTEGER NOT NULL)")
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)",
                 (str(SCHEMA_VERSION),))


def get_meta(conn: sqlite3.Connection, key: str, default: str = "") -> str:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                 "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))


class VocabCache:
    """Token ids, looked up in SQLite and cached (bounded)."""

    def __init__(self, conn: sqlite3.Connection, limit: int = 200_000):
        self.conn = conn
        self.limit = limit
        self._ids: dict[str, int] = {}
        self._next: int | None = None

    def reset(self) -> None:
        self._ids.clear()
        self._next = None

    def lookup(self, tokens) -> dict[str, int]:
        """Ids of the known ``tokens`` (unknown ones are absent)."""
        out: dict[str, int] = {}
        missing = []
        for t in set(tokens):
            i = self._ids.get(t)
            if i is None:
                missing.append(t)
            else:
                out[t] = i
        for chunk in range(0, len(missing), 500):
            part = missing[chunk:chunk + 500]
            q = "SELECT token, id FROM vocab WHERE token IN (%s)" % ",".join("?" * len(part))
            for tok, i in self.conn.execute(q, part):
                out[tok] = i
                self._remember(tok, i)
        return out

    def _remember(self, tok: str, i: int) -> None:
        if len(self._ids) >= self.limit:
            self._ids.clear()
        self._ids[tok] = i

    def ids_for_write(self, tokens) -> dict[str, int]:
        """Ids of ``tokens``, adding unknown ones (inside the caller's transaction)."""
        known = self.lookup(tokens)
        new = [t for t in dict.fromkeys(tokens) if t not in known]
        if new:
            # read inside the caller's write transaction, never cached across them: another process
            # adding to the TM moves it (a cached next id made 31 of 2,416 adds fail on vocab.id);
            # max() of the unique id is one index look-up
            row = self.conn.execute("SELECT max(id) FROM vocab").fetchone()
            self._next = (row[0] + 1) if row and row[0] is not None else 0
            rows = []
            for t in new:
                known[t] = self._next
                rows.append((t, self._next))
                self._next += 1
            self.conn.executemany("INSERT INTO vocab(token, id) VALUES (?, ?)", rows)
            for t, i in rows:
                self._remember(t, i)
        return known

    def encode_known(self, tokens) -> str:
        """Query encoding: known tokens by id, unknown ones as distinct
        characters that match nothing stored."""
        return encode_with(tokens, self.lookup(tokens))
