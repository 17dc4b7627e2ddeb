"""``PgTranslationMemory``: a TM in a PostgreSQL database, shared by a team.

Named by a URL ``postgresql://host:port/dbname?tm=NAME`` (libpq conventions:
user, ``sslmode``/``sslrootcert``... in the URL's query or from the
environment, ``~/.pgpass`` and ``pg_service.conf``; the ``tm`` parameter is
Verso's and is removed before connecting).  A password typed in the URL is used
for the connection but never stored, logged or shown: messages and ``stats``
name the TM by :func:`redact` (:func:`engine.urls.strip_credentials`).  A role
the server refuses (a wrong password, a missing grant) gets :class:`TMRefused`
naming the grant to ask for, not "cannot be reached".  Each TM is one PostgreSQL
*schema* ``verso_tm_<name>`` -- so read-only and read-write access per TM are
plain ``GRANT``s on a schema (see docs/team-tm.md) -- holding:

* ``units``: the same columns as the local TM's SQLite table, plus ``n``
  (core-token count), ``lp`` (language-pair term ``src|tgt``), ``src_terms``
  (occurrence terms of the source's core tokens, GIN-indexed) and
  ``tgt_terms`` (distinct core terms of the target, GIN-indexed);
  ``UNIQUE(dkey)``: an exact duplicate updates metadata, also between two
  writers at once.
* ``vocab``: core token -> id (ids from a sequence; concurrent writers insert
  with ``ON CONFLICT DO NOTHING`` and read back), so ``enc`` means the same
  for every client.
* ``pairs``: the language pairs present; ``meta``: schema, languages, created.

This module: naming, connecting, the schema, transactions, whole-TM reads.
Its mixins: :mod:`engine.tm.pg_access` (refusals named with the grant to ask
for), :mod:`engine.tm.pg_write` (writes), :mod:`engine.tm.pg_search` (searching
on the server).  A URL opened by :func:`engine.tm.open_tm` is a
:class:`engine.tm.shared.SharedTM`, which searches a local replica kept current
by the change feed (:mod:`engine.tm.feed`) instead.  Every statement is
parameterised; the only identifier composed into SQL is the schema name,
checked against ``[a-z0-9_]`` and quoted by :mod:`psycopg.sql`.
"""
from __future__ import annotations

import contextlib
import re
from typing import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
import psycopg.conninfo
from psycopg import errors as pgerrors
from psycopg import sql

from engine.errors import TMError
from engine.formats.base import TMUnit
from engine.langs import normalize_lang
from engine.tm import feed
from engine.tm.memory import (
    _COLS,
    TranslationMemory,
    _any_lang,
    _chunks,
    _entry,
    _export_meta,
    _now,
)
from engine.tm.model import TMEntry, TMOffline, TMRefused
from engine.tm import pg_review
from engine.tm.pg_access import PgAccess, _offline
from engine.tm.pg_review import PgReview
from engine.tm.pg_search import PgSearch, RowsLeaf
from engine.tm.pg_write import PgWrite
from engine.urls import strip_credentials

SCHEMA_VERSION = 1
_NAME = re.compile(r"^[a-z0-9_]{1,40}$")
_UNKNOWN_TOP = 0x10FFFF

_DDL = [
    "CREATE TABLE IF NOT EXISTS {s}.meta (key text PRIMARY KEY, value text NOT NULL)",
    "CREATE SEQUENCE IF NOT EXISTS {s}.vocab_id MINVALUE 0 START 0",
    "CREATE TABLE IF NOT EXISTS {s}.vocab (token text PRIMARY KEY, id integer NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS {s}.pairs (lp text PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS {s}.units (id bigserial PRIMARY KEY, source text NOT NULL, "
    "source_tags text, target text NOT NULL, target_tags text, src_lang text, tgt_lang text, "
    "lp text NOT NULL, enc text NOT NULL, senc text, penc text, n integer NOT NULL, "
    "src_terms text[] NOT NULL, tgt_terms text[] NOT NULL, src_h integer[] NOT NULL, origin text, "
    "created text, changed text, "
    "creator text, changer text, usage_count integer, last_used text, meta text, "
    "dkey text NOT NULL UNIQUE)",
    "CREATE INDEX IF NOT EXISTS units_src_terms ON {s}.units USING gin (src_terms)",
    "CREATE INDEX IF NOT EXISTS units_src_h ON {s}.units USING gin (src_h)",
    "CREATE INDEX IF NOT EXISTS units_tgt_terms ON {s}.units USING gin (tgt_terms)",
    "CREATE INDEX IF NOT EXISTS units_source ON {s}.units (md5(source))",
]


def split_url(url: str) -> tuple[str, str]:
    """(libpq connection URL without Verso's ``tm`` parameter, TM name)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    names = [v for k, v in query if k == "tm"]
    rest = [(k, v) for k, v in query if k != "tm"]
    name = (names[-1] if names else "default").strip().lower()
    if not _NAME.match(name):
        raise TMError(f"{redact(url)}: the TM name (tm=...) may hold only a-z, 0-9 and _ "
                      f"(1 to 40 characters), not {name!r}")
    return urlunsplit(parts._replace(query=urlencode(rest))), name


#: ``url`` without its credentials: what is stored, logged and shown (one function for all of Verso).
redact = strip_credentials

_NET_DEFAULTS = {"application_name": "verso-tm", "keepalives": 1, "keepalives_idle": 10,
                 "keepalives_interval": 5, "keepalives_count": 3, "tcp_user_timeout": 20_000}


class _NoCreate(Exception):
    """The role may not create the TM (raised inside the transaction, named after its rollback)."""

class PgTranslationMemory(PgAccess, PgSearch, PgWrite, PgReview):
    """A TM in PostgreSQL with the interface of :class:`TranslationMemory`.

    ``writable``: False when the role may only read (a write raises
    :class:`TMReadOnly`); a lost connection raises :class:`TMOffline` (the
    handle reconnects on the next call).

    ``create``: True makes a missing TM at once; ``"import"`` leaves that to the
    first write -- :meth:`import_units` creates the TM inside the import's own
    transaction, so an import that fails leaves no empty TM behind (until then
    the TM reads as empty: ``len()`` 0, no languages).
    """

    FLUSH_AT = TranslationMemory.FLUSH_AT

    def __init__(self, url: str, *, create: bool | str = True, src_lang: str = "", tgt_lang: str = "",
                 connect_timeout: int = 5):
        self.url = url
        self.conninfo, self.name = split_url(url)
        self.folder = redact(url)  # what messages name
        given = psycopg.conninfo.conninfo_to_dict(self.conninfo)
        self._secrets = [str(v) for k, v in given.items() if k in ("password", "sslpassword") and v]
        self.schema = f"verso_tm_{self.name}"
        self._want = (_any_lang(src_lang), _any_lang(tgt_lang))
        self._timeout = connect_timeout
        self.conn: psycopg.Connection | None = None
        self.last_search: dict = {}
        self._vocab: dict[str, int] = {}
        self._meta: dict[str, str] | None = None
        self._pairs: set[str] | None = None
        self._cache: dict[str, tuple[float, object]] = {}
        self._pending: tuple[str, str] | None = None  # (src, tgt) while the first import is to create the TM
        self._connect()
        try:
            self._prepare(create, src_lang, tgt_lang)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ connection
    def _connect(self) -> None:
        given = psycopg.conninfo.conninfo_to_dict(self.conninfo)
        # A network cut must end a call in seconds, not after the kernel's TCP timeout (minutes):
        # keepalives and tcp_user_timeout, unless the URL says otherwise.
        extra = {k: v for k, v in _NET_DEFAULTS.items() if k not in given}
        if "connect_timeout" not in given:
            extra["connect_timeout"] = self._timeout
        try:
            self.conn = psycopg.connect(self.conninfo, autocommit=True, **extra)
        except psycopg.OperationalError as e:
            raise self._login_refused(e, given) or TMOffline(self._mask(str(_offline(e, self.folder)))) from None
    def _c(self) -> psycopg.Connection:
        if self.conn is None or self.conn.closed or self.conn.broken:
            with contextlib.suppress(Exception):
                if self.conn is not None:
                    self.conn.close()
            self.conn = None
            self._connect()
        return self.conn  # type: ignore[return-value]

    def _q(self, text: str) -> sql.Composed:
        return sql.SQL(text).format(s=sql.Identifier(self.schema))

    @contextlib.contextmanager
    def _tx_raw(self):
        conn = self._c()
        try:
            with conn.transaction():
                yield conn
        except BaseException:
            self._vocab.clear()  # ids, pairs and metadata of the rolled-back transaction are gone
            self._pairs = self._meta = None
            raise

    @contextlib.contextmanager
    def _tx(self):
        """A transaction; connection faults become :class:`TMOffline`, a
        statement refused for lack of a grant :class:`TMRefused` naming it."""
        try:
            with self._tx_raw() as conn:
                yield conn
        except _NoCreate:
            raise self._no_create() from None
        except pgerrors.InsufficientPrivilege as e:
            raise self._refused(e, write=True) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as e:
            self._vocab.clear()
            raise _offline(e, self.folder) from None

    def _read(self, query, params=()) -> list[tuple]:
        for attempt in (0, 1):
            try:
                return self._c().execute(query, params).fetchall()
            except pgerrors.InsufficientPrivilege as e:
                raise self._refused(e) from None
            except (psycopg.OperationalError, psycopg.InterfaceError) as e:
                if attempt or not self._stale():
                    raise _offline(e, self.folder) from None
        raise AssertionError("unreachable")

    def _stale(self) -> bool:
        """After a fault on a connection that was open: True when a new connection
        works (the server restarted meanwhile), so the call is worth repeating."""
        with contextlib.suppress(Exception):
            if self.conn is not None:
                self.conn.close()
        self.conn = None
        try:
            self._connect()
        except TMOffline:
            return False
        return True

    def _prepare(self, create: bool | str, src_lang: str, tgt_lang: str) -> None:
        # from the catalog, not to_regclass(): a name lookup fails without USAGE on the schema
        exists = self._read("SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                            "WHERE n.nspname = %s AND c.relname = 'units')", (self.schema,))[0][0]
        if not exists:
            if not create:
                raise TMError(f"{self.folder}: no TM named {self.name!r} in this database")
            if create == "import":
                # Created by the first import, inside its transaction: an import that
                # fails leaves no (empty) TM behind.  Until then the TM reads as empty.
                self._pending = (src_lang, tgt_lang)
                self._meta, self._pairs, self._intarray, self.writable = {}, set(), False, True
                return
            with self._tx() as conn:
                self._create(conn)
        self._prepared(src_lang, tgt_lang)

    def _create(self, conn) -> None:
        """The TM's schema, tables and indexes, in the caller's transaction (DDL is
        transactional in PostgreSQL: a rollback takes them away again)."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.schema,))
        with contextlib.suppress(psycopg.Error), conn.transaction():  # trusted: no superuser needed
            conn.execute("CREATE EXTENSION IF NOT EXISTS intarray")
        try:
            conn.execute(self._q("CREATE SCHEMA IF NOT EXISTS {s}"))
            for ddl in _DDL:
                conn.execute(self._q(ddl))
            for k, v in (("schema", str(SCHEMA_VERSION)), ("created", _now())):
                conn.execute(self._q("INSERT INTO {s}.meta VALUES (%s, %s) ON CONFLICT DO NOTHING"), (k, v))
            feed.install(conn, self.schema)
            pg_review.install(conn, self._q)
        except pgerrors.InsufficientPrivilege:
            raise _NoCreate() from None  # named by _tx once the transaction is rolled back

    def _prepared(self, src_lang: str, tgt_lang: str) -> None:
        self._pending = None
        self._intarray = bool(self._read("SELECT count(*) FROM pg_extension WHERE extname = 'intarray'")[0][0])
        version = int(self._meta_get("schema", "0") or 0)
        if version > SCHEMA_VERSION:
            raise TMError(f"{self.folder}: made by a newer Verso (TM schema {version})")
        self.writable = bool(self._read("SELECT has_table_privilege(%s, 'INSERT')",
                                        (f"{self.schema}.units",))[0][0])
        if self._meta_get(feed.FEED_KEY) != feed.FEED_VERSION:  # a TM older than the feed: its owner adds it
            with contextlib.suppress(TMOffline, TMRefused), self._tx() as conn:
                feed.install(conn, self.schema)
            self._meta = None
        if self.writable:
            for key, lang in (("src_lang", src_lang), ("tgt_lang", tgt_lang)):
                if lang and not self._meta_get(key):
                    # a role that may add units but not set the TM's languages still opens it
                    with contextlib.suppress(TMRefused), self._tx() as conn:
                        self._meta_set(conn, key, normalize_lang(lang), overwrite=False)

    def _meta_all(self) -> dict[str, str]:
        if self._pending is not None:
            return {}  # not created yet (see _prepare)
        if self._meta is None:
            self._meta = dict(self._read(self._q("SELECT key, value FROM {s}.meta")))
        return self._meta

    def _meta_get(self, key: str, default: str = "") -> str:
        v = self._meta_all().get(key)
        if v is None and key in ("src_lang", "tgt_lang"):
            self._meta = None  # another client may have set it since
            v = self._meta_all().get(key)
        return v if v is not None else default

    def _meta_set(self, conn, key: str, value: str, overwrite: bool = True) -> None:
        conflict = "DO UPDATE SET value = excluded.value" if overwrite else "DO NOTHING"
        conn.execute(self._q("INSERT INTO {s}.meta VALUES (%s, %s) ON CONFLICT (key) " + conflict), (key, value))
        self._meta = None

    # ------------------------------------------------------------ basics
    @property
    def src_lang(self) -> str:
        return self._meta_get("src_lang")

    @property
    def tgt_lang(self) -> str:
        return self._meta_get("tgt_lang")

    def __len__(self) -> int:
        if self._pending is not None:
            return 0
        return int(self._read(self._q("SELECT count(*) FROM {s}.units"))[0][0])

    def __enter__(self) -> "PgTranslationMemory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        self.conn = None

    def flush(self) -> bool:
        return True

    def rebuild_index(self) -> None:
        """Nothing to rebuild: PostgreSQL keeps its indexes itself."""
    # ------------------------------------------------------------ reading
    def get(self, uid: int) -> TMEntry:
        rows = self._read(self._q(f"SELECT {_COLS} FROM {{s}}.units WHERE id=%s"), (uid,))
        if not rows:
            raise TMError(f"{self.folder}: no unit {uid}")
        return _entry(rows[0])

    def _entries(self, uids: list[int]) -> dict[int, TMEntry]:
        out = {}
        for chunk in _chunks(uids, 1000):
            for row in self._read(self._q(f"SELECT {_COLS} FROM {{s}}.units WHERE id = ANY(%s)"), (chunk,)):
                out[row[0]] = _entry(row)
        return out

    def entries(self) -> Iterator[TMEntry]:
        """Every unit, oldest first (read in one snapshot, streamed)."""
        try:
            with psycopg.connect(self.conninfo, connect_timeout=self._timeout) as conn:
                with conn.transaction(), conn.cursor(name="verso_export") as cur:
                    cur.itersize = 2000
                    cur.execute(self._q(f"SELECT {_COLS} FROM {{s}}.units ORDER BY id"))
                    for row in cur:
                        yield _entry(row)
        except pgerrors.InsufficientPrivilege as e:
            raise self._refused(e) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as e:
            raise self._login_refused(e, psycopg.conninfo.conninfo_to_dict(self.conninfo)) \
                or _offline(e, self.folder) from None

    __iter__ = entries

    def tm_units(self) -> Iterator[TMUnit]:
        for e in self.entries():
            yield TMUnit({e.src_lang: e.source, e.tgt_lang: e.target}, _export_meta(e))

    def stats(self) -> dict:
        origins = dict(self._read(self._q(
            "SELECT coalesce(origin, ''), count(*) FROM {s}.units GROUP BY 1 ORDER BY 2 DESC LIMIT 20")))
        size = self._read("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                          "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
                          (self.schema,))[0][0]
        n = len(self)
        return {
            "path": self.folder, "backend": "postgresql", "units": n, "src_lang": self.src_lang,
            "tgt_lang": self.tgt_lang, "created": self._meta_get("created"), "indexed": n, "pending": 0,
            "index_segments": 0, "writable": self.writable,
            "size_bytes": {"database": int(size), "index": 0}, "origins": {k: int(v) for k, v in origins.items()},
        }


__all__ = ["PgTranslationMemory", "split_url", "redact", "RowsLeaf"]
