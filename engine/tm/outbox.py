"""The outbox: TM writes waiting for a shared TM's server.

When a shared TM (PostgreSQL) cannot be reached, a confirmed pair is kept in
a small SQLite file in the project folder (``tm-outbox.sqlite``), in the
order it was confirmed, and sent when the server is back.  Each pair is
deleted from the outbox only after the TM accepted it; a pair sent twice (a
crash between the two) is an exact duplicate the TM merges, never a second
unit.  Nothing here talks to a server itself: :meth:`Outbox.send` uses the
TM handle it is given.

The outbox holds at most :data:`CAP` pairs per TM: a server that refuses the
user for days (a missing grant nobody fixes) must not grow it without end;
past the cap :meth:`Outbox.put` refuses (:class:`OutboxFull`): the confirmation
is in the project only, and the editor says so.  A TM is keyed by its URL without credentials
(:func:`engine.urls.strip_credentials`), so a password never reaches the file.
"""
from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from engine.errors import TMError
from engine.inline import TaggedText
from engine.sqlguard import check_schema
from engine.tm.model import TMOffline
from engine.urls import strip_credentials

FILE_NAME = "tm-outbox.sqlite"
#: Pairs kept per TM (about a week of one translator's confirmations).
CAP = 10_000


class OutboxFull(TMError):
    """A TM already has :data:`CAP` pairs waiting: this one was not kept."""


def _schema(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                 "tm TEXT NOT NULL, source TEXT NOT NULL, source_tags TEXT, target TEXT NOT NULL, "
                 "target_tags TEXT, src_lang TEXT, tgt_lang TEXT, origin TEXT, creator TEXT, "
                 "meta TEXT, queued TEXT)")
    conn.execute("CREATE INDEX IF NOT EXISTS outbox_tm ON outbox(tm, seq)")


class Outbox:
    """Pending TM adds, per TM (keyed by its URL without a password)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                    timeout=30.0)
        try:  # a received project's outbox runs no SQL of its own (engine.sqlguard)
            check_schema(self.conn, self.path, _schema, TMError)
        except TMError:
            self.conn.close()
            raise
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        _schema(self.conn)
        # Keys written with a password (masked or not) name the same TM as its stripped URL.
        for (key,) in self.conn.execute("SELECT DISTINCT tm FROM outbox").fetchall():
            if strip_credentials(key) != key:
                self.conn.execute("UPDATE outbox SET tm=? WHERE tm=?", (strip_credentials(key), key))

    @classmethod
    def of_project(cls, folder: str | Path) -> "Outbox":
        return cls(Path(folder) / FILE_NAME)

    def put(self, tm: str, source: TaggedText, target: TaggedText, *, src_lang: str = "",
            tgt_lang: str = "", origin: str = "human", creator: str = "", meta: dict | None = None) -> int:
        """Keep one add for ``tm`` (durable when this returns); its sequence number.
        :class:`OutboxFull` when ``tm`` already has :data:`CAP` pairs waiting."""
        tm = strip_credentials(tm)
        if self.full(tm):
            raise OutboxFull(f"{tm}: {CAP} confirmed segments already wait to be sent to this TM; this one "
                             "is kept in the project only")
        cur = self.conn.execute(
            "INSERT INTO outbox(tm, source, source_tags, target, target_tags, src_lang, tgt_lang, origin, "
            "creator, meta, queued) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (tm, source.text, source.tags_json(), target.text, target.tags_json(), src_lang, tgt_lang,
             origin, creator, json.dumps(meta or {}, ensure_ascii=False),
             datetime.now(timezone.utc).isoformat(timespec="seconds")))
        return int(cur.lastrowid)

    def pending(self, tm: str | None = None) -> int:
        if tm is None:
            return self.conn.execute("SELECT count(*) FROM outbox").fetchone()[0]
        return self.conn.execute("SELECT count(*) FROM outbox WHERE tm=?", (strip_credentials(tm),)).fetchone()[0]

    def full(self, tm: str) -> bool:
        """True when ``tm`` has :data:`CAP` pairs waiting: a further :meth:`put` keeps nothing."""
        return self.pending(tm) >= CAP

    def send(self, tm_key: str, tm) -> int:
        """Add every pending pair of ``tm_key`` to ``tm`` (oldest first); the
        number sent.  Stops with :class:`TMOffline` when the server goes away
        again (what was sent is out of the outbox, the rest stays)."""
        tm_key = strip_credentials(tm_key)
        sent = 0
        while True:
            rows = self.conn.execute(
                "SELECT seq, source, source_tags, target, target_tags, src_lang, tgt_lang, origin, creator, "
                "meta FROM outbox WHERE tm=? ORDER BY seq LIMIT 200", (tm_key,)).fetchall()
            if not rows:
                return sent
            for seq, s, st, t, tt, sl, tl, origin, creator, meta in rows:
                tm.add(TaggedText.from_parts(s, st), TaggedText.from_parts(t, tt), src_lang=sl or "",
                       tgt_lang=tl or "", origin=origin or "human", creator=creator or "",
                       meta=json.loads(meta or "{}"))
                self.conn.execute("DELETE FROM outbox WHERE seq=?", (seq,))
                sent += 1

    def drop(self, tm_key: str) -> int:
        """Forget the pending pairs of ``tm_key`` (e.g. the TM refuses them: read-only)."""
        return self.conn.execute("DELETE FROM outbox WHERE tm=?", (strip_credentials(tm_key),)).rowcount

    def close(self) -> None:
        self.conn.close()


__all__ = ["Outbox", "OutboxFull", "FILE_NAME", "CAP", "TMOffline"]
