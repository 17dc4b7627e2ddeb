"""While a TM's index is rebuilt (a TM folder new to this installation), its searches are answered
by a scan in a process of its own: the editor's process only sends the query and reads the answer,
so its UI thread keeps the interpreter."""
from __future__ import annotations

import os
import shutil
import signal
import threading
import time

import pytest

from engine.tm import index_process
from engine.tm import memory as memory_mod
from engine.tm.memory import TranslationMemory
from engine.tm.scan import ScanSearch
from engine.tm.scoring import Encoded

PAIRS = [(f"Sentence number {i} about layer {i % 13} and colour {i % 7}.",
          f"Satz Nummer {i} über Ebene {i % 13} und Farbe {i % 7}.") for i in range(600)]


@pytest.fixture
def rebuilding(tmp_path, monkeypatch):
    """A TM whose index must be rebuilt on opening, in the background, held before its build starts."""
    gate = threading.Event()
    real = index_process.BackgroundBuild.run

    def run(self):
        gate.wait(30)
        return real(self)

    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 100)
    monkeypatch.setattr(index_process.BackgroundBuild, "run", run)
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS)
    shutil.rmtree(tmp_path / "tm" / "index")
    t = TranslationMemory(tmp_path / "tm")
    try:
        yield t
    finally:
        gate.set()
        t.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie has ended
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_during_a_rebuild_the_best_match_comes_from_a_scan_in_another_process(rebuilding):
    t = rebuilding
    assert t.rebuilding is not None
    hit = t.search("Sentence number 42 about layer 3 and colour 0 !")[0]
    assert hit.target.text.startswith("Satz Nummer 42 ") and hit.score > 0.8
    assert t.last_search["scan"] and t.last_search["scan_pid"] != os.getpid()
    fuzzy = t.search("Sentence number 43 about the layer 4")[0]
    assert fuzzy.source.text.startswith("Sentence number 43 about layer 4 ")


def test_the_first_search_as_a_new_tm_opens_does_not_wait_for_the_scan_process_to_start(rebuilding):
    """The editor's first segment: answered from the nearest lengths in this process (SQLite reads
    them), the later searches by the scan process."""
    t = rebuilding
    hit = t.search("Sentence number 42 about layer 3 and colour 0 !", k=3, min_score=0.3)[0]
    assert hit.source.text.startswith("Sentence number 42 ") and t.last_search["scan_pid"] == os.getpid()
    hit = t.search("Sentence number 43 about layer 4 and colour 1 !", k=3, min_score=0.3)[0]
    assert hit.source.text.startswith("Sentence number 43 ") and t.last_search["scan_pid"] != os.getpid()


def test_a_unit_confirmed_during_the_rebuild_is_found_by_the_next_search(rebuilding):
    t = rebuilding
    t.search("Sentence number 1 about layer 1")                 # the scan has loaded its units
    uid = t.add("Rename the selected layer", "Ausgewählte Ebene umbenennen")
    assert t.search("Rename the selected layer")[0].entry.id == uid
    t.update(uid, target="Die ausgewählte Ebene umbenennen")
    assert t.search("Rename the selected layer")[0].target.text == "Die ausgewählte Ebene umbenennen"


def test_the_scan_process_ends_with_the_tm_and_a_killed_one_is_started_again(rebuilding):
    t = rebuilding
    t.search("Sentence number 7 about layer 7")
    pid = t.last_search["scan_pid"]
    os.kill(pid, signal.SIGKILL)
    hit = t.search("Sentence number 8 about layer 8 and colour 1.")[0]
    assert hit.score == 1.0 and t.last_search["scan_pid"] not in (pid, os.getpid())
    new = t.last_search["scan_pid"]
    t.close()
    deadline = time.monotonic() + 30  # a busy machine may be slow to end it, not wrong
    while _alive(new) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(new)


def test_the_scan_of_the_nearest_lengths_finds_the_best_match_without_reading_every_unit(tmp_path):
    """Bounded per query: units far longer or shorter than the query cannot beat a close match."""
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS + [(" ".join(["word"] * n) + f" long {n}", f"lang {n}") for n in range(30, 400)])
        scan = ScanSearch(t.conn, None)
        qa = memory_mod.analyse("Sentence number 42 about layer 3 and colour 0.")
        q = Encoded(*(t.vocab.encode_known(x) for x in (qa.core, qa.surface, qa.punct)))
        ranked, info = scan.best(q, 1, 0.0)
    assert ranked[0][0] == 1.0 and info["exact"]
    assert info["scanned"] <= len(PAIRS) < len(scan.ids)      # none of the long units was read


def test_a_search_sent_while_the_scan_process_reads_the_tm_is_answered_before_the_read_ends(tmp_path, monkeypatch):
    """A TM new to the installation: the first segment's matches come from the units of the lengths
    that can reach the minimum score, not after the whole TM is read -- and they are the same."""
    from engine.tm import scan as scan_mod

    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS + [(" ".join(["word"] * n) + f" long {n}", f"lang {n}") for n in range(30, 400)])
        qa = memory_mod.analyse("Sentence number 42 about layer 3 and colour 0.")
        q = [t.vocab.encode_known(x) for x in (qa.core, qa.surface, qa.punct)]
        total = len(t)
    monkeypatch.setattr(scan_mod, "LOAD_CHUNK", 50)  # the read takes many chunks: the search comes between
    answers = _serve_while_reading(tmp_path, q)
    first, second = answers
    assert first["early"] and first["exact"] and first["scanned"] < total   # the long units were never read
    assert "early" not in second
    assert first["ranked"][0] == second["ranked"][0] and first["ranked"][0][0] == 1.0
    monkeypatch.setattr(scan_mod, "EARLY_CAP", 100)  # a large TM: only the nearest lengths are read early
    first, second = _serve_while_reading(tmp_path, q)
    assert first["early"] and first["scanned"] <= len(PAIRS) and first["ranked"][0] == second["ranked"][0]


def _serve_while_reading(tmp_path, q) -> list[dict]:
    """The scan process's answers to two searches sent as it starts: one with a minimum score, one without."""
    import io
    import json
    import queue

    from engine.tm.scan_server import serve

    class Input(queue.Queue):  # the editor's lines, then the input closes once all are answered
        def get(self, block=True, timeout=None):
            return super().get(False) if not block or self.qsize() else None

    requests = Input()
    for min_score in (0.3, 0.0):                    # no minimum: no length bound, it waits for the whole read
        requests.put(json.dumps({"pair": ["en", "de"], "core": q[0], "surface": q[1], "punct": q[2],
                                 "need": 3, "min": min_score}).encode() + b"\n")
    out = io.BytesIO()
    serve(tmp_path / "tm" / "tm.sqlite", ("en", "de"), None, out, requests)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_the_first_search_of_a_new_tm_finds_units_with_quotes_backslashes_and_emoji(tmp_path, monkeypatch):
    """The first search reads the units of the nearest lengths as one JSON row from SQLite: every
    character comes back as stored."""
    gate = threading.Event()
    real = index_process.BackgroundBuild.run
    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 100)
    monkeypatch.setattr(index_process.BackgroundBuild, "run", lambda self: (gate.wait(30), real(self)))
    odd = ('Press "Save" \\ then C:\\temp\\new 😀 \u2028 now', 'Drücke „Speichern“ \\ dann C:\\temp\\new 😀 \u2028 jetzt')
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS[:300] + [odd])
    shutil.rmtree(tmp_path / "tm" / "index")
    t = TranslationMemory(tmp_path / "tm")
    try:
        assert t.rebuilding is not None
        hit = t.search(odd[0], k=3, min_score=0.3)[0]
        assert t.last_search["scan_pid"] == os.getpid()  # the first search: the nearest lengths, here
        assert (hit.score, hit.source.text, hit.target.text) == (1.0, odd[0], odd[1])
    finally:
        gate.set()
        t.close()
