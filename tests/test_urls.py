"""Credentials never leave a connection string that Verso stores or shows (issue 35, item 3)."""
from __future__ import annotations

import pytest

from engine.urls import strip_credentials, strip_in


@pytest.mark.parametrize("given, stored", [
    ("postgresql://u@h/db?tm=X&password=secret", "postgresql://u@h/db?tm=X"),
    ("postgresql://u:secret@h:5432/db?tm=X", "postgresql://u@h:5432/db?tm=X"),
    ("postgresql://u:s%40cret@h/db", "postgresql://u@h/db"),
    ("postgresql://:secret@h/db", "postgresql://h/db"),
    ("postgresql://u:p@ss@h1:5432,h2:5433/db?tm=x", "postgresql://u@h1:5432,h2:5433/db?tm=x"),
    ("postgresql://u@h/db?sslmode=require&sslpassword=keypass&tm=X", "postgresql://u@h/db?sslmode=require&tm=X"),
    ("postgresql://u@h/db?PASSWORD=a&oauth_client_secret=b&tm=X", "postgresql://u@h/db?tm=X"),
    ("postgresql://u@h/db?password=only", "postgresql://u@h/db"),
    ("postgres://u:secret@[::1/db?tm=x", "postgres://u@[::1/db?tm=x"),  # malformed, still stripped
    ("tm=X&password=secret", "tm=X"),                # the query part older training records kept
    ("host=h password='a b\\'c' dbname=d", "host=h dbname=d"),   # libpq keyword/value
    ("postgresql://u@h/db?tm=X", "postgresql://u@h/db?tm=X"),
    ("/home/ann/tms/legal", "/home/ann/tms/legal"),
    ("Tom & Jerry.tmx", "Tom & Jerry.tmx"),
    ("passwords&notes.csv", "passwords&notes.csv"),
    ("ann@example.org", "ann@example.org"),
])
def test_a_password_is_stripped_from_every_form_of_connection_string(given, stored):
    assert strip_credentials(given) == stored
    assert "secret" not in strip_credentials(given) and "keypass" not in strip_credentials(given)


def test_every_string_of_a_record_is_stripped():
    rec = {"request": {"tms": ["postgresql://u:pw@h/db?tm=a", "tm=b&password=pw"]},
           "data": {"per_source": [["tm=b&sslpassword=pw", 3]]}, "n": 1}
    assert strip_in(rec) == {"request": {"tms": ["postgresql://u@h/db?tm=a", "tm=b"]},
                             "data": {"per_source": [["tm=b", 3]]}, "n": 1}


def test_passfile_names_where_the_password_is_and_is_kept():
    from engine.urls import strip_credentials

    url = "postgresql://bob@db:5432/tms?tm=main&passfile=/home/bob/.pgpass&password=s3cret"
    assert strip_credentials(url) == "postgresql://bob@db:5432/tms?tm=main&passfile=/home/bob/.pgpass"


def test_a_password_an_older_verso_stored_in_the_project_is_removed_on_opening(tmp_path):
    import json
    import sqlite3

    from engine.store import Project

    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        pass
    db = sqlite3.connect(tmp_path / "p" / "project.verso")   # as an older Verso left it
    db.execute("UPDATE project SET value = ? WHERE key = 'tms'" if db.execute(
        "SELECT 1 FROM project WHERE key = 'tms'").fetchone() else
        "INSERT INTO project (value, key) VALUES (?, 'tms')",
        (json.dumps([{"path": "postgresql://bob:s3cret@db/tms?tm=main", "writable": True},
                     {"path": "tm", "writable": False}]),))
    db.execute("DELETE FROM schema_migrations WHERE version >= 3")
    db.execute("ALTER TABLE tm_pending DROP COLUMN replaces")   # what migration 4 added
    db.commit()
    db.close()
    with Project.open(tmp_path / "p") as p:
        assert json.loads(p.setting("tms")) == [{"path": "postgresql://bob@db/tms?tm=main", "writable": True},
                                                {"path": "tm", "writable": False}]
    assert b"s3cret" not in (tmp_path / "p" / "project.verso").read_bytes()


def test_a_detached_run_gets_its_password_through_its_environment_not_its_command_line(tmp_path, monkeypatch):
    """``/proc/PID/cmdline`` is readable by every user of the machine; the environment is not."""
    import os
    import subprocess

    from engine.training import runs
    from engine.urls import restore_secret_args

    seen = {}

    class FakePopen:
        pid = 4242

        def __init__(self, argv, env=None, **kw):
            seen["argv"], seen["env"] = argv, env

        def poll(self):
            return 0

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    url = "postgresql://bob:s3cret@db/tms?tm=main"
    runs.launch(tmp_path / "run", ["train", "--tm", url, "--out", str(tmp_path / "run")])
    assert all("s3cret" not in a for a in seen["argv"])
    env = dict(seen["env"])
    assert restore_secret_args(seen["argv"][3:], env) == ["train", "--tm", url, "--out", str(tmp_path / "run")]
    assert "VERSO_SECRET_ARGS" not in env                 # not handed on to what the run starts
    assert "s3cret" not in (tmp_path / "run" / "run.json").read_text()
    assert os.environ.get("VERSO_SECRET_ARGS") is None
    runs._children.pop(FakePopen.pid, None)
