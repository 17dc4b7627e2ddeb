"""A TM whose index is rebuilt as it opens, held (open_tm's ``hold``): neither the build's process
nor the scan's starts until the hold is set -- the editor's first TM match comes first -- and the
index is still built once it is."""
from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from engine.tm import memory as memory_mod
from engine.tm.memory import TranslationMemory

PAIRS = [(f"Sentence number {i} about layer {i % 13} and colour {i % 7}.",
          f"Satz Nummer {i} über Ebene {i % 13} und Farbe {i % 7}.") for i in range(600)]


def _children() -> set[int]:
    me, out = str(os.getpid()), set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me and fields[0] != "Z":
                out.add(int(pid))
    return out


@pytest.fixture
def new_tm(tmp_path, monkeypatch):
    """A TM folder whose index is missing (rebuilt in the background as it opens)."""
    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 100)
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS)
    shutil.rmtree(tmp_path / "tm" / "index")
    return tmp_path / "tm"


def test_a_held_tm_answers_its_first_search_and_starts_no_process_until_released(new_tm):
    before = _children()
    hold = threading.Event()
    t = TranslationMemory(new_tm, hold=hold)
    try:
        hit = t.search("Sentence number 42 about layer 3 and colour 0 !", k=3, min_score=0.3)[0]
        assert hit.source.text.startswith("Sentence number 42 ") and t.last_search["scan_pid"] == os.getpid()
        time.sleep(0.6)
        assert _children() == before and t.rebuilding == (0, 0)
        hold.set()
        assert t.wait_for_index(60) and t.rebuilding is None
        hit = t.search("Sentence number 43 about layer 4 and colour 1 !", k=3, min_score=0.3)[0]
        assert hit.source.text.startswith("Sentence number 43 ") and not t.last_search.get("scan")
    finally:
        t.close()


def test_a_search_the_scan_process_must_answer_starts_it_without_waiting_for_the_release(new_tm):
    hold = threading.Event()
    t = TranslationMemory(new_tm, hold=hold)
    try:
        t.search("Sentence number 42 about layer 3 and colour 0 !", k=3, min_score=0.3)
        hit = t.search("Sentence number 43 about layer 4 and colour 1 !", k=3, min_score=0.3)[0]
        assert hit.source.text.startswith("Sentence number 43 ") and t.last_search["scan_pid"] != os.getpid()
        assert t.rebuilding == (0, 0)  # the build still waits
    finally:
        t.close()
        hold.set()


def test_a_held_tm_closed_before_its_release_starts_nothing_after(new_tm):
    before = _children()
    hold = threading.Event()
    TranslationMemory(new_tm, hold=hold).close()
    hold.set()
    time.sleep(0.6)
    assert _children() == before
    assert not [th for th in threading.enumerate() if th.name in ("verso-tm-scan-hold", "verso-tm-index")]
