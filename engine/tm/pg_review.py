"""The reviewer role on a shared TM.  A mixin of :class:`engine.tm.pg.PgTranslationMemory`.

Team TMs know their users as PostgreSQL roles (``current_user``; see
docs/team-tm.md), so a reviewer is a role the TM's owner lists in the TM's
``reviewers`` table (:meth:`PgReview.set_reviewer`)::

    INSERT INTO verso_tm_NAME.reviewers(username, added) VALUES ('rita', now()::text);

* A reviewer's confirmation **replaces** the translator's unit(s) for the same
  source and language pair: they leave ``units`` and their targets go to
  ``revisions`` under the reviewer's unit ("revised by X, was: ...").
* A translator's later confirmation of a source whose unit a reviewer confirmed
  does not overwrite it and adds no competing unit: it is kept in the unit's
  history as a *proposal* (shown as "proposed by X") for the reviewer to take or
  leave, and lookups keep giving the reviewer's text.  Neither refusing it (the
  editor's outbox would hold it for ever) nor adding a second unit (a lookup
  would offer the newest, the unreviewed one, first) keeps the reviewer's word
  and the translator's work both; this is the suggestion model of review-gated
  TMs (Weblate, Locize), which we could check, rather than memoQ's or Trados's
  server TMs, whose documentation we could not read from here.

Everything happens in the add's own transaction, so two editors at once never
see a unit half replaced.  A TM made before this module gets its tables from the
first write of a role that may create them (its owner); until then nobody is a
reviewer and adds behave as before.
"""
from __future__ import annotations

import contextlib

import psycopg

from engine.inline import TaggedText
from engine.langs import normalize_lang
from engine.tm.memory import _now
from engine.tm.model import TMRefused
from engine.tm.whoosh_index import pair_term

DDL = [
    "CREATE TABLE IF NOT EXISTS {s}.reviewers (username text PRIMARY KEY, added text NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {s}.reviewed (unit_id bigint PRIMARY KEY, reviser text NOT NULL, "
    "revised text NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {s}.revisions (id bigserial PRIMARY KEY, unit_id bigint NOT NULL, "
    "kind text NOT NULL CHECK (kind IN ('replaced', 'proposed')), target text NOT NULL, target_tags text, "
    "author text, authored text, reviser text, revised text NOT NULL)",
    "CREATE INDEX IF NOT EXISTS revisions_unit ON {s}.revisions (unit_id)",
    # The documented read-write grants cover every table of the schema: row-level security keeps
    # the reviewers list the owner's (everyone reads it) and the reviewed marks the reviewers'.
    "ALTER TABLE {s}.reviewers ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS everyone_reads ON {s}.reviewers",
    "CREATE POLICY everyone_reads ON {s}.reviewers FOR SELECT USING (true)",
    "ALTER TABLE {s}.reviewed ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS everyone_reads ON {s}.reviewed",
    "CREATE POLICY everyone_reads ON {s}.reviewed FOR SELECT USING (true)",
    "DROP POLICY IF EXISTS reviewers_write ON {s}.reviewed",
    "CREATE POLICY reviewers_write ON {s}.reviewed FOR ALL USING "
    "(EXISTS (SELECT 1 FROM {s}.reviewers WHERE username = current_user))",
]

_SAME_SOURCE = ("SELECT id, target, target_tags, coalesce(nullif(changer, ''), creator), coalesce(changed, created) "
                "FROM {s}.units WHERE md5(source) = md5(%s) AND source = %s AND lp = %s AND id <> %s "
                "ORDER BY id FOR UPDATE")


def install(conn: psycopg.Connection, schema_q) -> None:
    """The review tables, in the caller's transaction (``schema_q``: the TM's ``_q``)."""
    for ddl in DDL:
        conn.execute(schema_q(ddl))


class PgReview:
    """The reviewer role (see the module)."""

    _review_ok: bool | None = None

    def _review_tables(self, conn) -> bool:
        if self._review_ok is None:
            t = [f"{self.schema}.{n}" for n in ("reviewers", "reviewed", "revisions")]
            have = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (t[2],)).fetchone()[0]
            # tables made after the grants ('ON ALL TABLES' covers the tables of its day): off until re-granted
            if have and not conn.execute("SELECT has_table_privilege(%s, 'SELECT') AND has_table_privilege(%s, "
                                         "'SELECT') AND has_table_privilege(%s, 'INSERT')", t).fetchone()[0]:
                return False
            if not have:  # a TM older than the reviewer role: its owner's write adds the tables
                with contextlib.suppress(psycopg.Error), conn.transaction():
                    install(conn, self._q)
                    return True  # not remembered: the caller's transaction may still roll them back
            self._review_ok = bool(have)
        return self._review_ok

    def is_reviewer(self, conn=None) -> bool:
        """True when this connection's role is one of the TM's reviewers."""
        if conn is None:
            with self._tx() as c:
                return self.is_reviewer(c)
        if not self._review_tables(conn):
            return False
        return bool(conn.execute(self._q("SELECT EXISTS (SELECT 1 FROM {s}.reviewers WHERE username = current_user)"))
                    .fetchone()[0])

    def set_reviewer(self, username: str, on: bool = True) -> None:
        """Make the PostgreSQL role ``username`` a reviewer of this TM (or not): the owner's call."""
        self._need_write()
        with self._tx() as conn:
            if not self._review_tables(conn):
                raise TMRefused(f"{self.folder}: only the TM's owner may name reviewers (it lacks CREATE on "
                                f"schema {self.schema} to add the reviewers table)")
            if on:
                conn.execute(self._q("INSERT INTO {s}.reviewers VALUES (%s, %s) ON CONFLICT DO NOTHING"),
                             (username, _now()))
            else:
                conn.execute(self._q("DELETE FROM {s}.reviewers WHERE username = %s"), (username,))

    def _put_reviewed(self, conn, source: TaggedText, target: TaggedText, src_lang: str, tgt_lang: str,
                      meta: dict) -> int:
        """:meth:`_put` with the reviewer role: returns the id of the unit that now holds the source's text."""
        if not self._review_tables(conn):
            return self._put(conn, source, target, src_lang, tgt_lang, meta)[0]
        who = str(meta.get("creationid") or "") or conn.execute("SELECT current_user").fetchone()[0]
        lp = pair_term(normalize_lang(src_lang), normalize_lang(tgt_lang))
        if self.is_reviewer(conn):
            uid = self._put(conn, source, target, src_lang, tgt_lang, meta)[0]
            now = _now()
            for old, text, tags, author, authored in conn.execute(
                    self._q(_SAME_SOURCE), (source.text, source.text, lp, uid)).fetchall():
                conn.execute(self._q("INSERT INTO {s}.revisions(unit_id, kind, target, target_tags, author, authored, "
                                     "reviser, revised) VALUES (%s, 'replaced', %s, %s, %s, %s, %s, %s)"),
                             (uid, text, tags, author, authored, who, now))
                conn.execute(self._q("UPDATE {s}.revisions SET unit_id = %s WHERE unit_id = %s"), (uid, old))
                conn.execute(self._q("DELETE FROM {s}.reviewed WHERE unit_id = %s"), (old,))
                conn.execute(self._q("DELETE FROM {s}.units WHERE id = %s"), (old,))
            conn.execute(self._q("INSERT INTO {s}.reviewed VALUES (%s, %s, %s) ON CONFLICT (unit_id) "
                                 "DO UPDATE SET reviser = excluded.reviser, revised = excluded.revised"),
                         (uid, who, now))
            return uid
        kept = conn.execute(self._q(
            "SELECT u.id, u.target FROM {s}.units u JOIN {s}.reviewed r ON r.unit_id = u.id "
            "WHERE md5(u.source) = md5(%s) AND u.source = %s AND u.lp = %s ORDER BY r.revised DESC LIMIT 1 "
            "FOR UPDATE OF u"), (source.text, source.text, lp)).fetchone()
        if kept is None or kept[1] == target.text:
            return self._put(conn, source, target, src_lang, tgt_lang, meta)[0]
        conn.execute(self._q("INSERT INTO {s}.revisions(unit_id, kind, target, target_tags, author, authored, revised) "
                             "SELECT %s, 'proposed', %s, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM {s}.revisions "
                             "WHERE unit_id = %s AND kind = 'proposed' AND target = %s)"),
                     (kept[0], target.text, target.tags_json(), who, _now(), _now(), kept[0], target.text))
        return int(kept[0])

    def history(self, uid: int) -> list[dict]:
        """The unit's earlier and proposed targets, newest first: kind ('replaced' / 'proposed'),
        target, author, authored, reviser, revised."""
        return self._histories([uid]).get(uid, [])

    def _histories(self, uids: list[int]) -> dict[int, list[dict]]:
        with self._tx() as conn:
            if not uids or not self._review_tables(conn):
                return {}
            rows = conn.execute(self._q(
                "SELECT unit_id, kind, target, author, authored, reviser, revised FROM {s}.revisions "
                "WHERE unit_id = ANY(%s) ORDER BY revised DESC, id DESC"), (list(uids),)).fetchall()
        out: dict[int, list[dict]] = {}
        keys = ("kind", "target", "author", "authored", "reviser", "revised")
        for r in rows:
            out.setdefault(int(r[0]), []).append(dict(zip(keys, r[1:])))
        return out

    def revision_notes(self, uids: list[int]) -> dict[int, str]:
        """{unit id: one line for the TM editor / concordance} for the units that have a history:
        "revised by X, was: ..." and any translator's proposals."""
        return {uid: _note(h) for uid, h in self._histories(uids).items()}

    def revision_note(self, uid: int) -> str:
        return _note(self.history(uid))


def _note(history: list[dict]) -> str:
    parts = []
    for h in history:
        if h["kind"] == "replaced":
            parts.append(f"revised by {h['reviser']}, was: {h['target']}" + (f" ({h['author']})" if h["author"] else ""))
        else:
            parts.append(f"proposed by {h['author']}: {h['target']}")
    return "; ".join(parts)
