"""A client's local replica of a shared TM: the local SQLite + Whoosh TM
(:class:`engine.tm.memory.TranslationMemory`) in a cache folder, kept equal to
the server's units by the change feed (:mod:`engine.tm.feed`).

A replica unit has the server unit's id, texts, languages, metadata (author,
dates) and encodings: the local vocabulary is a copy of the server's (token ids
are the server's, so ``enc`` is copied, never re-tokenised).  Replica state
lives in the local TM's own ``meta`` table, written in the same SQLite
transaction as the units it describes, so a kill at any point leaves a replica
that resumes where its last committed batch ended:

* ``replica.instance``: the server TM's instance id (another id: the TM was
  made again; the replica starts over);
* ``replica.phase``: ``bulk`` (first sync copying), ``catchup`` (copied; the
  changes made meanwhile to be read), ``ready`` (searched);
* ``replica.bulk_from``: the snapshot S0 taken when the first sync began;
  ``replica.bulk_last``: the last unit id copied (units are copied by id);
* ``replica.cursor``: the snapshot up to which the replica holds every change.

First sync: S0 := the server's snapshot; copy units by id in batches (with
the vocabulary they use); the search index is then built anew (in the
background for a large TM: searches scan the local SQLite meanwhile); then
cursor := S0 and a catch-up reads everything that changed since S0 (a unit changed or deleted during the copy is read again, in its
latest state); then the replica is ``ready``.  The replica is a cache: deleting its folder loses nothing.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

import psycopg
from psycopg import sql

from engine.errors import TMError
from engine.tm import feed, store
from engine.tm.memory import TranslationMemory

#: Units copied per batch of the first sync (one server round trip and one SQLite transaction each).
BULK_BATCH = 5000
_INSERT = ("INSERT OR REPLACE INTO units(id, source, source_tags, target, target_tags, src_lang, tgt_lang, enc, "
           "senc, penc, origin, created, changed, creator, changer, usage_count, last_used, meta, dkey) "
           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")


class SyncCancelled(TMError):
    """The first sync was cancelled (what was copied stays; the next sync goes on from there)."""


class ReplicaStale(TMError):
    """The server's TM was made again or truncated (a new instance id): the replica must start over."""


def replica_home() -> Path:
    """``$VERSO_REPLICAS``, else ``$XDG_CACHE_HOME/verso/replicas``, else ``~/.cache/verso/replicas``."""
    env = os.environ.get("VERSO_REPLICAS")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "verso" / "replicas"


def replica_folder(redacted_url: str, schema: str) -> Path:
    """The cache folder of one shared TM (named by its URL without credentials)."""
    h = hashlib.blake2b(f"{redacted_url}\x00{schema}".encode(), digest_size=10).hexdigest()
    return replica_home() / f"{schema[len('verso_tm_'):]}-{h}"


def _token_id(ch: str) -> int:
    """The inverse of :func:`engine.tm.store.token_char`."""
    cp = ord(ch)
    return cp - 0x100 - (0x800 if cp >= 0xE000 else 0)


def _py_token(t: str) -> str:
    from engine.tm.pg_search import _py_token as conv
    return conv(t)


_OPEN: dict[Path, "Replica"] = {}
_OPEN_LOCK = threading.Lock()


def open_replica(folder: Path, schema: str) -> "Replica":
    """The process's one :class:`Replica` of ``folder`` (handles share it: two local TMs
    creating one folder's index at once would collide); :meth:`Replica.close` once per call."""
    folder = Path(folder).resolve()
    with _OPEN_LOCK:
        r = _OPEN.get(folder)
        if r is None:  # (removed by the last close)
            r = _OPEN[folder] = Replica(folder, schema)
        r.users += 1
        return r


class Replica:
    """The local replica in ``folder`` of the shared TM in ``schema`` (see the module)."""

    def __init__(self, folder: Path, schema: str):
        self.folder = Path(folder)
        self.schema = schema
        self.lock = threading.RLock()  # the local TM is used by the feed thread and the caller's
        self._syncing = threading.Lock()  # one sync at a time (handles of one process share a replica)
        self.users = 0
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        self.tm = self._open_tm()
        self._units, self._tombs = feed.delta_queries(schema)
        self.phase = self.get("phase")
        #: when (time.time()) the replica was last known equal to the server: its last catch-up
        #: (kept in the TM with each change taken in, so an offline opening can say how fresh it is)
        self.current_at: float | None = float(self.get("current_at") or 0) or None

    def _open_tm(self) -> TranslationMemory:
        with open(self.folder.parent / f".{self.folder.name}.lock", "a+") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)  # another process (re)building this replica's index at once
            return TranslationMemory(self.folder)

    # ------------------------------------------------------------ state
    def get(self, key: str) -> str:
        return store.get_meta(self.tm.conn, f"replica.{key}")

    def _set(self, **kw: str) -> None:
        """State keys, inside the caller's transaction."""
        for k, v in kw.items():
            store.set_meta(self.tm.conn, f"replica.{k}", str(v))

    def _commit_state(self, **kw: str) -> None:
        with self.lock:
            self.tm._begin()
            self._set(**kw)
            self.tm.conn.execute("COMMIT")
            self.phase = kw.get("phase", self.phase)

    @property
    def ready(self) -> bool:
        """The first sync has finished: searches may read the replica."""
        return self.phase == "ready"

    @property
    def has_cursor(self) -> bool:
        return self.phase in ("catchup", "ready")

    def close(self) -> None:
        with _OPEN_LOCK:
            self.users -= 1
            if self.users > 0:
                return
            if _OPEN.get(self.folder.resolve()) is self:
                del _OPEN[self.folder.resolve()]
        with self.lock:
            self.tm.close()

    # ------------------------------------------------------------ sync
    def sync(self, conn: psycopg.Connection, instance: str, progress: Callable[[int, int], None] | None = None,
             cancel: threading.Event | None = None) -> int:
        """Bring the replica up to date over ``conn`` (autocommit): the first
        sync where none finished, then a catch-up; the units it took in.
        :class:`SyncCancelled` when ``cancel`` is set during the first sync."""
        with self._syncing:
            with self.lock:
                stale = self.get("instance") != instance
            if stale:
                self._reset(instance)
            n = 0
            if not self.has_cursor:
                n += self._bulk(conn, progress, cancel)
            n += self.catch_up(conn)
            if not self.ready:
                self._commit_state(phase="ready")
            return n

    def _reset(self, instance: str) -> None:
        """Start over (a new replica, or the server's TM was made again)."""
        with self.lock:
            conn = self.tm.conn
            self.tm._begin()
            try:
                for table in ("units", "vocab", "journal"):
                    conn.execute(f"DELETE FROM {table}")
                conn.execute("DELETE FROM meta WHERE key LIKE 'replica.%'")
                self._set(instance=instance, phase="bulk")
                conn.execute("COMMIT")
                self.phase = "bulk"
            except BaseException:
                self.tm._rollback()
                raise
            self.tm.vocab.reset()
            self.tm._pairs = None
            self.tm.wait_for_index()
            self.tm.rebuild_index("the replica starts over")  # an empty index, no unit of before

    def _bulk(self, conn: psycopg.Connection, progress, cancel) -> int:
        s = sql.Identifier(self.schema)
        if not self.get("bulk_from"):
            snap = conn.execute("SELECT pg_current_snapshot()::text").fetchone()[0]
            self._commit_state(bulk_from=snap, bulk_last="0")
        last = int(self.get("bulk_last") or 0)
        total = conn.execute(sql.SQL("SELECT count(*) FROM {s}.units").format(s=s)).fetchone()[0]
        done = self.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0]
        if progress:
            progress(done, total)
        q = sql.SQL(f"SELECT {feed.UNIT_COLS} FROM {{s}}.units WHERE id > %s ORDER BY id LIMIT %s").format(s=s)
        while True:
            if cancel is not None and cancel.is_set():
                raise SyncCancelled(f"the first sync of {self.folder.name} was cancelled at {done:,} of "
                                    f"{total:,} units (it goes on from there next time)")
            rows = conn.execute(q, (last, BULK_BATCH)).fetchall()
            if not rows:
                break
            vocab = self._missing_vocab(conn, rows)
            with self.lock:
                self.tm._begin()
                try:
                    self._put_vocab(vocab)
                    self.tm.conn.executemany(_INSERT, rows)  # not journalled: the index is built anew at the end
                    last = rows[-1][0]
                    self._set(bulk_last=last)
                    self.tm.conn.execute("COMMIT")
                except BaseException:
                    self.tm._rollback()
                    raise
            done += len(rows)
            if progress:
                progress(done, max(total, done))
        with self.lock:
            # The copied units are in no index: forget the index, and the local TM builds a new one
            # on opening -- in the background from BACKGROUND_MIN units on (searches scan SQLite
            # meanwhile, locally), so the replica is searchable once copied.
            self.tm._begin()
            self.tm.conn.execute("DELETE FROM meta WHERE key = 'index_id'")
            self._set(phase="catchup", cursor=self.get("bulk_from"))
            self.tm.conn.execute("COMMIT")
            self.phase = "catchup"
            self.tm.close()
            self.tm = self._open_tm()
        return done

    def _missing_vocab(self, conn: psycopg.Connection, rows: Iterable[tuple]) -> list[tuple[str, int]]:
        """The server's (token, id) of every token id the ``rows`` use that this replica lacks."""
        ids = set()
        for r in rows:
            for enc in r[7:10]:
                ids.update(map(_token_id, enc or ""))
        have = set()
        local = list(ids)
        for i in range(0, len(local), 500):
            part = local[i:i + 500]
            have.update(x for (x,) in self.tm.conn.execute(
                "SELECT id FROM vocab WHERE id IN (%s)" % ",".join("?" * len(part)), part))
        missing = sorted(ids - have)
        if not missing:
            return []
        q = sql.SQL("SELECT token, id FROM {s}.vocab WHERE id = ANY(%s)").format(s=sql.Identifier(self.schema))
        return [(_py_token(t), i) for t, i in conn.execute(q, (missing,))]

    def _put_vocab(self, vocab: list[tuple[str, int]]) -> None:
        if vocab:
            self.tm.conn.executemany("INSERT OR REPLACE INTO vocab(token, id) VALUES (?, ?)", vocab)

    def catch_up(self, conn: psycopg.Connection) -> int:
        """Take in every change after the cursor; the units and tombstones applied.
        When another thread moved the cursor meanwhile (its read may predate a
        commit this caller knows of), read again from the new cursor."""
        while True:
            with self.lock:
                cursor, instance = self.get("cursor"), self.get("instance")
            if not cursor:
                raise TMError(f"{self.folder}: the replica has no cursor (first sync not finished)")
            n = self._catch_up_from(conn, cursor, instance)
            if n is not None:
                return n

    def _catch_up_from(self, conn: psycopg.Connection, cursor: str, instance: str) -> int | None:
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            snap = conn.execute("SELECT pg_current_snapshot()::text").fetchone()[0]
            row = conn.execute(feed.instance_query(self.schema), (feed.INSTANCE_KEY,)).fetchone()
            if (row[0] if row else "") != instance:
                raise ReplicaStale(f"{self.folder}: the shared TM was made again or emptied")
            units = conn.execute(self._units, {"snap": cursor}).fetchall()
            tombs = conn.execute(self._tombs, {"snap": cursor}).fetchall()
        if snap == cursor:
            self.current_at = time.time()
            return 0
        vocab = self._missing_vocab(conn, units) if units else []
        alive = {r[0] for r in units}
        with self.lock:
            if self.get("cursor") != cursor:  # another thread applied a delta meanwhile
                return None
            c = self.tm.conn
            self.tm._begin()
            try:
                self._put_vocab(vocab)
                gone = [(uid,) for uid, _ in tombs if uid not in alive]
                c.executemany("DELETE FROM units WHERE id = ?", gone)
                for r in units:  # the server's dkey is unique: a local holder of it under another id is stale
                    for (old,) in c.execute("SELECT id FROM units WHERE dkey = ? AND id <> ?", (r[-2], r[0])):
                        gone.append((old,))
                        c.execute("DELETE FROM units WHERE id = ?", (old,))
                    c.execute(_INSERT, r[:-1])
                c.executemany("INSERT INTO journal(uid) VALUES (?)", gone + [(r[0],) for r in units])
                now = time.time()
                self._set(cursor=snap, current_at=now)
                c.execute("COMMIT")
                self.current_at = now
            except BaseException:
                self.tm._rollback()
                raise
            if units:
                self.tm._pairs = None
            self.tm._catch_up()
        return len(units) + len(tombs)


__all__ = ["Replica", "open_replica", "SyncCancelled", "ReplicaStale", "replica_folder", "replica_home", "BULK_BATCH"]
