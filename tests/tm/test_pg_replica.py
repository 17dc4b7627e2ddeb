"""The local replica of a shared TM (engine/tm/replica.py, engine/tm/shared.py) on a real
PostgreSQL server.  Each client has its own replica folder, so a change reaches it
only through the server's change feed, as between two computers."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import psycopg
import pytest

from engine.tm import TMOffline, open_tm
from engine.tm.shared import SharedTM, wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def client(url: str, folder, **kw) -> SharedTM:
    """One translator's handle, with its own replica in ``folder``, synced."""
    tm = SharedTM(url, replica_dir=folder, src_lang="en", tgt_lang="de", **kw)
    tm.search("The first search starts the first sync", k=1)
    assert wait_until(lambda: tm.replica.ready, 30), tm.feed_error
    return tm


def found(tm: SharedTM, text: str, target: str | None = None) -> bool:
    ms = tm.search(text, k=1, min_score=0.99)
    return bool(ms) and (target is None or ms[0].target.text == target)


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


def test_a_confirm_by_one_client_is_found_by_another_within_a_second(pg_url, tmp_path):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        times = []
        for i in range(5):
            t0 = time.monotonic()
            a.add(f"Translator A confirmed sentence number {i} today", f"A bestätigte Satz {i}", creator="ana")
            assert wait_until(lambda: found(b, f"Translator A confirmed sentence number {i} today"), 30)
            times.append(time.monotonic() - t0)
        # the change feed's notice, not its 10 s poll: the median of 5, as one of them may wait behind a busy
        # machine's other processes
        assert sorted(times)[2] < 1.0, times
        assert found(a, "Translator A confirmed sentence number 4 today")  # the writer's own, at once
        assert b.stats()["replica"]["ready"] and b.last_search  # answered by the local TM
    finally:
        a.close()
        b.close()


def test_results_carry_the_shared_units_author_and_date(pg_url, tmp_path):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        a.add("Open the settings dialog", "Öffnen Sie den Einstellungsdialog", creator="ana")
        assert wait_until(lambda: found(b, "Open the settings dialog"), 30)
        m = b.search("Open the settings dialog", k=1)[0]
        truth = a.get(m.entry.id)
        assert m.meta["creator"] == "ana" and m.meta["created"] == truth.meta["created"]
        assert m.entry.id == truth.id
    finally:
        a.close()
        b.close()


def test_edits_and_deletes_replicate(pg_url, tmp_path):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        uid = a.add("Close all windows", "Alle Fenster schließen")
        keep = a.add("Close the window", "Das Fenster schließen")
        assert wait_until(lambda: found(b, "Close all windows"), 30)
        a.update(uid, target="Sämtliche Fenster schließen")
        assert wait_until(lambda: found(b, "Close all windows", "Sämtliche Fenster schließen"), 30)
        a.delete(uid)
        assert wait_until(lambda: not found(b, "Close all windows"), 30)
        assert found(b, "Close the window") and b.get(keep).target.text == "Das Fenster schließen"
        assert b.replica.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0] == len(a) == 1
    finally:
        a.close()
        b.close()


def test_a_change_committed_late_with_an_older_change_id_is_not_skipped(pg_url, pg_server, tmp_path):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        uid = a.add("Print the page", "Seite drucken")
        assert wait_until(lambda: found(b, "Print the page"), 30)
        with psycopg.connect(pg_server[0]) as slow:  # takes its change id first, commits last
            slow.execute(f"UPDATE {a.schema}.units SET target = 'Die Seite drucken' WHERE id = %s", (uid,))
            a.add("Print the document", "Dokument drucken")  # a later change id, committed first
            assert wait_until(lambda: found(b, "Print the document"), 30)
            slow.commit()
        assert wait_until(lambda: found(b, "Print the page", "Die Seite drucken"), 30)
    finally:
        a.close()
        b.close()


def test_an_offline_client_searches_its_replica_and_catches_up_on_reconnect(pg_url, tmp_path, restartable):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        a.add("Save the file", "Datei speichern")
        assert wait_until(lambda: found(b, "Save the file"), 30)
        assert b.online
        restartable.stop()
        assert wait_until(lambda: not b.online, 30)
        assert found(b, "Save the file")  # offline: the replica answers
        with pytest.raises(TMOffline):
            b.add("Written while offline", "Offline geschrieben")
        restartable.start()
        a.add("Added while B was cut off", "Hinzugefügt, während B getrennt war")
        assert wait_until(lambda: found(b, "Added while B was cut off"), 30), b.feed_error
        assert b.online
    finally:
        a.close()
        b.close()


def test_a_client_opened_while_the_server_is_down_works_from_its_replica(pg_url, tmp_path, restartable):
    a = client(pg_url, tmp_path / "a")
    a.add("Undo the last step", "Den letzten Schritt rückgängig machen")
    a.close()
    restartable.stop()
    try:
        b = SharedTM(pg_url, replica_dir=tmp_path / "a")
        assert found(b, "Undo the last step")
        with pytest.raises(TMOffline):
            b.add("Not now", "Nicht jetzt")
    finally:
        restartable.start()
    try:
        c = client(pg_url, tmp_path / "c")
        c.add("Redo the step", "Den Schritt wiederholen")
        c.close()
        assert wait_until(lambda: found(b, "Redo the step"), 30), b.feed_error
        b.add("Now it works", "Jetzt geht es")
        assert found(b, "Now it works")
    finally:
        b.close()


def test_the_replica_is_a_cache_deleting_it_loses_nothing(pg_url, tmp_path):
    a = client(pg_url, tmp_path / "a")
    a.add_many([(f"Line {i} of the manual", f"Zeile {i} des Handbuchs") for i in range(30)])
    assert found(a, "Line 7 of the manual")
    a.close()
    shutil.rmtree(tmp_path / "a")
    b = client(pg_url, tmp_path / "a")
    try:
        assert found(b, "Line 7 of the manual") and len(b) == 30
        assert b.replica.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0] == 30
    finally:
        b.close()


def test_the_first_sync_reports_progress_and_can_be_cancelled(pg_url, tmp_path, monkeypatch):
    from engine.tm import replica

    with open_tm(pg_url, src_lang="en", tgt_lang="de") as w:
        w.add_many([(f"Segment {i} of the guide", f"Segment {i} der Anleitung") for i in range(100)])
    monkeypatch.setattr(replica, "BULK_BATCH", 10)
    seen, handle = [], []

    def progress(done, total):  # told on the feed thread
        seen.append((done, total))
        if done >= 30:
            wait_until(lambda: handle, 30)
            handle[0].cancel_sync()
    tm = SharedTM(pg_url, replica_dir=tmp_path / "r", progress=progress)
    handle.append(tm)
    assert seen == [] and found(tm, "Segment 42 of the guide")  # the first search starts the copy
    try:
        assert wait_until(lambda: "cancelled" in tm.feed_error, 30), tm.feed_error
        assert seen[0] == (0, 100) and (30, 100) in seen and not tm.replica.ready
        assert found(tm, "Segment 42 of the guide")  # from the server meanwhile
    finally:
        tm.close()
    tm = SharedTM(pg_url, replica_dir=tmp_path / "r", progress=lambda d, t: seen.append((d, t)), mode="wait")
    try:
        assert tm.replica.ready and seen[-1] == (100, 100) and (30, 100) in seen[-12:]
    finally:
        tm.close()


_SYNC_CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from engine.tm import replica
    from engine.tm.shared import SharedTM
    replica.BULK_BATCH = 20
    def told(done, total):
        print(done, flush=True)
        time.sleep(0.05)
    SharedTM({url!r}, replica_dir={folder!r}, progress=told, mode="wait")
    print("finished", flush=True)
""")


def test_a_first_sync_killed_half_way_resumes_and_ends_equal_to_the_server(pg_url, tmp_path):
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as w:
        w.add_many([(f"Paragraph {i} of the contract", f"Absatz {i} des Vertrags") for i in range(400)])
        ids = [e.id for e in w.entries()]
    folder = str(tmp_path / "r")
    child = subprocess.Popen([sys.executable, "-c", _SYNC_CHILD.format(root=ROOT, url=pg_url, folder=folder)],
                             stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    for line in child.stdout:
        if line.strip().isdigit() and int(line) >= 100:
            child.kill()
            break
    child.wait(30)
    assert child.returncode != 0  # killed, not finished
    with open_tm(pg_url) as w:  # meanwhile: an edit and a delete of units already copied, one new
        w.update(ids[5], target="Absatz 5 des Vertrags (geändert)")
        w.delete(ids[6])
        w.add("A clause added during the outage", "Eine Klausel, die in der Pause kam")
    seen = []
    tm = SharedTM(pg_url, replica_dir=folder, progress=lambda d, t: seen.append(d), mode="wait")
    try:
        assert seen[0] >= 100  # went on from where the killed sync stopped
        local = {r[0]: (r[1], r[2]) for r in tm.replica.tm.conn.execute("SELECT id, source, target FROM units")}
        truth = {e.id: (e.source.text, e.target.text) for e in tm.entries()}
        assert local == truth and len(truth) == 400
        assert found(tm, "Paragraph 5 of the contract", "Absatz 5 des Vertrags (geändert)")
        assert not found(tm, "Paragraph 6 of the contract")
        assert found(tm, "A clause added during the outage")
    finally:
        tm.close()


def test_a_tm_emptied_on_the_server_empties_every_replica(pg_url, pg_server, tmp_path):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        a.add("Delete everything", "Alles löschen")
        assert wait_until(lambda: found(b, "Delete everything"), 30)
        with psycopg.connect(pg_server[0], autocommit=True) as admin:  # no row triggers fire
            admin.execute(f"TRUNCATE {a.schema}.units")
        assert wait_until(lambda: b.replica.ready and not found(b, "Delete everything"), 30), b.feed_error
        a.add("A fresh start", "Ein Neuanfang")
        assert wait_until(lambda: found(b, "A fresh start"), 30)
    finally:
        a.close()
        b.close()


def test_a_replica_that_cannot_be_kept_current_is_not_searched(pg_url, tmp_path):
    a, b = client(pg_url, tmp_path / "a"), client(pg_url, tmp_path / "b")
    try:
        b.replica.tm.conn.close()  # as a disk that fails under the replica
        a.add("Written after the replica broke", "Geschrieben, nachdem das Replikat kaputtging")
        assert wait_until(lambda: b.feed_error.startswith("the replica stopped"), 30), b.feed_error
        assert found(b, "Written after the replica broke")  # from the server
        assert b.stats()["replica"]["why_not"].startswith("the replica stopped")
    finally:
        a.close()
        b.close()


def test_a_handle_never_searched_copies_nothing(pg_url, tmp_path):
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as w:
        w.add_many([(f"Row {i} of the training data", f"Zeile {i} der Trainingsdaten") for i in range(50)])
    tm = SharedTM(pg_url, replica_dir=tmp_path / "r")  # as training data, an export, an import read it
    try:
        assert len(list(tm.entries())) == 50  # the truth
        time.sleep(0.5)
        assert tm.replica.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0] == 0
        assert not tm.replica.ready and tm.syncing is None
    finally:
        tm.close()


def test_verso_tm_search_answers_from_the_replica_with_the_server_down(pg_url, tmp_path, restartable, capsys,
                                                                        monkeypatch):
    from engine.cli import main

    monkeypatch.setenv("VERSO_REPLICAS", str(tmp_path / "cache"))
    with open_tm(pg_url, src_lang="en", tgt_lang="de") as tm:
        tm.add("Save the file", "Datei speichern", creator="ana")
        tm.search("Save the file")  # the first search starts this computer's copy
        assert wait_until(lambda: tm.replica.ready, 30), tm.feed_error
    restartable.stop()
    try:
        assert main(["tm", "search", "--tm", pg_url, "--json", "Save the file"]) == 0
        hit = json.loads(capsys.readouterr().out)[0]
        assert hit["target"] == "Datei speichern" and hit["meta"]["creator"] == "ana"
    finally:
        restartable.start()
