"""What a killed index build or a stranger leaves in a TM folder (issue 45, item 6): a killed build
process is restarted while searches scan SQLite, saying nothing; a stale ``index.new`` -- a folder,
a file, a link -- is removed and the index rebuilt; a link is removed, never what it points to."""
from __future__ import annotations

import os
import shutil
import signal
import time

from engine.tm.memory import TranslationMemory

from test_index_recovery import PAIRS, _crashed_mid_index, slow_build  # noqa: F401  (the fixture)


def test_a_killed_index_build_is_restarted_and_the_next_search_answers(tmp_path, slow_build):  # noqa: F811
    _crashed_mid_index(tmp_path / "tm")
    t = TranslationMemory(tmp_path / "tm")
    try:
        first = t._bg
        slow_build.set()
        deadline = time.monotonic() + 30
        while first.pid is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(first.pid, signal.SIGKILL)
        first.join(30)
        assert first.error is not None                      # it died without an answer ...
        hit = t.search("Sentence number 42 about layer 3 and colour 0.")[0]   # ... and no one is told
        assert hit.score == 1.0 and hit.target.text.startswith("Satz Nummer 42 ")
        assert t.wait_for_index(60)                         # built again
        assert t.search("Sentence number 7 about layer 7 and colour 0.")[0].score == 1.0
        assert not t.last_search.get("scan")
    finally:
        t.close()


def _tm_without_index(folder):
    with TranslationMemory(folder, src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS[:20])
    shutil.rmtree(folder / "index")


def _searches(folder):
    with TranslationMemory(folder) as t:
        return t.search(PAIRS[3][0])[0].target.text == PAIRS[3][1]


def test_a_stale_index_new_folder_or_file_is_removed_and_the_index_rebuilt(tmp_path):
    _tm_without_index(tmp_path / "a")
    (tmp_path / "a" / "index.new").mkdir()
    (tmp_path / "a" / "index.new" / "MAIN_x.seg").write_bytes(b"half written")
    assert _searches(tmp_path / "a")
    _tm_without_index(tmp_path / "b")
    (tmp_path / "b" / "index.new").write_text("not a folder")
    assert _searches(tmp_path / "b")
    assert not (tmp_path / "b" / "index.new").exists()


def test_links_named_like_the_index_are_removed_not_followed(tmp_path):
    outside = tmp_path / "someone's folder"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    _tm_without_index(tmp_path / "a")
    (tmp_path / "a" / "index.new").symlink_to(outside, target_is_directory=True)
    assert _searches(tmp_path / "a")
    _tm_without_index(tmp_path / "b")
    (tmp_path / "b" / "index").symlink_to(outside, target_is_directory=True)
    (tmp_path / "b" / "index.old").symlink_to(outside, target_is_directory=True)
    assert _searches(tmp_path / "b")
    with TranslationMemory(tmp_path / "b") as t:
        t.rebuild_index()                                    # and again: no leftover in the way
        assert not (tmp_path / "b" / "index").is_symlink()
    assert sorted(os.listdir(outside)) == ["keep.txt"] and (outside / "keep.txt").read_text() == "mine"
