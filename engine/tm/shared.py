"""``SharedTM``: a shared TM on PostgreSQL, searched in a local replica.

PostgreSQL stays the truth: writes, roles, ``entries()`` (training data,
export), ``stats()`` and ``len()`` go to the server, as in
:class:`engine.tm.pg.PgTranslationMemory`, which this class is.  ``search`` and
``concordance`` go to the local replica (:mod:`engine.tm.replica`) once its
first sync has finished -- a local search, never a network round trip -- and
to the server until then.

A feed thread per handle keeps the replica current: it ``LISTEN``s on the TM's
channel (:mod:`engine.tm.feed`), catches up on each notification (and every
:data:`POLL_S` seconds in case one was lost), and after a lost connection
reconnects every :data:`RETRY_S` seconds and catches up from its cursor.  A
write through this handle catches the replica up before it returns, so the
writer's very next search finds its own unit.  With a ready replica a handle
opens while the server is down (offline work): searches answer from the
replica, writes raise :class:`TMOffline` (the outbox keeps them), and the
feed catches up when the server is back.

``$VERSO_REPLICA``: ``off`` -- no replica, every search on the server;
``wait`` -- the first sync runs in :func:`SharedTM.__init__` (a batch job that
will search a lot); else (default) in the feed thread, with ``progress``.
"""
from __future__ import annotations

import contextlib
import os
import threading
import time

import psycopg
from psycopg import errors as pgerrors
from psycopg import sql

from engine.tm import feed
from engine.tm.model import TMOffline, TMRefused
from engine.tm.pg import _NET_DEFAULTS, PgTranslationMemory, redact
from engine.tm.pg_search import _newest_first
from engine.tm.replica import Replica, ReplicaStale, SyncCancelled, open_replica, replica_folder

#: Seconds between catch-ups when no notification came (a safety net; a notification wakes it at once).
POLL_S = 10.0
#: Matches asked of the replica beyond k, so that the k-th's ties can be ordered newest first.
TIES = 8
#: Seconds the feed thread waits for a notification before it looks whether it is to stop.
WAKE_S = 0.25
#: Seconds between reconnection attempts while the server cannot be reached.
RETRY_S = 2.0


class SharedTM(PgTranslationMemory):
    """A :class:`PgTranslationMemory` whose searches read a local replica (see the module)."""

    def __init__(self, url: str, *, create: bool | str = True, src_lang: str = "", tgt_lang: str = "",
                 progress=None, replica_dir=None, mode: str | None = None):
        self.replica: Replica | None = None
        self.feed_error = ""  # why the replica is not used ("" when it is, or will be)
        self.syncing: tuple[int, int] | None = None  # (units copied, units) during the first sync
        self._progress = progress
        self._stop = threading.Event()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._offline_open = False
        self._online = False  # the feed thread holds a working connection
        self._known: dict = {}  # what an opening without the server needs: languages, may this role write
        mode = mode or os.environ.get("VERSO_REPLICA", "")
        try:
            super().__init__(url, create=create, src_lang=src_lang, tgt_lang=tgt_lang)
        except TMOffline as e:
            if isinstance(e, TMRefused) or mode == "off":
                raise
            self._open_offline(replica_dir, e)
            return
        if mode == "off" or self._pending is not None:
            self.feed_error = "replica off" if mode == "off" else "the TM is made by its first import"
            return
        if not feed.has_feed(self._c(), self.schema):
            self.feed_error = ("the TM has no change feed yet (its owner's Verso adds it on opening it): "
                               "searches go to the server")
            return
        self.replica = open_replica(replica_dir or replica_folder(self.folder, self.schema), self.schema)
        self._known = {"src_lang": self.src_lang, "tgt_lang": self.tgt_lang, "writable": int(bool(self.writable))}
        if mode == "wait":
            try:
                self._sync_now(self._c())
            except BaseException:
                self.close()
                raise
        elif self.replica.ready:
            with contextlib.suppress(psycopg.Error, TMOffline, ReplicaStale):  # a stale replica still answers
                self._sync_now(self._c())
        if self.replica.ready or self.replica.phase:  # synced, or a first sync to go on with
            self._start()
        # else the first search starts the first sync: a handle only written to or read whole
        # (an import, training data, an export) never copies the TM

    # ------------------------------------------------------------ offline opening
    def _open_offline(self, replica_dir, error: TMOffline) -> None:
        folder = replica_dir or replica_folder(self.folder, self.schema)
        if not (folder / "tm.sqlite").exists():
            raise error
        replica = open_replica(folder, self.schema)
        if not replica.ready:
            replica.close()
            raise error
        self.replica, self.conn, self._offline_open = replica, None, True
        self._vocab, self._cache, self.last_search, self._pairs, self._pending = {}, {}, {}, None, None
        self._intarray = False
        self._meta = {k: replica.get(k) for k in ("src_lang", "tgt_lang")}
        self.writable = replica.get("writable") == "1"
        self._start()

    def _connect(self) -> None:
        super()._connect()
        if self._offline_open:  # opened from the replica alone: the server is back
            self._offline_open = False
            self._meta = None
            self._prepared("", "")

    # ------------------------------------------------------------ the feed
    def _instance(self, conn) -> str:
        row = conn.execute(feed.instance_query(self.schema), (feed.INSTANCE_KEY,)).fetchone()
        return row[0] if row else ""

    def _sync_now(self, conn) -> int:
        def told(done: int, total: int) -> None:
            self.syncing = (done, total)
            if self._progress:
                self._progress(done, total)
        try:
            n = self.replica.sync(conn, self._instance(conn), told, self._cancel)
        finally:
            self.syncing = None
        if self._known:  # read on the caller's thread (this may be the feed's)
            self.replica._commit_state(**self._known)
        return n

    def sync(self) -> int:
        """Bring the replica up to date now, in this thread (the first sync too); the changes taken in."""
        if self.replica is None:
            return 0
        return self._sync_now(self._c())

    def cancel_sync(self) -> None:
        """Stop a first sync under way (what was copied stays; the next opening goes on from there)."""
        self._cancel.set()

    def _start(self) -> None:
        if self._thread is not None or self._stop.is_set():
            return
        self._thread = threading.Thread(target=self._run, name=f"verso-feed-{self.name}", daemon=True)
        self._thread.start()

    def _listen_conn(self) -> psycopg.Connection:
        given = psycopg.conninfo.conninfo_to_dict(self.conninfo)
        extra = {k: v for k, v in _NET_DEFAULTS.items() if k not in given}
        extra.setdefault("connect_timeout", self._timeout)
        extra["application_name"] = "verso-feed"
        return psycopg.connect(self.conninfo, autocommit=True, **extra)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with self._listen_conn() as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(feed.channel(self.schema))))
                    self._sync_now(conn)  # after LISTEN: nothing committed since can be missed
                    self.feed_error, self._online = "", True
                    last = time.monotonic()
                    while not self._stop.is_set():
                        woke = any(True for _ in conn.notifies(timeout=WAKE_S, stop_after=1))
                        if woke or time.monotonic() - last >= POLL_S:
                            try:
                                self.replica.catch_up(conn)
                            except ReplicaStale:  # emptied or made again: copy it anew
                                self._sync_now(conn)
                            last = time.monotonic()
            except SyncCancelled as e:
                self.feed_error = str(e)
                return
            except ReplicaStale:
                pass  # made again while reading: the next round copies it anew
            except pgerrors.InsufficientPrivilege as e:
                self.feed_error = f"the replica cannot read the change feed ({e}): searches go to the server"
                return
            except (psycopg.Error, OSError) as e:
                self._online = False
                self.feed_error = f"{redact(self.url)}: the server cannot be reached ({str(e).strip()[:200]})"
            except Exception as e:  # noqa: BLE001 - a replica that cannot be kept current is not searched
                self._online = False
                self.feed_error = (f"the replica stopped ({type(e).__name__}: {str(e).strip()[:200]}): "
                                   "searches go to the server")
                return
            self._stop.wait(RETRY_S)

    @property
    def online(self) -> bool:
        """The feed is connected to the server (False while it cannot be reached: the replica
        answers searches meanwhile, as fresh as the last change it took in)."""
        return self._online

    # ------------------------------------------------------------ searching
    def _local(self) -> bool:
        if self.replica is not None and self._thread is None:
            self._start()  # the first search of a TM this computer never synced: copy it meanwhile
        return self.replica is not None and self.replica.ready and not self.feed_error.startswith("the replica")

    def search(self, query, k: int = 5, min_score: float = 0.0, coverage: bool = False,
               src_lang: str | None = None, tgt_lang: str | None = None):
        if not self._local():
            return super().search(query, k=k, min_score=min_score, coverage=coverage,
                                  src_lang=src_lang, tgt_lang=tgt_lang)
        pair = self.search_pair(src_lang, tgt_lang)
        with self.replica.lock:
            # a few more than k: the k-th's ties (see below)
            out = self.replica.tm.search(query, k=k if coverage else k + TIES, min_score=min_score,
                                         coverage=coverage, src_lang=pair[0], tgt_lang=pair[1])
            self.last_search = self.replica.tm.last_search
        if coverage or len(out) < 2:
            return out
        # as the server orders them: two translations of one source with one score, newest first
        out = [m for i, m in enumerate(out) if i < k or m.score == out[k - 1].score]
        by_id = {m.entry.id: m for m in out}
        order = _newest_first([(m.score, m.entry.id) for m in out], {u: m.entry for u, m in by_id.items()})
        return [by_id[u] for _, u in order][:k]

    def concordance(self, phrase: str, side: str = "source", limit: int = 50, max_checked: int = 20_000,
                    src_lang: str | None = None, tgt_lang: str | None = None):
        if not self._local():
            return super().concordance(phrase, side=side, limit=limit, max_checked=max_checked,
                                       src_lang=src_lang, tgt_lang=tgt_lang)
        pair = self.search_pair(src_lang, tgt_lang)
        with self.replica.lock:
            return self.replica.tm.concordance(phrase, side=side, limit=limit, max_checked=max_checked,
                                               src_lang=pair[0], tgt_lang=pair[1])

    # ------------------------------------------------------------ writing: the server, then the replica
    def _pull(self) -> None:
        """Catch the replica up after a write of ours (the feed thread would, a moment later)."""
        if self.replica is not None and self.replica.has_cursor:
            with contextlib.suppress(psycopg.Error, TMOffline, ReplicaStale):  # the feed thread sees to it
                self.replica.catch_up(self._c())

    def add(self, *a, **kw):
        uid = super().add(*a, **kw)
        self._pull()
        return uid

    def update(self, *a, **kw):
        uid = super().update(*a, **kw)
        self._pull()
        return uid

    def delete(self, uid: int) -> bool:
        done = super().delete(uid)
        self._pull()
        return done

    def import_units(self, *a, **kw):
        res = super().import_units(*a, **kw)
        self._pull()
        return res

    def stats(self) -> dict:
        out = super().stats()
        r = self.replica
        out["replica"] = {"folder": str(r.folder) if r else "", "ready": bool(r and r.ready),
                          "syncing": self.syncing, "why_not": self.feed_error}
        return out

    def close(self) -> None:
        self._stop.set()
        self._cancel.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(30)
        self._thread = None
        if self.replica is not None:
            self.replica.close()
            self.replica = None
        super().close()


def wait_until(pred, timeout: float, step: float = 0.01) -> bool:
    """True once ``pred()`` holds, False after ``timeout`` seconds (tests, benchmarks)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return bool(pred())


__all__ = ["SharedTM", "POLL_S", "RETRY_S", "wait_until"]
