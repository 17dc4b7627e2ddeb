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

Search: the database finds the candidates -- units sharing an occurrence term
with the query (GIN ``&&``), ordered by the same upper bound of the fuzzy score
as the local candidate stage, at most the local verification limit -- and the
rows are handed to the unchanged candidate / re-rank / scoring / selection
pipeline (:class:`RowsLeaf` is a candidate-stage leaf over them).  Every
statement is parameterised; the only identifier composed into SQL is the schema
name, checked against ``[a-z0-9_]`` and quoted by :mod:`psycopg.sql`.
"""
from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import re
import time
from array import array
from typing import Iterable, Iterator, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import psycopg
import psycopg.conninfo
from psycopg import errors as pgerrors
from psycopg import sql

from engine.errors import TMError
from engine.formats.base import TMUnit
from engine.inline import TaggedText, strip_tags
from engine.langs import normalize_lang, same_language
from engine.tm import feed, store
from engine.tm.candidates import CandidateStage
from engine.tm import memory as _local
from engine.tm.memory import (_COLS, _WORD, COVERAGE_POOL, TranslationMemory,
                              _any_lang, _chunks, _entry, _export_meta, _meta_columns, _merge_meta,
                              _note, _now, _pair_filter, _pick, _refuse_unclear, _tt, _Unclear)
from engine.tm.model import ConcordanceHit, ImportResult, Match, TMEntry, TMOffline, TMReadOnly, TMRefused
from engine.tm.rerank import verify
from engine.tm.scoring import Encoded, char_score, core_tokens, edit_ops
from engine.tm.select import coverage_select
from engine.tm.tokens import TAG, analyse, index_terms, occurrence_terms, tokenize
from engine.tm.whoosh_index import pair_term
from engine.urls import strip_credentials

SCHEMA_VERSION = 1
#: Units the database may read per search through the GIN index (estimated from its statistics):
#: the query's terms are taken rarest first while their units stay within this.
CANDIDATE_BUDGET = 40_000
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


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _offline(e: Exception, where: str) -> TMOffline:
    return TMOffline(f"{where}: the shared TM server cannot be reached ({_first_line(e)})")


# What a role needs, as (kind, object in the TM's schema, privilege): to read a TM, and to add to it.
_READ_GRANTS = (("schema", "", "USAGE"),) + tuple(("table", t, "SELECT") for t in ("meta", "units", "vocab", "pairs"))
_WRITE_GRANTS = (("table", "units", "INSERT"), ("table", "units", "UPDATE"), ("table", "vocab", "INSERT"),
                 ("table", "pairs", "INSERT"), ("sequence", "vocab_id", "USAGE"),
                 ("sequence", "units_id_seq", "USAGE"))
_MISSING = """SELECT current_user, current_database(), n.oid IS NOT NULL,
    n.oid IS NULL OR has_schema_privilege(n.oid, 'USAGE'),
    coalesce((SELECT array_agg(w.i ORDER BY w.i) FROM unnest(%(o)s::text[], %(p)s::text[]) WITH ORDINALITY w(obj, priv, i)
              JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = w.obj
              WHERE NOT CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(c.oid, w.priv)
                             ELSE has_table_privilege(c.oid, w.priv) END), '{}')
FROM (SELECT 1) one LEFT JOIN pg_namespace n ON n.nspname = %(s)s"""
# The server's words for a login it refused (it answered: not "cannot be reached"), and what Verso says.
_LOGIN_REFUSED = [
    (re.compile(r"password authentication failed", re.I),
     "wrong password for user {user} at {host} (the server refused it; libpq reads the password from ~/.pgpass, "
     "PGPASSWORD or a service file)"),
    (re.compile(r"no password supplied|password is required|password required", re.I),
     "no password for user {user} at {host}: the server asks for one (put it in ~/.pgpass, PGPASSWORD or a "
     "service file)"),
    (re.compile(r'role "[^"]*" does not exist'), "no role {user} on the server at {host}"),
    (re.compile(r'database "[^"]*" does not exist'), "no database {db} on the server at {host}"),
    (re.compile(r"permission denied for database"),
     "role {user} lacks CONNECT on database {db} -- ask the database's owner: GRANT CONNECT ON DATABASE {db} "
     "TO {user}"),
    (re.compile(r"pg_hba\.conf|authentication failed", re.I),
     "the server at {host} refuses user {user} from this computer ({detail})"),
]


def _ident(name: str) -> str:
    """A role or database name as SQL would need it in a GRANT."""
    return name if re.fullmatch(r"[a-z_][a-z0-9_$]*", name) else '"' + name.replace('"', '""') + '"'


def _hashes(terms: Sequence[str]) -> list[int]:
    """32-bit hashes of source terms (``src_h``): the database counts shared terms on
    integers (intarray's ``&`` when installed).  A collision can only raise a
    candidate's bound (never hide one), and the re-rank uses the terms themselves."""
    return sorted({int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=4).digest(),
                                  "little", signed=True) for t in terms})


_INSERT = ("INSERT INTO {s}.units(source, source_tags, target, target_tags, src_lang, tgt_lang, lp, enc, "
           "senc, penc, n, src_terms, tgt_terms, src_h, origin, created, changed, creator, changer, usage_count, "
           "last_used, meta, dkey) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
           "ON CONFLICT (dkey) DO NOTHING RETURNING id")
_NET_DEFAULTS = {"application_name": "verso-tm", "keepalives": 1, "keepalives_idle": 10,
                 "keepalives_interval": 5, "keepalives_count": 3, "tcp_user_timeout": 20_000}
#: Units imported per batch of statements (inside the one transaction of an import).
IMPORT_BATCH = 1000


def _db_token(t: str) -> str:
    """A vocabulary token as stored (PostgreSQL text holds no NUL: the tag token has one)."""
    return t.replace("\\", "\\\\").replace("\x00", "\\0")


def _py_token(t: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\x00" if m.group(1) == "0" else m.group(1), t)


def _newest_first(ranked: list[tuple[float, int]], entries: dict[int, TMEntry]) -> list[tuple[float, int]]:
    """The local TM's order (score, then unit id), except that units with the same
    score and the same source -- two translators' translations of one segment --
    come newest first, in the place of the first of them."""
    first: dict[tuple[float, str], int] = {}
    for i, (s, u) in enumerate(ranked):
        first.setdefault((s, entries[u].source.text), i)
    return sorted(ranked, key=lambda x: (first[(x[0], entries[x[1]].source.text)], -x[1]))


class _NoCreate(Exception):
    """The role may not create the TM (raised inside the transaction, named after its rollback)."""


class RowsLeaf:
    """A candidate-stage leaf (:class:`engine.tm.candidates.Leaf`) over rows
    fetched from the database: (id, n, enc, senc, penc, terms)."""

    overlay = True

    def __init__(self, rows: Sequence[tuple], field: str = "src", want: Sequence[str] | None = None):
        """``want``: the only terms whose postings are asked for (the query's)."""
        self.base = 0
        self.deleted: frozenset = frozenset()
        self.uids = array("q", [r[0] for r in rows])
        self._lengths = np.array([min(65535, r[1]) for r in rows], dtype=np.uint16)
        self._enc = {"e": [r[2] for r in rows], "x": [f"{r[3] or ''}\x01{r[4] or ''}" for r in rows]}
        self._post: dict[str, list[int]] = {}
        keep = set(want) if want is not None else None
        for d, r in enumerate(rows):
            for t in r[5]:
                if keep is None or t in keep:
                    self._post.setdefault(t, []).append(d)
        self.field = field

    @property
    def count(self) -> int:
        return len(self.uids)

    def lengths(self) -> np.ndarray:
        return self._lengths

    def postings(self, field: str, term: str) -> np.ndarray:
        return np.array(self._post.get(term, ()) if field == self.field else (), dtype=np.int32)

    def doc_frequency(self, field: str, term: str) -> int:
        return len(self._post.get(term, ())) if field == self.field else 0

    def terms(self, field: str) -> list[str]:
        return list(self._post) if field == self.field else []

    def encodings(self, local: np.ndarray, column: str = "e") -> list[str]:
        col = self._enc[column]
        return [col[d] for d in local.tolist()]

    def local_of(self, uids: Sequence[int]) -> np.ndarray:
        pos = {u: i for i, u in enumerate(self.uids)}
        return np.array([pos[u] for u in uids if u in pos], dtype=np.int64)


class PgTranslationMemory:
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

    def _mask(self, text: str) -> str:
        """``text`` with any password given in the URL masked (libpq does not quote it: this makes sure)."""
        for secret in self._secrets:
            if len(secret) >= 3:
                text = text.replace(secret, "***")
        return text

    def _login_refused(self, e: Exception, given: dict) -> TMRefused | None:
        """The server answered and refused the login (a wrong password, no such role...): what
        to say, naming user and host and never the password; None when it was not reached."""
        text = str(e)
        for pattern, say in _LOGIN_REFUSED:
            hit = pattern.search(text)
            if hit is None:
                continue
            line = next((ln for ln in text.splitlines() if pattern.search(ln)), text)
            user = (re.search(r'user "([^"]+)"', line) or re.search(r'role "([^"]+)"', line))
            host = re.search(r'server (?:at|on socket) "([^"]+)"', text)
            user_name = (user.group(1) if user else None) or given.get("user") or os.environ.get("PGUSER") \
                or getpass.getuser()
            host_name = (host.group(1) if host else None) or given.get("host") or os.environ.get("PGHOST") \
                or "localhost"
            db = given.get("dbname") or os.environ.get("PGDATABASE") or user_name
            detail = line.split("FATAL:", 1)[-1].strip()
            reason = say.format(user=user_name, host=host_name, db=db, detail=detail)
            return TMRefused(self.folder, self._mask(reason))
        return None

    def _missing(self, write: bool) -> tuple[str, str, bool, list[tuple[str, str, str]]]:
        """(current role, database, whether the TM's schema exists, the grants of
        :data:`_READ_GRANTS` -- and of :data:`_WRITE_GRANTS` when ``write`` -- it lacks).
        Asked by object id from the catalog, which any role may read: a name lookup
        would itself fail without USAGE on the schema."""
        needs = list(_READ_GRANTS[1:]) + (list(_WRITE_GRANTS) if write else [])
        row = self._c().execute(_MISSING, {"o": [n[1] for n in needs], "p": [n[2] for n in needs],
                                           "s": self.schema}).fetchone()
        user, db, exists, usage, lacking = row
        missing = ([] if usage else [_READ_GRANTS[0]]) + [needs[i - 1] for i in lacking]
        return user, db, bool(exists), missing

    def _grants_text(self, user: str, missing: list[tuple[str, str, str]]) -> str:
        """"role bob lacks X on Y -- ask the TM's owner: GRANT ..." for the ``missing`` grants."""
        s, who = self.schema, _ident(user)
        lacks, grants = [], []
        if any(k == "schema" for k, _, _ in missing):
            lacks.append(f"USAGE on schema {s}")
            grants.append(f"GRANT USAGE ON SCHEMA {s} TO {who}")
        tables: dict[str, list[str]] = {}
        for kind, obj, priv in missing:
            if kind == "table":
                tables.setdefault(obj, []).append(priv)
        by_privs: dict[tuple[str, ...], list[str]] = {}
        for obj, privs in tables.items():
            by_privs.setdefault(tuple(privs), []).append(f"{s}.{obj}")
        for privs, objs in by_privs.items():
            lacks.append(f"{', '.join(privs)} on {', '.join(objs)}")
            grants.append(f"GRANT {', '.join(privs)} ON {', '.join(objs)} TO {who}")
        seqs = [f"{s}.{obj}" for kind, obj, _ in missing if kind == "sequence"]
        if seqs:
            lacks.append(f"USAGE on sequence {', '.join(seqs)}")
            grants.append(f"GRANT USAGE ON SEQUENCE {', '.join(seqs)} TO {who}")
        return f"role {user} lacks {'; '.join(lacks)} -- ask the TM's owner: {'; '.join(grants)}"

    def _refused(self, e: Exception, write: bool = False) -> TMRefused:
        """The server refused a statement for lack of a privilege: which grant the role lacks."""
        try:
            user, _, _, missing = self._missing(write)
        except psycopg.Error:
            user, missing = "", []
        if not missing:  # not one of the grants Verso knows (a column grant, row security...)
            who = f"role {user}" if user else "this role"
            return TMRefused(self.folder, f"{who} is refused: {_first_line(e)} -- ask the TM's owner for access",
                             writes=write)
        writes_only = write and all(m in _WRITE_GRANTS for m in missing)
        return TMRefused(self.folder, self._grants_text(user, missing), writes=writes_only)

    def _no_create(self) -> TMRefused:
        user, db, _, _ = self._missing(False)
        return TMRefused(self.folder, f"no TM named {self.name!r} in this database, and role {user} may not create "
                                      f"one (it lacks CREATE on database {db}) -- ask the database's owner to create "
                                      f"it, or: GRANT CREATE ON DATABASE {_ident(db)} TO {_ident(user)}")

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

    def search_pair(self, src_lang: str | None = None, tgt_lang: str | None = None) -> tuple[str, str]:
        out = []
        for given, mine, declared in ((src_lang, self._want[0], self.src_lang),
                                      (tgt_lang, self._want[1], self.tgt_lang)):
            out.append(_any_lang(given) if given is not None else (mine or declared))
        return out[0], out[1]

    def _lps(self, pair: tuple[str, str]):
        """(predicate on language-pair terms, the known pairs it rejects) for a
        search of ``pair``; (None, []) when any pair will do.  The known pairs are
        re-read every few seconds: the query leaves out the rejected ones and the
        rows are checked again, so a pair another client adds meanwhile is never
        returned wrongly, nor missed."""
        accept = _pair_filter(*pair)
        if accept is None:
            return None, []
        lps = self._cached("pairs", lambda: [r[0] for r in self._read(self._q("SELECT lp FROM {s}.pairs"))], 5.0)
        return accept, [lp for lp in lps if not accept(lp)]

    # ------------------------------------------------------------ vocabulary
    def _ids_for_write(self, conn, tokens) -> dict[str, int]:
        want = list(dict.fromkeys(tokens))
        missing = [t for t in want if t not in self._vocab]
        if missing:
            keys = [_db_token(t) for t in missing]
            conn.execute(self._q("INSERT INTO {s}.vocab(token, id) SELECT t, nextval(%s) FROM unnest(%s::text[]) t "
                                 "WHERE NOT EXISTS (SELECT 1 FROM {s}.vocab v WHERE v.token = t) "
                                 "ORDER BY t ON CONFLICT (token) DO NOTHING"),
                         (f"{self.schema}.vocab_id", keys))
            for tok, i in conn.execute(self._q("SELECT token, id FROM {s}.vocab WHERE token = ANY(%s)"), (keys,)):
                self._vocab[_py_token(tok)] = i
        return {t: self._vocab[t] for t in want}

    def _encode_known(self, tokens) -> str:
        missing = [t for t in set(tokens) if t not in self._vocab]
        if missing:
            for tok, i in self._read(self._q("SELECT token, id FROM {s}.vocab WHERE token = ANY(%s)"),
                                     ([_db_token(t) for t in missing],)):
                self._vocab[_py_token(tok)] = i
        if len(self._vocab) > 500_000:
            keep = {t: self._vocab[t] for t in tokens if t in self._vocab}
            self._vocab = keep
        return store.encode_with(tokens, self._vocab)

    # ------------------------------------------------------------ writing
    def _need_write(self) -> None:
        if self._pending is not None:  # opened with create="import": a plain write creates the TM
            with self._tx() as conn:
                self._create(conn)
            self._prepared(*self._pending)
        if not self.writable:
            raise self._read_only()

    def _read_only(self) -> TMReadOnly:
        try:
            user, _, _, missing = self._missing(True)
            why = f": {self._grants_text(user, missing)}" if missing else ""
        except psycopg.Error:
            why = ""
        return TMReadOnly(f"{self.folder}: this role may only read the TM{why}")

    def add(self, source: str | TaggedText, target: str | TaggedText, *, src_lang: str = "",
            tgt_lang: str = "", origin: str = "human", creator: str = "",
            meta: dict | None = None) -> int:
        self._need_write()
        reconnected = False
        for attempt in range(4):  # an add is idempotent (an exact duplicate merges): safe to repeat
            try:
                with self._tx() as conn:
                    uid, _ = self._put(conn, _tt(source), _tt(target), src_lang or self.src_lang,
                                       tgt_lang or self.tgt_lang,
                                       {"origin": origin, "creationid": creator, **(meta or {})})
                return uid
            except TMRefused:
                raise
            except TMOffline:  # once more after a server restart
                if reconnected or not self._stale():
                    raise
                reconnected = True
            except (pgerrors.DeadlockDetected, pgerrors.SerializationFailure):
                if attempt == 3:  # two writers took the same new words and pair in opposite orders
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    def add_many(self, pairs: Iterable[tuple], *, src_lang: str = "", tgt_lang: str = "",
                 origin: str = "import") -> ImportResult:
        s, t = src_lang or self.src_lang or "und", tgt_lang or self.tgt_lang or "und"
        if s == t:
            raise TMError("source and target language are the same")

        def units():
            for p in pairs:
                meta = dict(p[2]) if len(p) > 2 and p[2] else {}
                yield TMUnit({s: _tt(p[0]), t: _tt(p[1])}, meta)
        return self.import_units(units(), src_lang=s, tgt_lang=t, origin=origin)

    def import_units(self, units: Iterable[TMUnit], *, src_lang: str = "", tgt_lang: str = "",
                     origin: str = "", problems: list[str] | None = None) -> ImportResult:
        """Import as ONE transaction (all or nothing), as the local TM does."""
        if not self.writable:
            raise self._read_only()
        res = ImportResult()
        want_s = normalize_lang(src_lang) or self.src_lang
        want_t = normalize_lang(tgt_lang) or self.tgt_lang
        pending = self._pending
        try:
            res = self._import_tx(units, res, want_s, want_t, origin, pending)
        except BaseException:
            self._pending = pending  # rolled back: the TM was not created after all
            raise
        if pending is not None:
            self._prepared(*pending)
        for p in problems or ():
            res.skipped += 1
            _note(res, p)
        return res

    def _import_tx(self, units, res: ImportResult, want_s: str, want_t: str, origin: str,
                   pending) -> ImportResult:
        batch: list[tuple] = []
        with self._tx() as conn:
            if pending is not None:
                self._create(conn)
                self._pending = None
            for key, lang in (("src_lang", want_s), ("tgt_lang", want_t)):
                if lang and not self._meta_get(key):
                    self._meta_set(conn, key, lang)
            for i, unit in enumerate(units, 1):
                picked = _pick(unit, want_s, want_t)
                if isinstance(picked, _Unclear):
                    _refuse_unclear(units, unit, origin, want_s, want_t)
                if isinstance(picked, str):
                    res.skipped += 1
                    _note(res, f"unit {i}" + (f" (line {unit.line})" if unit.line else "") + f": {picked}")
                    continue
                (sl, src), (tl, tgt) = picked
                if not want_s:
                    want_s = sl
                    self._meta_set(conn, "src_lang", sl)
                if not want_t:
                    want_t = tl
                    self._meta_set(conn, "tgt_lang", tl)
                meta = dict(unit.meta or {})
                if origin and not meta.get("origin"):
                    meta["origin"] = origin
                batch.append((src, tgt, sl, tl, meta))
                if len(batch) >= IMPORT_BATCH:
                    self._count(res, self._put_many(conn, batch))
                    batch = []
            self._count(res, self._put_many(conn, batch))
        self._meta = None
        return res

    @staticmethod
    def _count(res: ImportResult, done: list[bool]) -> None:
        n = sum(done)
        res.added += n
        res.updated += len(done) - n

    def _put_many(self, conn, batch: list[tuple]) -> list[bool]:
        """:meth:`_put` for many units in a few statements (one vocabulary
        write, one pipelined insert); True for each unit added, False for each
        duplicate merged.  Units that may duplicate one stored under another
        code of the same languages go one by one."""
        if not batch:
            return []
        known = self._lang_pairs(conn)
        rows, params, done = [], [], []
        tokens: list[str] = []
        for src, tgt, sl, tl, meta in batch:
            if not src.text.strip() or not tgt.text.strip():
                raise TMError("a TM unit needs a source and a target text")
            sl, tl = normalize_lang(sl), normalize_lang(tl)
            lp = pair_term(sl, tl)
            if any(o != lp and same_language(o.partition("|")[0], sl) and same_language(o.partition("|")[2], tl)
                   for o in known):
                rows.append(None)
                continue
            a = analyse(src.text)
            tokens += a.core + a.surface + a.punct
            rows.append((src, tgt, sl, tl, lp, a, _meta_columns(meta)))
        ids = self._ids_for_write(conn, tokens)
        tc = store.token_char
        for r in rows:
            if r is None:
                continue
            src, tgt, sl, tl, lp, a, cols = r
            encs = ["".join(tc(ids[t]) for t in seq) for seq in (a.core, a.surface, a.punct)]
            params.append((src.text, src.tags_json(), tgt.text, tgt.tags_json(), sl, tl, lp, *encs, len(a.core),
                           occurrence_terms(a.core), index_terms(tgt.text), _hashes(occurrence_terms(a.core)),
                           cols["origin"], cols["created"],
                           cols["changed"], cols["creator"], cols["changer"], cols["usage_count"],
                           cols["last_used"], json.dumps(cols["meta"], ensure_ascii=False),
                           store.dup_key(src.text, tgt.text, sl, tl)))
        inserted: list[bool] = []
        if params:
            cur = conn.cursor()
            cur.executemany(self._q(_INSERT), params, returning=True)
            while True:
                inserted.append(cur.fetchone() is not None)
                if not cur.nextset():
                    break
        for lp in {r[4] for r in rows if r is not None} - known:
            conn.execute(self._q("INSERT INTO {s}.pairs VALUES (%s) ON CONFLICT DO NOTHING"), (lp,))
            known.add(lp)
        it = iter(inserted)
        for item, r in zip(batch, rows):
            if r is not None and next(it):
                done.append(True)
            else:  # a duplicate (merge its metadata), or one to look up under other codes
                done.append(self._put(conn, *item)[1])
        return done

    def _lang_pairs(self, conn) -> set[str]:
        if self._pairs is None:
            self._pairs = {r[0] for r in conn.execute(self._q("SELECT lp FROM {s}.pairs"))}
        return self._pairs

    def _put(self, conn, source: TaggedText, target: TaggedText, src_lang: str, tgt_lang: str,
             meta: dict) -> tuple[int, bool]:
        if not source.text.strip() or not target.text.strip():
            raise TMError("a TM unit needs a source and a target text")
        src_lang, tgt_lang = normalize_lang(src_lang), normalize_lang(tgt_lang)
        cols = _meta_columns(meta)
        lp = pair_term(src_lang, tgt_lang)
        keys = [store.dup_key(source.text, target.text, src_lang, tgt_lang)]
        for other in sorted(self._lang_pairs(conn)):
            s_l, _, t_l = other.partition("|")
            if other != lp and same_language(s_l, src_lang) and same_language(t_l, tgt_lang):
                keys.append(store.dup_key(source.text, target.text, s_l, t_l))
        row = None
        if len(keys) > 1:
            row = conn.execute(self._q("SELECT id, meta, usage_count FROM {s}.units WHERE dkey = ANY(%s) "
                                       "ORDER BY id LIMIT 1 FOR UPDATE"), (keys[1:],)).fetchone()
        if row is None:
            a = analyse(source.text)
            ids = self._ids_for_write(conn, a.core + a.surface + a.punct)
            tc = store.token_char
            encs = ["".join(tc(ids[t]) for t in seq) for seq in (a.core, a.surface, a.punct)]
            got = conn.execute(self._q(_INSERT),
                (source.text, source.tags_json(), target.text, target.tags_json(), src_lang, tgt_lang, lp,
                 *encs, len(a.core), occurrence_terms(a.core), index_terms(target.text),
                 _hashes(occurrence_terms(a.core)), cols["origin"],
                 cols["created"], cols["changed"], cols["creator"], cols["changer"], cols["usage_count"],
                 cols["last_used"], json.dumps(cols["meta"], ensure_ascii=False), keys[0])).fetchone()
            if got is not None:
                if lp not in self._lang_pairs(conn):
                    conn.execute(self._q("INSERT INTO {s}.pairs VALUES (%s) ON CONFLICT DO NOTHING"), (lp,))
                    self._lang_pairs(conn).add(lp)
                return int(got[0]), True
            row = conn.execute(self._q("SELECT id, meta, usage_count FROM {s}.units WHERE dkey = %s FOR UPDATE"),
                               (keys[0],)).fetchone()
        uid, old_meta, old_usage = row
        merged = _merge_meta(json.loads(old_meta or "{}"), cols["meta"])
        conn.execute(self._q(
            "UPDATE {s}.units SET changed=%s, changer=%s, usage_count=%s, last_used=coalesce(%s, last_used), "
            "meta=%s, source_tags=%s, target_tags=%s WHERE id=%s"),
            (cols["changed"] or _now(), cols["changer"] or cols["creator"], max(old_usage or 0, cols["usage_count"]),
             cols["last_used"], json.dumps(merged, ensure_ascii=False), source.tags_json(), target.tags_json(), uid))
        return int(uid), False

    def update(self, uid: int, *, source: str | TaggedText | None = None,
               target: str | TaggedText | None = None, meta: dict | None = None) -> int:
        self._need_write()
        e = self.get(uid)
        with self._tx() as conn:
            new_meta = {**_export_meta(e), **(meta or {}), "changedate_iso": _now()}
            conn.execute(self._q("DELETE FROM {s}.units WHERE id=%s"), (uid,))
            s = _tt(source) if source is not None else e.source
            t = _tt(target) if target is not None else e.target
            new_id, created = self._put(conn, s, t, e.src_lang, e.tgt_lang, new_meta)
            if created and new_id != uid:
                conn.execute(self._q("UPDATE {s}.units SET id=%s WHERE id=%s"), (uid, new_id))
                new_id = uid
        return new_id

    def delete(self, uid: int) -> bool:
        self._need_write()
        with self._tx() as conn:
            n = conn.execute(self._q("DELETE FROM {s}.units WHERE id=%s"), (uid,)).rowcount
        return bool(n)

    def record_use(self, uid: int) -> None:
        if not self.writable:
            return
        with self._tx() as conn:
            conn.execute(self._q("UPDATE {s}.units SET usage_count=coalesce(usage_count,0)+1, last_used=%s "
                                 "WHERE id=%s"), (_now(), uid))

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

    # ------------------------------------------------------------ search
    def _same_source(self, text: str, k: int, pair: tuple[str, str]) -> list[Match]:
        rows = self._read(self._q("SELECT id FROM {s}.units WHERE md5(source) = md5(%s) AND source = %s "
                                  "ORDER BY id DESC"), (text, text))
        out = []
        for e in self._entries([r[0] for r in rows]).values():
            if all(not want or want == "*" or same_language(have, want)
                   for have, want in ((e.src_lang, pair[0]), (e.tgt_lang, pair[1]))):
                out.append(Match(e, 1.0, 1.0, []))
        return sorted(out, key=lambda m: -m.entry.id)[:k]

    def _cached(self, key: str, fn, ttl: float = 30.0):
        """``fn()``, remembered for ``ttl`` seconds (counts, pairs, statistics that change slowly)."""
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] < ttl:
            return hit[1]
        val = fn()
        self._cache[key] = (now, val)
        return val

    def _term_freqs(self) -> tuple[dict[str, float], float]:
        """(share of units holding each frequent source term, the share below which the
        rest lie) from PostgreSQL's own statistics of ``src_terms`` (kept by ANALYZE)."""
        def read():
            rows = self._read("SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
                              "WHERE schemaname = %s AND tablename = 'units' AND attname = 'src_terms'",
                              (self.schema,))
            if not rows or rows[0][0] is None:
                return {}, 0.0
            elems, freqs = rows[0]
            return dict(zip(elems, freqs)), float(freqs[len(elems)]) if len(freqs) > len(elems) else 0.0
        return self._cached("freqs", read, 300.0)

    def _candidates(self, core: tuple[str, ...], pair: tuple[str, str], limit: int,
                    min_bound: float, total: int) -> tuple[list[tuple], float]:
        """(rows (id, n, enc, senc, penc, src_terms) of the ``limit`` units with
        the best upper bound of the fuzzy score -- as the local candidate stage
        computes it --, the bound of every unit left out for lack of a shared
        term read).  Terms are read rarest first (by the server's statistics)
        while their units stay within ``CANDIDATE_BUDGET``; the rarest is always
        read, and the GIN index finds the units holding any of them."""
        terms = occurrence_terms(core)
        if not terms:
            return [], 0.0
        tags = sum(1 for t in core if t == TAG)
        accept, rejected = self._lps(pair)
        read = terms
        if total > CANDIDATE_BUDGET:
            freqs, floor = self._term_freqs()
            est = {t: freqs.get(t, floor) * total for t in terms}
            order = sorted(terms, key=lambda t: (est[t], t))
            read, used = [], 0.0
            for t in order:
                if read and used + est[t] > CANDIDATE_BUDGET:
                    break
                read.append(t)
                used += est[t]
        skipped = len(terms) - len(read)
        rest = min(skipped + tags, len(core)) / len(core) if skipped else 0.0
        shared = ("icount(src_h & %(t)s::integer[])" if self._intarray else
                  "(SELECT count(*) FROM unnest(src_h) x WHERE x = ANY(%(t)s::integer[]))")
        q = ("SELECT id, n, enc, senc, penc, src_terms, lp FROM ("
             "SELECT id, n, enc, senc, penc, src_terms, lp, "
             f"least({shared} + %(u)s, least(n, %(q)s))::real"
             " / greatest(n, %(q)s, 1) AS bound FROM {s}.units WHERE src_h OPERATOR(pg_catalog.&&) %(r)s::integer[]"
             + (" AND NOT (lp = ANY(%(rej)s))" if rejected else "") +
             " OFFSET 0) c WHERE bound >= %(mb)s ORDER BY bound DESC, id LIMIT %(lim)s")
        # (OFFSET 0: the bound is computed once a row; no sequential scan: the planner sometimes
        # takes one for a long list of terms, 40 times slower than the GIN index on 100k units)
        params = {"t": _hashes(terms), "r": _hashes(read), "u": tags, "q": len(core), "rej": rejected,
                  "mb": float(min_bound) - 1e-6, "lim": limit}
        for attempt in (0, 1):
            try:
                with self._c().transaction() as tx:
                    tx.connection.execute("SET LOCAL enable_seqscan = off")
                    rows = tx.connection.execute(self._q(q), params).fetchall()
                break
            except pgerrors.InsufficientPrivilege as e:
                raise self._refused(e) from None
            except (psycopg.OperationalError, psycopg.InterfaceError) as e:
                if attempt or not self._stale():
                    raise _offline(e, self.folder) from None
        if accept is not None:
            ok = {lp: accept(lp) for lp in {r[6] for r in rows}}
            rows = [r for r in rows if ok[r[6]]]
        return rows, rest

    def _total(self) -> int:
        """Units in the TM, as the planner estimates (exact under 10 000)."""
        def count():
            rows = self._read("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(%s)",
                              (f"{self.schema}.units",))
            est = int(rows[0][0]) if rows and rows[0][0] is not None else -1
            return est if est >= 10_000 else len(self)
        return self._cached("total", count, 30.0)

    def search(self, query: str | TaggedText, k: int = 5, min_score: float = 0.0,
               coverage: bool = False, src_lang: str | None = None,
               tgt_lang: str | None = None) -> list[Match]:
        """As :meth:`TranslationMemory.search`; of two units with the same
        score the newer comes first."""
        text = query.text if isinstance(query, TaggedText) else str(query)
        qa = analyse(text)
        if k <= 0:
            return []
        pair = self.search_pair(src_lang, tgt_lang)
        if not _WORD.search(strip_tags(text)):
            return self._same_source(text, k, pair) if text.strip() else []
        if not qa.core:
            return []
        lo, hi = _local.VERIFY_LIMIT
        limit = max(lo, min(hi, self._total() // _local.VERIFY_PER))
        rows, rest = self._candidates(qa.core, pair, limit, min_score, self._total())
        if not rows:
            self.last_search = {"candidates": 0, "verified": 0, "postings": 0, "exact": True}
            return []
        qe = Encoded(self._encode_known(qa.core), self._encode_known(qa.surface),
                     self._encode_known(qa.punct))
        stage = CandidateStage([RowsLeaf(rows, want=occurrence_terms(qa.core))], field="src")
        r = stage.retrieve(qa.core, limit=len(rows), budget=1 << 62, min_bound=min_score)
        r.rest = max(r.rest, rest)
        if len(rows) >= limit and len(r.bounds):  # the database left out units bounded by the last row's
            r.rest = max(r.rest, float(r.bounds[-1]))
        v = verify(stage, r, qe.core, k, len(rows))
        self.last_search = {"candidates": len(rows), "verified": len(v.keys), "postings": r.postings,
                            "exact": v.exact}
        need = max(k, COVERAGE_POOL) if coverage else k
        ranked = TranslationMemory._full_scores(self, qe, stage, v, need, min_score)  # type: ignore[arg-type]
        if not coverage and len(ranked) > k:  # keep the ties of the k-th (see _newest_first)
            ranked = [x for i, x in enumerate(ranked) if i < k or x[0] == ranked[k - 1][0]]
        entries = self._entries([u for _, u in ranked])
        ranked = _newest_first([(s, u) for s, u in ranked if u in entries], entries)
        if not coverage:
            ranked = ranked[:k]
        qt = core_tokens(text)
        matches = [Match(entries[u], s, char_score(text, entries[u].source.text),
                         edit_ops(qt, entries[u].source.text))
                   for s, u in ranked]
        if coverage:
            return coverage_select(qa.core, matches, lambda m: analyse(m.source.text).core)
        return matches

    # ------------------------------------------------------------ concordance
    def concordance(self, phrase: str, side: str = "source", limit: int = 50,
                    max_checked: int = 20_000, src_lang: str | None = None,
                    tgt_lang: str | None = None) -> list[ConcordanceHit]:
        if side not in ("source", "target"):
            raise TMError(f"concordance side must be 'source' or 'target', not {side!r}")
        words = [t.norm for t in tokenize(phrase) if t.kind in ("word", "cjk")]
        if not words:
            return []
        accept, rejected = self._lps(self.search_pair(src_lang, tgt_lang))
        col = "src_terms" if side == "source" else "tgt_terms"
        q = (f"SELECT id, lp FROM {{s}}.units WHERE {col} @> %(t)s"
             + (" AND NOT (lp = ANY(%(rej)s))" if rejected else "") + " ORDER BY id LIMIT %(m)s")
        uids = [r[0] for r in self._read(self._q(q), {"t": sorted(set(words)), "rej": rejected, "m": max_checked})
                if accept is None or accept(r[1])]
        return _local.phrase_hits(self._entries(uids).values(), side, words, limit)


__all__ = ["PgTranslationMemory", "split_url", "redact", "RowsLeaf"]
