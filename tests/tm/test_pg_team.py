"""The shared TM on a real PostgreSQL server: URLs, concurrency, roles, outages
(engine and editor service).  The interface itself is tested on both backends
by the other tests of tests/tm (``make_tm``)."""
from __future__ import annotations

import json
import threading
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from engine.errors import TMError
from engine.tm import TMOffline, TMReadOnly, open_tm
from engine.tm.outbox import Outbox
from engine.tm.pg import redact, split_url


def test_url_names_a_tm_and_keeps_libpq_parameters():
    conninfo, name = split_url("postgresql://u@h:5433/db?sslmode=require&tm=Team_1&connect_timeout=3")
    assert name == "team_1"
    assert conninfo == "postgresql://u@h:5433/db?sslmode=require&connect_timeout=3"
    assert split_url("postgresql://h/db")[1] == "default"
    with pytest.raises(TMError):
        split_url("postgresql://h/db?tm=x;drop table units")
    assert "secret" not in redact("postgresql://u:secret@h/db?tm=a")
    assert "secret" not in redact("postgresql://h/db?password=secret&tm=a")


def test_a_missing_tm_is_not_created_when_not_asked(pg_url):
    with pytest.raises(TMError, match="no TM named"):
        open_tm(pg_url, create=False)


def test_writers_at_once_lose_nothing_and_duplicate_nothing(pg_url):
    open_tm(pg_url, src_lang="en", tgt_lang="de").close()
    errors = []

    def writer(w: int):
        try:
            with open_tm(pg_url) as tm:
                for i in range(40):
                    tm.add(f"Writer {w} confirmed segment number {i}", f"Schreiber {w} Segment {i}")
                    tm.add("The same pair everyone confirms", "Dasselbe Paar")  # one unit in the end
                tm.add_many([(f"Imported by {w} line {i}", f"Import {w} Zeile {i}") for i in range(60)])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with open_tm(pg_url) as tm:
        sources = [e.source.text for e in tm.entries()]
        assert len(sources) == len(set(sources)) == 6 * 40 + 6 * 60 + 1
        assert tm.search("Writer 3 confirmed segment number 17", k=1)[0].score == 1.0


def test_a_pair_confirmed_in_one_editor_is_a_match_in_the_others_next_lookup(pg_url):
    a = open_tm(pg_url, src_lang="en", tgt_lang="de")
    b = open_tm(pg_url)
    try:
        assert b.search("Export the selected layers") == []
        uid = a.add("Export the selected layers", "Ausgewählte Ebenen exportieren")
        assert b.search("Export the selected layers")[0].entry.id == uid
        assert b.concordance("layers")[0].entry.id == uid
    finally:
        a.close()
        b.close()


def test_two_translations_of_one_source_are_kept_newest_first(pg_url):
    a = open_tm(pg_url, src_lang="en", tgt_lang="de")
    b = open_tm(pg_url)
    try:
        a.add("Save the file", "Datei speichern", creator="ana")
        b.add("Save the file", "Die Datei sichern", creator="bob")
        ms = a.search("Save the file", k=5)
        assert [(m.target.text, m.score) for m in ms] == [("Die Datei sichern", 1.0),
                                                          ("Datei speichern", 1.0)]
        assert a.search("Save the file", k=1)[0].meta["creator"] == "bob"
    finally:
        a.close()
        b.close()


def _admin(pg_server):
    return psycopg.connect(pg_server[0], autocommit=True)


def _as_user(url: str, user: str) -> str:
    p = urlsplit(url)
    host = p.netloc.rsplit("@", 1)[-1]
    return urlunsplit(p._replace(netloc=f"{user}@{host}"))


def _grant_roles(pg_server, schema: str, tag: str) -> tuple[str, str]:
    """The documented grants (docs/team-tm.md) for one TM; (read-write user, read-only user)."""
    rw, ro = f"tm_{tag}_rw", f"tm_{tag}_ro"
    with _admin(pg_server) as c:
        for stmt in (
            f"CREATE ROLE {rw} NOLOGIN",
            f"GRANT USAGE ON SCHEMA {schema} TO {rw}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {rw}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {rw}",
            f"CREATE ROLE {ro} NOLOGIN",
            f"GRANT USAGE ON SCHEMA {schema} TO {ro}",
            f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {ro}",
            f"CREATE ROLE ana_{tag} LOGIN IN ROLE {rw}",
            f"CREATE ROLE bob_{tag} LOGIN IN ROLE {ro}",
        ):
            c.execute(stmt)
    return f"ana_{tag}", f"bob_{tag}"


def test_read_only_and_read_write_roles(pg_server, pg_url):
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as tm:
        tm.add("Open the file", "Datei öffnen")
        schema = tm.schema
    tag = schema.rsplit("_", 2)[-2] + schema.rsplit("_", 1)[-1]
    ana, bob = _grant_roles(pg_server, schema, tag)
    with open_tm(_as_user(pg_url, bob), create=False) as ro:
        assert ro.writable is False
        assert ro.search("Open the file")[0].score == 1.0
        with pytest.raises(TMReadOnly):
            ro.add("Close the file", "Datei schließen")
        with pytest.raises(TMReadOnly):
            ro.import_units([])
    with open_tm(_as_user(pg_url, ana), create=False) as rw:
        assert rw.writable is True
        rw.add("Close the file", "Datei schließen")
        assert len(rw) == 2


def test_an_import_is_all_or_nothing(pg_url):
    from engine.errors import FormatError
    from engine.formats.base import TMUnit
    from engine.inline import TaggedText

    def units():
        for i in range(300):
            yield TMUnit({"en": TaggedText(f"Line {i} of a file"), "de": TaggedText(f"Zeile {i}")})
        raise FormatError("x.tmx", "broken", "line 301")

    with open_tm(pg_url, src_lang="en", tgt_lang="de") as tm:
        with pytest.raises(FormatError):
            tm.import_units(units())
        assert len(tm) == 0 and tm.search("Line 7 of a file", min_score=0.5) == []
        good = [TMUnit({"en": TaggedText(f"Line {i} of a file"), "de": TaggedText(f"Zeile {i}")})
                for i in range(300)]
        assert tm.import_units(good).added == 300
        assert tm.search("Line 7 of a file")[0].target.text == "Zeile 7"


@pytest.fixture
def restartable(pg_server):
    srv = pg_server[1]
    if srv is None:
        pytest.skip("the server is not ours to stop (VERSO_TEST_PG)")
    yield srv
    try:
        psycopg.connect(pg_server[0], connect_timeout=2).close()
    except psycopg.OperationalError:
        srv.start()


def test_outage_the_write_waits_in_the_outbox_and_nothing_is_lost(pg_url, restartable, tmp_path):
    tm = open_tm(pg_url, src_lang="en", tgt_lang="de")
    box = Outbox(tmp_path / "tm-outbox.sqlite")
    from engine.inline import TaggedText

    try:
        tm.add("Before the outage", "Vor dem Ausfall")
        restartable.stop()
        with pytest.raises(TMOffline):
            tm.add("During the outage", "Während des Ausfalls")
        with pytest.raises(TMOffline):
            tm.search("Before the outage")
        box.put(tm.folder, TaggedText("During the outage"), TaggedText("Während des Ausfalls"))
        box.close()
        box = Outbox(tmp_path / "tm-outbox.sqlite")  # durable: another process finds it
        assert box.pending(tm.folder) == 1
        restartable.start()
        assert box.send(tm.folder, tm) == 1 and box.pending() == 0
        assert tm.search("During the outage")[0].score == 1.0
        # a restart between two calls: the handle reconnects by itself
        restartable.restart()
        tm.add("After the restart", "Nach dem Neustart")
        assert len(tm) == 3
        # sending twice (a crash before the outbox row went) duplicates nothing
        box.put(tm.folder, TaggedText("During the outage"), TaggedText("Während des Ausfalls"))
        box.send(tm.folder, tm)
        assert len(tm) == 3
    finally:
        box.close()
        tm.close()


# ------------------------------------------------------------------ the editor's TM service
def _project(tmp_path, url: str):
    from engine.store.project import Project

    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    p.set_setting("tms", json.dumps([{"path": url, "writable": True}]))
    from engine.store import trusted
    trusted.confirm_servers([url])  # the user's word for the server (a received project's is refused)
    return p


def _wait(qtbot, svc):
    qtbot.waitUntil(lambda: not svc.busy(), timeout=30_000)


def test_editor_service_offline_outbox_then_sent(qtbot, tmp_path, pg_url, restartable):
    from app.tmservice import TMService
    from engine.inline import TaggedText

    open_tm(pg_url, src_lang="en", tgt_lang="de").close()
    project = _project(tmp_path, pg_url)
    svc = TMService(project)
    states = []
    svc.shared_state.connect(states.append)
    try:
        _wait(qtbot, svc)
        assert svc.infos[0].shared and svc.tms[0] is not None
        restartable.stop()
        svc.add(TaggedText("Confirmed while offline"), TaggedText("Offline bestätigt"))
        _wait(qtbot, svc)
        qtbot.waitUntil(lambda: states and "offline" in states[-1], timeout=30_000)
        assert "1 confirmed segment" in states[-1]
        assert svc.outbox().pending() == 1
        svc.lookup("k", TaggedText("Confirmed while offline"))  # lookups go on (no TM answers)
        _wait(qtbot, svc)
        restartable.start()
        svc.run(svc._reconnect)
        _wait(qtbot, svc)
        qtbot.waitUntil(lambda: states[-1] == "", timeout=30_000)
        assert svc.outbox().pending() == 0
        with open_tm(pg_url) as tm:
            assert tm.search("Confirmed while offline")[0].score == 1.0
    finally:
        svc.close()
        project.close()


def test_editor_service_read_only_user_confirm_never_reaches_the_tm(qtbot, tmp_path, pg_server, pg_url):
    from app.tmservice import TMService
    from engine.inline import TaggedText

    with open_tm(pg_url, src_lang="en", tgt_lang="de") as tm:
        tm.add("Open the file", "Datei öffnen")
        schema = tm.schema
    tag = "svc" + schema.rsplit("_", 1)[-1]
    _, bob = _grant_roles(pg_server, schema, tag)
    project = _project(tmp_path, _as_user(pg_url, bob))
    svc = TMService(project)
    states = []
    svc.shared_state.connect(states.append)
    try:
        _wait(qtbot, svc)
        qtbot.waitUntil(lambda: states and "read-only" in states[-1], timeout=30_000)
        svc.add(TaggedText("Close the file"), TaggedText("Datei schließen"))
        _wait(qtbot, svc)
        assert "read-only" in states[-1] and svc.outbox().pending() == 0
        with open_tm(pg_url) as tm:
            assert len(tm) == 1
    finally:
        svc.close()
        project.close()


def test_command_line_with_a_url_read_only_user_and_missing_tm(pg_server, pg_url, tmp_path, capsys):
    from engine.cli import main

    (tmp_path / "s.txt").write_text("Save the file\nOpen the file\n", "utf-8")
    (tmp_path / "t.txt").write_text("Datei speichern\nDatei öffnen\n", "utf-8")
    assert main(["tm", "stats", "--tm", pg_url]) == 2  # no such TM yet: one line, nothing created
    err = capsys.readouterr().err
    assert "no TM named" in err and err.count("\n") == 1
    with pytest.raises(TMError):
        open_tm(pg_url, create=False)
    args = ["tm", "import", str(tmp_path / "s.txt"), "--target-file", str(tmp_path / "t.txt"),
            "--src-lang", "en", "--tgt-lang", "de", "--tm"]
    assert main(args + [pg_url]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 2
    with open_tm(pg_url) as tm:
        schema = tm.schema
    tag = "cli" + schema.rsplit("_", 1)[-1]
    _, bob = _grant_roles(pg_server, schema, tag)
    assert main(args + [_as_user(pg_url, bob)]) == 2
    err = capsys.readouterr().err
    assert "may only read" in err and "Traceback" not in err
    assert main(["tm", "search", "--tm", _as_user(pg_url, bob), "--json", "Save the file"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["target"] == "Datei speichern"
