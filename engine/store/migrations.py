"""Versioned schema of the project database.

Each migration is a function run once, in order, inside a transaction; the
applied versions are recorded in ``schema_migrations``.  A database whose
version is newer than this code knows is refused (an old Verso must never
write into a project a newer Verso made).
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Callable

Migration = Callable[[sqlite3.Connection], None]


def _m1_initial(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE project (
            key   TEXT PRIMARY KEY,
            value TEXT
        );
        CREATE TABLE documents (
            id          INTEGER PRIMARY KEY,
            name        TEXT NOT NULL,
            format      TEXT NOT NULL,
            original    TEXT NOT NULL,      -- path of the kept original, relative to the project folder
            src_lang    TEXT NOT NULL,
            tgt_lang    TEXT NOT NULL,
            meta        TEXT NOT NULL DEFAULT '{}',
            imported_at TEXT NOT NULL
        );
        CREATE TABLE segments (
            id           INTEGER PRIMARY KEY,
            document_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            idx          INTEGER NOT NULL,  -- order in the document, 0-based
            key          TEXT NOT NULL,     -- the format's stable key (writers look it up)
            source       TEXT NOT NULL,
            source_tags  TEXT NOT NULL DEFAULT '[]',
            target       TEXT NOT NULL DEFAULT '',
            target_tags  TEXT NOT NULL DEFAULT '[]',
            status       TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'draft', 'confirmed')),
            origin       TEXT NOT NULL DEFAULT '' CHECK (origin IN ('', 'file', 'human', 'tm', 'mt')),
            origin_score REAL,              -- fuzzy score (0..1) when origin = 'tm'
            note         TEXT NOT NULL DEFAULT '',
            context      TEXT NOT NULL DEFAULT '',
            meta         TEXT NOT NULL DEFAULT '{}',
            created_at   TEXT NOT NULL,
            updated_at   TEXT NOT NULL,
            confirmed_at TEXT,
            UNIQUE (document_id, idx)
        );
        CREATE INDEX segments_status ON segments(document_id, status);
        """)


#: What projects made before 2026-11 have beside the latest schema: ``segments_doc`` repeated the
#: UNIQUE (document_id, idx) constraint's index, which every query plan uses alike without it, at the
#: cost of a third index written per inserted segment.  Such a project keeps it: no write on opening,
#: and an older Verso opens a new project (an index it made and does not find is no refusal).
LEGACY_INDEXES = ("CREATE INDEX IF NOT EXISTS segments_doc ON segments(document_id, idx)",)


def _any_version(db: sqlite3.Connection) -> None:
    """The schema of a project any version of Verso made: the migrations, then the legacy indexes."""
    migrate(db)
    for stmt in LEGACY_INDEXES:
        db.execute(stmt)


def _m2_tm_pending(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE tm_pending (
            segment_id  INTEGER PRIMARY KEY REFERENCES segments(id) ON DELETE CASCADE,
            meta        TEXT NOT NULL DEFAULT '{}',  -- the TM unit's metadata (JSON)
            queued_at   TEXT NOT NULL
        );
        """)


def _m3_no_stored_passwords(db: sqlite3.Connection) -> None:
    """A shared TM's URL in the project's TM list loses any password an older Verso stored
    with it (libpq reads it from ``~/.pgpass`` or ``PGPASSWORD``)."""
    import json

    from engine.urls import strip_credentials

    row = db.execute("SELECT value FROM project WHERE key = 'tms'").fetchone()
    try:
        items = json.loads(row[0]) if row and row[0] else []
    except ValueError:
        return
    if not isinstance(items, list):
        return
    changed = False
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("path"), str) and "://" in item["path"]:
            clean = strip_credentials(item["path"])
            changed |= clean != item["path"]
            item["path"] = clean
    if changed:
        db.execute("UPDATE project SET value = ? WHERE key = 'tms'", (json.dumps(items),))


def _m4_tm_pending_replaces(db: sqlite3.Connection) -> None:
    # the target a corrected confirmation replaces in the TM ({"text":..., "tags":...} JSON, or NULL)
    if "replaces" not in {r[1] for r in db.execute("PRAGMA table_info(tm_pending)")}:
        db.execute("ALTER TABLE tm_pending ADD COLUMN replaces TEXT")


def _m5_qa_ignored(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE IF NOT EXISTS qa_ignored (
            segment_id  INTEGER NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
            check_id    TEXT NOT NULL,      -- the finding's check (Issue.check)
            message     TEXT NOT NULL,      -- the finding's text: another text is another finding
            ignored_at  TEXT NOT NULL,
            PRIMARY KEY (segment_id, check_id, message)
        );
        """)


def _m6_segment_locks(db: sqlite3.Connection) -> None:
    # 1: the segment's target may not change (locked by the file or by the translator)
    if "locked" not in {r[1] for r in db.execute("PRAGMA table_info(segments)")}:
        db.execute("ALTER TABLE segments ADD COLUMN locked INTEGER NOT NULL DEFAULT 0")


def _m7_comments(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE IF NOT EXISTS comments (
            id          INTEGER PRIMARY KEY,
            segment_id  INTEGER NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
            author      TEXT NOT NULL DEFAULT '',
            text        TEXT NOT NULL,
            created_at  TEXT NOT NULL,
            updated_at  TEXT NOT NULL,
            resolved_at TEXT               -- NULL: open
        );
        CREATE INDEX IF NOT EXISTS comments_segment ON comments(segment_id)
        """)


def _m8_review(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE IF NOT EXISTS tracked_changes (
            segment_id        INTEGER PRIMARY KEY REFERENCES segments(id) ON DELETE CASCADE,
            base_text         TEXT NOT NULL,  -- the target before the reviewer's edits (engine/review/changes.py)
            base_tags         TEXT NOT NULL DEFAULT '[]',
            base_status       TEXT NOT NULL,
            base_origin       TEXT NOT NULL,
            base_score        REAL,
            base_updated_at   TEXT,           -- NULL once a change is accepted: nothing to restore
            base_confirmed_at TEXT,
            author            TEXT NOT NULL,
            changed_at        TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS lqa_errors (
            id          INTEGER PRIMARY KEY,
            segment_id  INTEGER NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
            start       INTEGER NOT NULL,   -- the span of the target it marks (characters)
            end         INTEGER NOT NULL,
            category    TEXT NOT NULL,
            severity    TEXT NOT NULL,
            comment     TEXT NOT NULL DEFAULT '',
            author      TEXT NOT NULL DEFAULT '',
            created_at  TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS lqa_errors_segment ON lqa_errors(segment_id)
        """)


def _m9_target_history(db: sqlite3.Connection) -> None:
    _run_script(db, """
        CREATE TABLE IF NOT EXISTS target_history (
            id          INTEGER PRIMARY KEY,
            segment_id  INTEGER NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
            old_text    TEXT NOT NULL,      -- the target before the edit (engine/review/history.py)
            old_tags    TEXT NOT NULL DEFAULT '[]',
            new_text    TEXT NOT NULL,
            new_tags    TEXT NOT NULL DEFAULT '[]',
            status      TEXT NOT NULL,      -- the segment's status after the edit
            author      TEXT NOT NULL,
            changed_at  TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS target_history_segment ON target_history(segment_id, id)
        """)


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated DDL statement by statement (``executescript`` would
    commit the enclosing transaction and break the migration's atomicity)."""
    body = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
    for stmt in body.split(";"):
        if stmt.strip():
            db.execute(stmt)


MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "initial schema: project, documents, segments", _m1_initial),
    (2, "confirmations owed to the TM (tm_pending)", _m2_tm_pending),
    (3, "no password in a stored TM URL", _m3_no_stored_passwords),
    (4, "the TM target a corrected confirmation replaces (tm_pending.replaces)", _m4_tm_pending_replaces),
    (5, "QA findings the translator ignored (qa_ignored)", _m5_qa_ignored),
    (6, "locked segments (segments.locked)", _m6_segment_locks),
    (7, "comments on segments (comments)", _m7_comments),
    (8, "a reviewer's tracked changes and LQA errors (tracked_changes, lqa_errors)", _m8_review),
    (9, "who changed a target, what and when (target_history)", _m9_target_history),
]
LATEST = MIGRATIONS[-1][0]


def current_version(db: sqlite3.Connection) -> int:
    row = db.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
    ).fetchone()
    if not row:
        return 0
    v = db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0]
    return int(v or 0)


def checked_version(db: sqlite3.Connection, path) -> int:
    """:func:`current_version`, once the database ``path`` holds nothing these migrations do not
    make (:mod:`engine.sqlguard`: a received project's triggers and views never run; an older
    version lacks some columns)."""
    from engine.errors import ProjectError
    from engine.sqlguard import check_schema

    check_schema(db, path, _any_version, ProjectError, exact=False)
    return current_version(db)


def migrate(db: sqlite3.Connection) -> list[int]:
    """Apply every pending migration; return the versions applied.

    ``db`` must be in autocommit mode (``isolation_level=None``) or have no
    transaction open: each migration runs in its own explicit transaction.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    have = current_version(db)
    applied = []
    for version, description, fn in MIGRATIONS:
        if version <= have:
            continue
        db.execute("BEGIN IMMEDIATE")  # one transaction per migration
        try:
            fn(db)
            db.execute(
                "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
                (version, description, datetime.now(timezone.utc).isoformat(timespec="seconds")),
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        applied.append(version)
    return applied
