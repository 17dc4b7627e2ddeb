"""A shared TM's credentials and access rights (issue 35, items 3 and 4), on a real
PostgreSQL server: a password given in the URL is used for the session but never
stored, logged or shown; a translator's folder path never reaches the shared TM; a
role without the grants, or a wrong password, is told so in one line naming what is
missing, and the editor keeps a bounded outbox that is sent once the grant exists."""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from engine.inline import TaggedText
from engine.tm import TMOffline, open_tm
from engine.tm.model import TMRefused

_n = itertools.count()
PASSWORD = "Right-horse-battery-42"


def _admin(pg_server):
    return psycopg.connect(pg_server[0], autocommit=True)


def _as_user(url: str, user: str, password: str | None = None) -> str:
    p = urlsplit(url)
    host = p.netloc.rsplit("@", 1)[-1]
    who = f"{user}:{password}" if password is not None else user
    return urlunsplit(p._replace(netloc=f"{who}@{host}"))


def _tm_with_a_unit(pg_url: str) -> str:
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as tm:
        tm.add("Open the file", "Datei öffnen")
        return tm.schema


def _role(pg_server, *grants: str) -> str:
    """A login role with only ``grants`` (each a format string with {r} for the role)."""
    name = f"role_{os.getpid()}_{next(_n)}"
    with _admin(pg_server) as c:
        c.execute(f"CREATE ROLE {name} LOGIN")
        for g in grants:
            c.execute(g.format(r=name))
    return name


def _rw_grants(schema: str) -> list[str]:
    """The documented read-write grants (docs/team-tm.md), given straight to a role."""
    return [f"GRANT USAGE ON SCHEMA {schema} TO {{r}}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {{r}}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {{r}}"]


@pytest.fixture
def password_role(pg_server):
    """(role, its password): a role the server authenticates by password (scram), on a
    server whose other roles log in without one (the test cluster is ``trust``)."""
    srv = pg_server[1]
    if srv is None:
        pytest.skip("the server's pg_hba.conf is not ours to change (VERSO_TEST_PG)")
    name = f"pw_{os.getpid()}_{next(_n)}"
    with _admin(pg_server) as c:
        c.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{PASSWORD}'")
        hba = Path(srv.data) / "pg_hba.conf"
        hba.write_text(f"host all {name} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        c.execute("SELECT pg_reload_conf()")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # until the server asks this role for its password
        try:
            psycopg.connect(_as_user(pg_server[0], name), connect_timeout=2).close()
        except psycopg.OperationalError:
            break
        time.sleep(0.05)
    return name, PASSWORD


def _project(tmp_path, url: str, name: str = "proj"):
    from engine.store.project import Project

    p = Project.create(tmp_path / name, src_lang="en", tgt_lang="de")
    p.set_setting("tms", json.dumps([{"path": url, "writable": True}]))
    from engine.store import trusted
    trusted.confirm_servers([url])  # the user's word for the server (a received project's is refused)
    return p


def _wait(qtbot, svc):
    qtbot.waitUntil(lambda: not svc.busy(), timeout=30_000)


def _files_hold(folder: Path, secret: str) -> list[str]:
    return [str(f) for f in folder.rglob("*") if f.is_file() and secret.encode() in f.read_bytes()]


# ------------------------------------------------------------------ item 3: no password on disk
def test_a_password_typed_in_the_url_connects_the_session_but_is_never_stored(
        qtbot, tmp_path, pg_server, pg_url, password_role):
    from app.tmservice import TMService
    from engine.store.project import Project

    _tm_with_a_unit(pg_url)
    role, password = password_role
    with _admin(pg_server) as c:
        schema = f"verso_tm_{pg_url.rsplit('tm=', 1)[1]}"
        for g in _rw_grants(schema):
            c.execute(g.format(r=role))
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    svc = TMService(p)
    states, errors = [], []
    svc.shared_state.connect(states.append)
    svc.failed.connect(errors.append)
    typed = [_as_user(pg_url, role, password),                              # user:password@
             _as_user(pg_url, role) + f"&password={password}&sslpassword=key-{password}"]  # libpq's query
    try:
        for url in typed:
            svc.add_tm(p, url, writable=True)
            _wait(qtbot, svc)
        # the session uses what was typed: both handles are open and answer
        assert errors == [] and all(tm is not None for tm in svc.tms), states
        svc.add(TaggedText("Close the file"), TaggedText("Datei schließen"))
        _wait(qtbot, svc)
        assert errors == [] and svc.outbox().pending() == 0
        with open_tm(pg_url) as tm:
            assert tm.search("Close the file")[0].score == 1.0
        stored = json.loads(p.setting("tms"))
        assert [i["path"] for i in stored] == [_as_user(pg_url, role)] * 2
        assert all(password not in str(i.key) for i in svc.infos)
    finally:
        svc.close()
        p.close()
    assert _files_hold(tmp_path / "proj", password) == []  # project.verso, its WAL, the outbox


def test_a_password_in_the_url_is_shown_nowhere_by_the_command_line(
        tmp_path, pg_server, pg_url, password_role, capsys):
    from engine.cli import main

    _tm_with_a_unit(pg_url)
    role, password = password_role
    with _admin(pg_server) as c:
        for g in _rw_grants(f"verso_tm_{pg_url.rsplit('tm=', 1)[1]}"):
            c.execute(g.format(r=role))
    for url in (_as_user(pg_url, role, password), _as_user(pg_url, role) + f"&password={password}"):
        assert main(["tm", "stats", "--tm", url]) == 0
        out = capsys.readouterr()
        assert json.loads(out.out)["path"] == _as_user(pg_url, role)
        assert password not in out.out + out.err
    # an error names the TM by its URL without the password
    assert main(["tm", "stats", "--tm", _as_user(pg_url, role, password) + "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and password not in err and "Traceback" not in err


def test_units_confirmed_in_a_project_are_stamped_with_its_name_not_its_folder(tmp_path, pg_url):
    from engine.store.project import Project

    folder = tmp_path / "clients" / "ann" / "Manual"
    with Project.create(folder, src_lang="en", tgt_lang="de", name="Manual") as p:
        key = p.tm_key
    with Project.open(folder) as p:
        assert p.tm_key == key  # stable: the statistics tell the project's own units by it
    with Project.create(tmp_path / "other" / "Manual", src_lang="en", tgt_lang="de") as other:
        assert other.tm_key != key  # two projects of one name stay apart
    assert key.startswith("Manual") and str(tmp_path) not in key and "/" not in key
    # What the editor's confirm sends (app.main_window) reaches the shared TM without a path.
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as tm, Project.open(folder) as p:
        tm.add("Save the file", "Datei speichern", origin=p.name, creator="translator",
               meta={"document": "guide.txt", "project": p.tm_key})
        e = tm.search("Save the file")[0].entry
    assert str(tmp_path) not in json.dumps(e.meta)


# ------------------------------------------------------------------ item 4: grants and passwords
COMMANDS = [["search", "Open the file"], ["stats"], ["export", "--out", "{tmp}/o.tmx"],
            ["concordance", "file"],
            ["import", "{tmp}/s.txt", "--target-file", "{tmp}/t.txt", "--src-lang", "en", "--tgt-lang", "de"]]


def _run_all(url: str, tmp_path, capsys) -> list[tuple[int, str]]:
    from engine.cli import main

    (tmp_path / "s.txt").write_text("Save the file\n", "utf-8")
    (tmp_path / "t.txt").write_text("Datei speichern\n", "utf-8")
    out = []
    for cmd in COMMANDS:
        args = ["tm", *[a.format(tmp=tmp_path) for a in cmd], "--tm", url]
        with _connects() as tries:
            rc = main(args)
        err = capsys.readouterr().err
        assert len(tries) <= MAX_CONNECTS, (cmd, len(tries))  # answered, not retried
        out.append((rc, err))
    return out


#: connections one command may open (1-3 seen: its TM, the check of its grants, an export's read), counted
#: rather than timed: a busy CI machine slows each, a retry loop is what would make a refusal late
MAX_CONNECTS = 3


@contextlib.contextmanager
def _connects():
    """The server connections opened inside the block (each its conninfo), by the engine's psycopg.connect."""
    tries, real = [], psycopg.connect
    psycopg.connect = lambda conninfo="", **kw: tries.append(conninfo) or real(conninfo, **kw)
    try:
        yield tries
    finally:
        psycopg.connect = real


def test_a_role_without_grants_is_told_the_missing_grant_in_one_line_by_every_command(
        tmp_path, pg_server, pg_url, capsys):
    schema = _tm_with_a_unit(pg_url)
    role = _role(pg_server)
    for rc, err in _run_all(_as_user(pg_url, role), tmp_path, capsys):
        assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert f"role {role} lacks USAGE on schema {schema}" in err, err
        assert f"GRANT USAGE ON SCHEMA {schema} TO {role}" in err, err
        assert "cannot be reached" not in err
    # with USAGE but no SELECT the tables are named
    with _admin(pg_server) as c:
        c.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
    rc, err = _run_all(_as_user(pg_url, role), tmp_path, capsys)[0]
    assert rc == 2 and err.count("\n") == 1 and f"lacks SELECT on {schema}.meta" in err, err


def test_a_role_that_may_add_units_but_not_new_words_is_told_which_grant_is_missing(
        tmp_path, pg_server, pg_url, capsys):
    schema = _tm_with_a_unit(pg_url)
    role = _role(pg_server, f"GRANT USAGE ON SCHEMA {schema} TO {{r}}",
                 f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {{r}}",
                 f"GRANT INSERT, UPDATE ON {schema}.units TO {{r}}")
    results = _run_all(_as_user(pg_url, role), tmp_path, capsys)
    assert [rc for rc, _ in results] == [0, 0, 0, 0, 2]  # it reads; the import is refused
    err = results[-1][1]
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"role {role} lacks INSERT on {schema}.vocab" in err and f"{schema}.vocab_id" in err, err
    assert "GRANT INSERT ON" in err and "ask the TM's owner" in err


def test_a_role_that_may_not_create_a_missing_tm_is_told_which_grant_would_let_it(
        tmp_path, pg_server, pg_url, capsys):
    role = _role(pg_server)
    rc, err = _run_all(_as_user(pg_url, role), tmp_path, capsys)[-1]  # an import into a TM not made yet
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"role {role} may not create one" in err and f"TO {role}" in err and "GRANT CREATE ON DATABASE" in err
    with pytest.raises(TMRefused, match="may not create"):
        open_tm(_as_user(pg_url, role))  # (the editor's open creates a missing TM)


def test_a_read_only_role_is_told_it_may_only_read_and_which_grant_writes_need(
        tmp_path, pg_server, pg_url, capsys):
    schema = _tm_with_a_unit(pg_url)
    role = _role(pg_server, f"GRANT USAGE ON SCHEMA {schema} TO {{r}}",
                 f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {{r}}")
    rc, err = _run_all(_as_user(pg_url, role), tmp_path, capsys)[-1]
    assert rc == 2 and err.count("\n") == 1, err
    assert "may only read" in err and f"lacks INSERT, UPDATE on {schema}.units" in err, err


def test_a_wrong_password_is_reported_as_such_naming_user_and_host(
        tmp_path, pg_server, pg_url, password_role, capsys):
    from engine.cli import main

    _tm_with_a_unit(pg_url)
    role, _ = password_role
    wrong = "Wrong-staple-17"
    with _connects() as tries, pytest.raises(TMRefused) as got:
        open_tm(_as_user(pg_url, role, wrong))
    assert len(tries) == 1  # refused at once: the password is not tried again
    msg = str(got.value)
    assert f"wrong password for user {role} at 127.0.0.1" in msg, msg
    assert wrong not in msg and "cannot be reached" not in msg
    assert main(["tm", "search", "Open the file", "--tm", _as_user(pg_url, role) + f"&password={wrong}"]) == 2
    err = capsys.readouterr().err
    assert "wrong password" in err and wrong not in err and err.count("\n") == 1, err
    with pytest.raises(TMRefused, match="no password"):  # the server asks for one, none given
        open_tm(_as_user(pg_url, role))
    # a server that is down is still "cannot be reached"
    with pytest.raises(TMOffline, match="cannot be reached") as down:
        open_tm("postgresql://127.0.0.1:1/x?tm=a")
    assert not isinstance(down.value, TMRefused)


def test_editor_role_without_grants_says_the_tm_refuses_keeps_a_bounded_outbox_and_sends_it_once_granted(
        qtbot, tmp_path, pg_server, pg_url, monkeypatch):
    from app import tmservice
    from app.tmservice import TMService
    from app.tmstatus import TMStatusLabel
    from engine.tm import outbox

    schema = _tm_with_a_unit(pg_url)
    role = _role(pg_server)
    monkeypatch.setattr(outbox, "CAP", 5)
    project = _project(tmp_path, _as_user(pg_url, role))
    svc = TMService(project)
    states, errors = [], []
    svc.shared_state.connect(states.append)
    svc.failed.connect(errors.append)
    opened = []
    real_open = tmservice.open_tm
    monkeypatch.setattr(tmservice, "open_tm", lambda *a, **k: opened.append(1) or real_open(*a, **k))
    try:
        _wait(qtbot, svc)
        t0 = time.process_time()  # this process's CPU (the TM thread's among it): not a busy machine's others
        for i in range(40):  # a burst of confirms: no retry per confirm, no error per confirm
            svc.add(TaggedText(f"Confirmed segment {i}"), TaggedText(f"Bestätigtes Segment {i}"))
        _wait(qtbot, svc)
        assert time.process_time() - t0 < 10
        # past the cap each confirm is refused in one line (it stays owed in the project)
        assert len(errors) == 35 and all("kept in the project only" in e for e in errors), errors[:3]
        assert len(opened) <= 2  # retried on the timer, not on every confirm
        qtbot.waitUntil(lambda: bool(states) and "refuses" in states[-1], timeout=30_000)
        assert f"lacks USAGE on schema {schema}" in states[-1] and "GRANT" in states[-1], states[-1]
        assert "5 confirmed segment(s) waiting" in states[-1] and "outbox is full" in states[-1], states[-1]
        assert svc.outbox().pending() == 5  # bounded
        assert svc._retry.isActive()
        label = TMStatusLabel()  # the status bar's label: the start of the line, all of it in the tooltip
        label.show_state(states[-1])
        assert label.toolTip() == states[-1] and label.text().startswith("⚠ Shared TM")
        assert label.fontMetrics().horizontalAdvance(label.text()) <= 520
        with _admin(pg_server) as c:
            for g in _rw_grants(schema):
                c.execute(g.format(r=role))
        svc.run(svc._reconnect)  # what the retry timer runs
        _wait(qtbot, svc)
        qtbot.waitUntil(lambda: states[-1] == "", timeout=30_000)
        assert svc.outbox().pending() == 0 and len(errors) == 35
        with open_tm(pg_url) as tm:
            assert len(tm) == 1 + 5
        svc.add(TaggedText("After the grant"), TaggedText("Nach der Freigabe"))
        _wait(qtbot, svc)
        with open_tm(pg_url) as tm:
            assert tm.search("After the grant")[0].score == 1.0
    finally:
        svc.close()
        project.close()


def test_editor_role_that_may_read_but_lacks_a_write_grant_keeps_searching_and_queues(
        qtbot, tmp_path, pg_server, pg_url):
    from app.tmservice import TMService

    schema = _tm_with_a_unit(pg_url)
    role = _role(pg_server, f"GRANT USAGE ON SCHEMA {schema} TO {{r}}",
                 f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {{r}}",
                 f"GRANT INSERT, UPDATE ON {schema}.units TO {{r}}")
    project = _project(tmp_path, _as_user(pg_url, role))
    svc = TMService(project)
    states, errors, found = [], [], []
    svc.shared_state.connect(states.append)
    svc.failed.connect(errors.append)
    svc.lookups.ready.connect(lambda key, f: found.append(f))
    try:
        _wait(qtbot, svc)
        for i in range(3):
            svc.add(TaggedText(f"Confirmed segment {i}"), TaggedText(f"Bestätigtes Segment {i}"))
        _wait(qtbot, svc)
        qtbot.waitUntil(lambda: bool(states) and "refuses writes" in states[-1], timeout=30_000)
        assert f"{schema}.vocab" in states[-1] and "3 confirmed segment(s) waiting" in states[-1], states[-1]
        assert errors == [] and svc.outbox().pending() == 3
        svc.lookup("k", TaggedText("Open the file"))  # it still answers lookups
        qtbot.waitUntil(lambda: bool(found), timeout=30_000)
        assert found[-1] and found[-1][0].match.score == 1.0
        with _admin(pg_server) as c:
            for g in _rw_grants(schema):
                c.execute(g.format(r=role))
        svc.run(svc._reconnect)
        _wait(qtbot, svc)
        qtbot.waitUntil(lambda: states[-1] == "", timeout=30_000)
        assert svc.outbox().pending() == 0
        with open_tm(pg_url) as tm:
            assert len(tm) == 4
    finally:
        svc.close()
        project.close()


def test_outbox_is_capped_and_finds_pairs_kept_under_an_older_masked_key(tmp_path, monkeypatch):
    from engine.tm import outbox
    from engine.tm.outbox import Outbox, OutboxFull

    monkeypatch.setattr(outbox, "CAP", 3)
    box = Outbox(tmp_path / "tm-outbox.sqlite")
    try:
        got = [box.put("postgresql://h/db?tm=a", TaggedText(f"s{i}"), TaggedText(f"t{i}")) for i in range(3)]
        assert got == [1, 2, 3]
        with pytest.raises(OutboxFull, match="3 confirmed segments already wait"):
            box.put("postgresql://h/db?tm=a", TaggedText("s4"), TaggedText("t4"))
        assert box.pending("postgresql://h/db?tm=a") == 3 and box.full("postgresql://h/db?tm=a")
        assert not box.full("postgresql://h/db?tm=b")
        # an older Verso keyed its outbox by the URL with the password masked
        box.put("postgresql://u:***@h/db?tm=b", TaggedText("old"), TaggedText("alt"))
    finally:
        box.close()
    box = Outbox(tmp_path / "tm-outbox.sqlite")
    try:
        assert box.pending("postgresql://u@h/db?tm=b") == 1
    finally:
        box.close()
