"""After a crash half way through indexing a large TM, the first search answers
at once (from SQLite) while the index is rebuilt in the background."""
from __future__ import annotations

import shutil
import threading

import pytest

from engine.tm import index_process
from engine.tm import memory as memory_mod
from engine.tm.memory import TranslationMemory

PAIRS = [(f"Sentence number {i} about layer {i % 13} and colour {i % 7}.",
          f"Satz Nummer {i} über Ebene {i % 13} und Farbe {i % 7}.") for i in range(300)]


@pytest.fixture
def slow_build(monkeypatch):
    """Rebuilds on opening go to the background from 100 units, and wait for ``gate`` (before
    their build process starts)."""
    gate = threading.Event()
    real = index_process.BackgroundBuild.run

    def run(self):
        gate.wait(30)
        return real(self)

    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 100)
    monkeypatch.setattr(index_process.BackgroundBuild, "run", run)
    return gate


def _crashed_mid_index(folder):
    with TranslationMemory(folder, src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS)
    shutil.rmtree(folder / "index")   # what a kill during the index build leaves: no usable index


def test_the_first_search_after_a_crash_mid_index_answers_from_sqlite_while_the_index_is_rebuilt(
        tmp_path, slow_build):
    _crashed_mid_index(tmp_path / "tm")
    progress = []
    t = TranslationMemory(tmp_path / "tm", progress=lambda done, total: progress.append((done, total)))
    try:
        assert t.rebuilding is not None                          # opened without waiting
        hit = t.search("Sentence number 42 about layer 3 and colour 0.")[0]
        assert hit.score == 1.0 and hit.target.text.startswith("Satz Nummer 42 ")
        assert t.last_search.get("scan")
        uid = t.add("Rename the layer", "Ebene umbenennen")      # found during the rebuild ...
        assert t.search("Rename the layer")[0].entry.id == uid
        assert any(h.entry.id for h in t.concordance("colour 0"))
        assert t.stats()["rebuilding"] is not None
        slow_build.set()
        assert t.wait_for_index(30)
        assert t.rebuilding is None and progress[-1][0] == progress[-1][1] >= len(PAIRS)  # (the snapshot may hold the add)
        assert t.search("Rename the layer")[0].entry.id == uid      # ... and after it
        assert not t.last_search.get("scan")
        assert t.stats()["indexed"] + t.stats()["pending"] == len(PAIRS) + 1
    finally:
        slow_build.set()
        t.close()


@pytest.mark.parametrize("finished", [False, True])
def test_closing_during_a_background_rebuild_loses_nothing(tmp_path, slow_build, finished):
    _crashed_mid_index(tmp_path / "tm")
    t = TranslationMemory(tmp_path / "tm")
    uid = t.add("Rename the layer", "Ebene umbenennen")
    slow_build.set()
    if finished:
        t._bg.join(30)                                            # built, not yet swapped in
    t.close()                                                     # cancels the build, or puts it in place
    assert not (tmp_path / "tm" / "index.new").exists()
    if finished:
        assert (tmp_path / "tm" / "index").is_dir()
    with TranslationMemory(tmp_path / "tm") as t2:
        t2.wait_for_index(30)
        assert t2.search("Rename the layer")[0].entry.id == uid
        assert len(t2) == len(PAIRS) + 1


def test_the_background_rebuild_runs_in_a_process_of_its_own(tmp_path):
    """Not on a thread of the editor's process: there it held the interpreter lock and the UI stood still."""
    import os

    _crashed_mid_index(tmp_path / "tm")
    progress = []
    bg = index_process.BackgroundBuild(tmp_path / "tm" / TranslationMemory.DB_NAME, tmp_path / "tm" / "index",
                                       lambda done, total: progress.append((done, total)))
    bg.start()
    bg.join(60)
    assert bg.error is None and bg.result is not None
    assert bg.pid is not None and bg.pid != os.getpid()
    assert progress[-1] == (len(PAIRS), len(PAIRS))


def test_a_rebuild_that_fails_in_its_process_says_so_in_one_line(tmp_path):
    (tmp_path / "tm").mkdir()
    (tmp_path / "tm" / TranslationMemory.DB_NAME).write_bytes(b"not a database" * 100)
    bg = index_process.BackgroundBuild(tmp_path / "tm" / TranslationMemory.DB_NAME, tmp_path / "tm" / "index", None)
    bg.start()
    bg.join(60)
    assert bg.result is None and "index rebuild failed" in str(bg.error) and "\n" not in str(bg.error)
