"""The editor's status bar says what a shared TM's local replica is doing -- its first
copy (with Cancel), then ready; offline, searching this computer's copy; back -- with a
real PostgreSQL server that the tests stop and start (tests/pgserver_helper.py)."""
from __future__ import annotations

import json
import os
import re
import threading

import pytest
from PySide6.QtCore import Qt

from engine.inline import TaggedText
from engine.tm import open_tm
from engine.tm.shared import SharedTM
from editor_helpers import make_project
from test_editor import enter, open_window


@pytest.fixture(scope="module")
def pg():
    from pgserver_helper import find_bin, start_server

    url, srv, why = start_server()
    if not url:
        if os.environ.get("VERSO_REQUIRE_PG") or find_bin() is not None:
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    if srv is None:
        pytest.skip("the server is not ours to stop (VERSO_TEST_PG)")
    yield url, srv
    srv.cleanup()


@pytest.fixture
def shared(pg, tmp_path, monkeypatch, request):
    """(a fresh shared TM's URL of ``n`` handbook paragraphs + 'Save the file', the server, a gate);
    copies of 2 units per batch and a status polled every 50 ms; each replica's first copy holds
    after its first batch until the test opens the gate, so that the copy is seen however fast the
    machine (the window's first lookup starts it while the window opens)."""
    from engine.tm import replica

    base, srv = pg
    url = f"{base}{'&' if '?' in base else '?'}tm={request.node.name[5:30].lower()}_{os.getpid()}"
    monkeypatch.setenv("VERSO_REPLICAS", str(tmp_path / "replicas"))
    monkeypatch.setattr(replica, "BULK_BATCH", 2)
    monkeypatch.setattr("app.tmservice.POLL_MS", 50)
    gate, missing = threading.Event(), replica.Replica._missing_vocab

    def held(self, conn, rows):
        self._batches_copied = getattr(self, "_batches_copied", 0) + 1
        if self._batches_copied > 1:
            gate.wait(60)
        return missing(self, conn, rows)

    monkeypatch.setattr(replica.Replica, "_missing_vocab", held)
    with open_tm(url, src_lang="en", tgt_lang="de") as tm:
        tm.add_many([(f"Paragraph {i} of the handbook", f"Absatz {i} des Handbuchs") for i in range(400)]
                    + [("Save the file", "Datei speichern")])
    yield url, srv, gate
    gate.set()
    try:
        srv.start()  # (a test that failed while the server was down)
    except Exception:  # noqa: BLE001 - already running
        pass


def _project(tmp_path, url: str):
    from engine.store import Project, trusted

    folder = make_project(tmp_path / "p", ["Save the file.", "Paragraph 7 of the handbook.", "Print the page."],
                          tm=False)
    with Project.open(folder) as p:
        p.set_setting("tms", json.dumps([{"path": url, "writable": True}]))
    trusted.confirm_servers([url])  # the user's word for the server (a received project's is refused)
    return folder


def _bar(win):
    from app.tmstatus import ReplicaStatus, TMStatusLabel

    bar = win.statusBar()
    return bar.findChild(ReplicaStatus, ReplicaStatus.NAME), bar.findChild(TMStatusLabel, TMStatusLabel.NAME)


def _first_target(win) -> str:
    return win.matches.matches[0].match.target.text if win.matches.matches else ""


def test_the_status_shows_the_copy_then_offline_searching_the_copy_then_back_with_another_clients_unit(
        qtbot, tmp_path, shared):
    url, srv, gate = shared
    folder = _project(tmp_path, url)
    win = open_window(qtbot, folder)
    copy, state = _bar(win)
    # what the status shows already, then each change: the copy can start, and be shown, while the window opens
    seen: list[str] = [win.tm._replica_shown[0]]
    win.tm.replica_state.connect(lambda msg, cancellable: seen.append(msg))
    enter(qtbot, win, 0)  # the first lookup starts this computer's copy (answered by the server meanwhile)
    assert _first_target(win) == "Datei speichern"
    qtbot.waitUntil(lambda: any("copying" in m for m in seen), timeout=30_000)
    gate.set()
    name = win.tm.infos[0].name
    assert re.fullmatch(rf"Shared TM {re.escape(name)}: copying [\d,]+ of 401 units", next(
        m for m in seen if "copying" in m))
    tm = win.tm.tms[0]
    qtbot.waitUntil(lambda: tm.replica.ready and not copy.isVisible(), timeout=30_000)
    assert not state.isVisible()  # ready: nothing to say

    srv.stop()
    qtbot.waitUntil(lambda: state.isVisible() and "offline" in state.toolTip(), timeout=30_000)
    assert re.fullmatch(rf"Shared TM {re.escape(name)} offline: searching your copy \(401 units, as of "
                        r"\d\d:\d\d\)", state.toolTip())
    enter(qtbot, win, 1)  # searches go on, from the replica (the server is down)
    assert _first_target(win) == "Absatz 7 des Handbuchs"
    win.tm.add(TaggedText("Confirmed while offline"), TaggedText("Offline bestätigt"))  # waits in the outbox
    qtbot.waitUntil(lambda: "1 confirmed segment(s) waiting" in state.toolTip(), timeout=30_000)
    assert win.tm.tms[0] is tm  # still searched: its replica answers

    srv.start()
    other = SharedTM(url, replica_dir=tmp_path / "other", src_lang="en", tgt_lang="de")
    try:
        other.add("Print the page", "Seite drucken", creator="eva")  # another client, meanwhile
    finally:
        other.close()
    qtbot.waitUntil(lambda: not state.isVisible(), timeout=30_000)  # back: the outbox sent
    enter(qtbot, win, 2)
    qtbot.waitUntil(lambda: _first_target(win) == "Seite drucken", timeout=30_000)
    assert win.tm.outbox().pending() == 0
    with open_tm(url) as truth:
        assert truth.search("Confirmed while offline", k=1)[0].score == 1.0


def test_cancel_stops_the_first_copy_searches_go_to_the_server_and_the_next_opening_finishes_it(
        qtbot, tmp_path, shared):
    url, _, gate = shared
    folder = _project(tmp_path, url)
    win = open_window(qtbot, folder)
    copy, _ = _bar(win)
    enter(qtbot, win, 0)
    qtbot.waitUntil(lambda: copy.isVisible() and copy.cancel.isVisible(), timeout=30_000)
    qtbot.mouseClick(copy.cancel, Qt.LeftButton)
    gate.set()
    qtbot.waitUntil(lambda: "copy cancelled" in copy.label.text(), timeout=30_000)
    tm = win.tm.tms[0]
    copied = tm.replica.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0]
    assert not tm.replica.ready and 0 < copied < 401 and not copy.cancel.isVisible()
    enter(qtbot, win, 1)  # from the server
    assert _first_target(win) == "Absatz 7 des Handbuchs"
    win.close()

    win = open_window(qtbot, folder)
    copy, _ = _bar(win)
    enter(qtbot, win, 0)
    tm = win.tm.tms[0]
    qtbot.waitUntil(lambda: tm.replica.ready and not copy.isVisible(), timeout=30_000)
    assert tm.replica.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0] == 401
    enter(qtbot, win, 1)  # from the replica now
    assert _first_target(win) == "Absatz 7 des Handbuchs"
