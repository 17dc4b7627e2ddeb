"""The change feed of a shared TM on PostgreSQL: what a client's replica reads.

Every write of a unit is stamped by a trigger on the server, whichever client
(or version of Verso) made it:

* ``units.change``: ``nextval(change_id)`` -- a change id per unit, monotonic:
  each write of a unit gets a larger one;
* ``units.xid``: ``pg_current_xact_id()`` of the writing transaction;
* a delete leaves a tombstone ``tombstones(id, change, xid)``;
* each writing statement ``NOTIFY``s channel :func:`channel` (delivered at commit);
* a ``TRUNCATE`` (no row triggers) gives the TM a new instance id (``meta``):
  every replica starts over.

A client's cursor is a ``pg_snapshot`` S (not a change id: change ids are taken
before commit, so a transaction that commits late can hold a smaller id than
one already read -- reading "change > last" would skip it).  The changes after
S are the rows whose ``xid`` S does not see and the snapshot of the reading
transaction does:

    delta(S, T) = { r : xid(r) >= xmin(S),  not visible(xid(r), S) }   read in T

and T becomes the next cursor.  A row committed after T is not visible in T
and is read next time; nothing is read twice unless it changed again.  Within a
delta, a tombstone and a unit of the same id (a unit deleted and put back) are
ordered by ``change``.

The feed is installed by the TM's owner (the role that may ``CREATE TRIGGER``):
:func:`install` runs when a TM is created and when an owner opens an older TM.
The trigger functions are ``SECURITY DEFINER`` (owned by the TM's owner), so
a writer role needs no grant beyond those of docs/team-tm.md; a reader needs
``SELECT`` on ``tombstones`` (granted with the other tables).
"""
from __future__ import annotations

import contextlib
import uuid

import psycopg
from psycopg import errors as pgerrors
from psycopg import sql

#: ``meta`` key: the feed's version (absent: no feed, searches go to the server).
FEED_KEY = "feed"
FEED_VERSION = "2"
#: ``meta`` key: a random id per TM (a TM dropped and made again under the same name gets another).
INSTANCE_KEY = "instance"

#: The unit columns a replica copies (the local TM's own columns, same order).
UNIT_COLS = ("id, source, source_tags, target, target_tags, src_lang, tgt_lang, enc, senc, penc, origin, "
             "created, changed, creator, changer, usage_count, last_used, meta, dkey")

_DDL = [
    "ALTER TABLE {s}.units ADD COLUMN IF NOT EXISTS change bigint, ADD COLUMN IF NOT EXISTS xid xid8",
    "CREATE SEQUENCE IF NOT EXISTS {s}.change_id",
    "CREATE TABLE IF NOT EXISTS {s}.tombstones (id bigint PRIMARY KEY, change bigint NOT NULL, "
    "xid xid8 NOT NULL)",
    "CREATE INDEX IF NOT EXISTS units_xid ON {s}.units (xid)",
    "CREATE INDEX IF NOT EXISTS tombstones_xid ON {s}.tombstones (xid)",
    """CREATE OR REPLACE FUNCTION {s}.feed_stamp() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path = pg_catalog AS $$
       BEGIN
         NEW.xid := pg_current_xact_id();
         NEW.change := nextval({seq});
         RETURN NEW;
       END $$""",
    """CREATE OR REPLACE FUNCTION {s}.feed_tomb() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path = pg_catalog AS $$
       BEGIN
         INSERT INTO {s}.tombstones VALUES (OLD.id, nextval({seq}), pg_current_xact_id())
           ON CONFLICT (id) DO UPDATE SET change = excluded.change, xid = excluded.xid;
         RETURN OLD;
       END $$""",
    """CREATE OR REPLACE FUNCTION {s}.feed_wake() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path = pg_catalog AS $$
       BEGIN
         PERFORM pg_notify({chan}, '');
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION {s}.feed_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path = pg_catalog AS $$
       BEGIN
         UPDATE {s}.meta SET value = md5(random()::text || clock_timestamp()::text) WHERE key = {inst};
         PERFORM pg_notify({chan}, '');
         RETURN NULL;
       END $$""",
    "DROP TRIGGER IF EXISTS feed_truncate ON {s}.units",
    "CREATE TRIGGER feed_truncate AFTER TRUNCATE ON {s}.units FOR EACH STATEMENT "
    "EXECUTE FUNCTION {s}.feed_truncate()",
    "DROP TRIGGER IF EXISTS feed_stamp ON {s}.units",
    "CREATE TRIGGER feed_stamp BEFORE INSERT OR UPDATE ON {s}.units FOR EACH ROW EXECUTE FUNCTION {s}.feed_stamp()",
    "DROP TRIGGER IF EXISTS feed_tomb ON {s}.units",
    "CREATE TRIGGER feed_tomb AFTER DELETE ON {s}.units FOR EACH ROW EXECUTE FUNCTION {s}.feed_tomb()",
    "DROP TRIGGER IF EXISTS feed_wake ON {s}.units",
    "CREATE TRIGGER feed_wake AFTER INSERT OR UPDATE OR DELETE ON {s}.units FOR EACH STATEMENT "
    "EXECUTE FUNCTION {s}.feed_wake()",
]


def channel(schema: str) -> str:
    """The ``LISTEN`` channel of the TM in ``schema`` (the schema's name: [a-z0-9_] only)."""
    return schema


def install(conn: psycopg.Connection, schema: str) -> bool:
    """Add the feed to the TM in ``schema`` inside the caller's transaction; False
    (nothing changed) when this role may not (not the TM's owner)."""
    q = {"s": sql.Identifier(schema), "seq": sql.Literal(f'"{schema}".change_id'),
         "chan": sql.Literal(channel(schema)), "inst": sql.Literal(INSTANCE_KEY)}
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (schema + ".feed",))
            for ddl in _DDL:
                conn.execute(sql.SQL(ddl).format(**q))
            conn.execute(sql.SQL("INSERT INTO {s}.meta VALUES (%s, %s) ON CONFLICT (key) DO NOTHING")
                         .format(**q), (INSTANCE_KEY, uuid.uuid4().hex))
            conn.execute(sql.SQL("INSERT INTO {s}.meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                                 "SET value = excluded.value").format(**q), (FEED_KEY, FEED_VERSION))
    except (pgerrors.InsufficientPrivilege, pgerrors.ObjectNotInPrerequisiteState):
        return False
    return True


def has_feed(conn: psycopg.Connection, schema: str) -> bool:
    with contextlib.suppress(psycopg.Error):
        row = conn.execute(sql.SQL("SELECT value FROM {s}.meta WHERE key = %s").format(s=sql.Identifier(schema)),
                           (FEED_KEY,)).fetchone()
        return row is not None and row[0] == FEED_VERSION
    return False


def instance_query(schema: str) -> sql.Composed:
    return sql.SQL("SELECT value FROM {s}.meta WHERE key = %s").format(s=sql.Identifier(schema))


def delta_queries(schema: str) -> tuple[sql.Composed, sql.Composed]:
    """(units changed after snapshot %(snap)s, tombstones likewise), each ordered by change."""
    s = sql.Identifier(schema)
    where = "xid >= pg_snapshot_xmin(%(snap)s::pg_snapshot) AND NOT pg_visible_in_snapshot(xid, %(snap)s::pg_snapshot)"
    units = sql.SQL(f"SELECT {UNIT_COLS}, change FROM {{s}}.units WHERE {where} ORDER BY change").format(s=s)
    tombs = sql.SQL(f"SELECT id, change FROM {{s}}.tombstones WHERE {where} ORDER BY change").format(s=s)
    return units, tombs
