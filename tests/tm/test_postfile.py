"""The memory-mapped posting files beside large index segments (engine.tm.postfile): searches
read them with the same results as Whoosh's postings, units added since they were built are
still found, a changed file is never read, and shared word bigrams order the candidates."""
import errno
import os
import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from engine import fsutil
from engine.tm import TranslationMemory, token_score
from engine.tm import memory_search as tm_memory
from engine.tm import postfile

WORDS = ("the file was saved to disk and then the window closed before we could open "
         "another copy of the document while printing page number one two three four").split()


def _sentence(rng: random.Random) -> str:
    n = rng.randint(1, 24)
    return " ".join(WORDS[min(int(rng.paretovariate(0.8)) - 1, len(WORDS) - 1)] for _ in range(n)) + "."


def _exhaustive(tm, query: str, k: int) -> list[float]:
    scores = sorted((token_score(query, e.source.text) for e in tm.entries()), reverse=True)
    return [s for s in scores if s > 0][:k]


def _with_files(tm) -> list:
    tm.index.leaves()
    tm.index.postfiles.poll(wait=True)
    return [leaf for leaf in tm.index.leaves() if leaf.postfile is not None]


@pytest.fixture
def big_tm(tmp_path, monkeypatch):
    monkeypatch.setattr(postfile, "MIN_DOCS", 500)
    rng = random.Random(3)
    tm = TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de")
    tm.add_many((_sentence(rng), f"t{i}") for i in range(1200))
    tm.flush()
    yield tm, rng
    tm.close()


def test_searches_with_posting_files_give_the_exhaustive_top_k(big_tm, monkeypatch):
    tm, rng = big_tm
    assert _with_files(tm)
    monkeypatch.setattr(TranslationMemory, "FLUSH_AT", 40)
    for i in range(100):  # small segments without a file (Whoosh's postings) and the overlay
        tm.add(_sentence(rng), f"new {i}")
    for uid in rng.sample([e.id for e in tm.entries()], 30):
        tm.delete(uid)
    sources = [e.source.text for e in tm.entries()]
    for q in [_sentence(rng) for _ in range(20)] + rng.sample(sources, 10):
        got = [m.score for m in tm.search(q, k=5)]
        assert got == pytest.approx(_exhaustive(tm, q, 5), abs=1e-9), q
        assert tm.last_search["exact"]
    assert any(leaf.postfile is None for leaf in tm.index.leaves())


def test_a_unit_added_after_the_file_was_built_is_found(big_tm):
    tm, _ = big_tm
    assert _with_files(tm)
    tm.add("zebra crossings glow purple tonight", "neu")
    tm.flush()
    assert tm.search("zebra crossings glow purple tonight", k=1)[0].target.text == "neu"


def test_a_changed_posting_file_is_not_read_and_is_built_again(big_tm, tmp_path):
    tm, rng = big_tm
    leaf = _with_files(tm)[0]
    docs = tmp_path / "tm" / "index" / postfile.names(leaf.segid)[3]
    good = np.load(docs, allow_pickle=False)
    q = _sentence(rng)
    want = [m.score for m in tm.search(q, k=5)]
    tm.close()
    np.save(docs, np.zeros_like(good), allow_pickle=False)  # same shape, other documents
    tm = TranslationMemory(tmp_path / "tm")
    try:
        assert all(lf.postfile is None for lf in tm.index.leaves())  # the seal no longer matches
        assert [m.score for m in tm.search(q, k=5)] == pytest.approx(want)
        leaf = _with_files(tm)[0]  # built again and sealed
        assert np.array_equal(np.load(docs, allow_pickle=False), good)
        # sealed by this installation but out of range: refused by the checks
        bad = good.copy()
        bad[-1] = leaf.count
        np.save(docs, bad, allow_pickle=False)
        tm.index.seal.record(docs.parent, [docs.name])
        assert postfile._load(docs.parent, tm.index.seal, leaf) is None
    finally:
        tm.close()


def test_a_posting_file_never_unpickles(big_tm, tmp_path):
    tm, _ = big_tm
    leaf = _with_files(tm)[0]
    meta = tmp_path / "tm" / "index" / postfile.names(leaf.segid)[0]
    np.save(meta, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    tm.index.seal.record(meta.parent, [meta.name])  # even sealed: an object array is refused
    assert postfile._load(meta.parent, tm.index.seal, leaf) is None


def test_the_unit_sharing_the_query_in_word_order_is_verified_first(tmp_path, monkeypatch):
    """A long query, a hundred units with its words shuffled and one with them in order and a
    word more (Dice and the bound prefer the shuffled ones): with a verification limit of 8 the
    search still returns the unit in word order (shared bigrams order the candidates)."""
    monkeypatch.setattr(postfile, "MIN_DOCS", 50)
    monkeypatch.setattr(tm_memory, "VERIFY_LIMIT", (8, 8))
    rng = random.Random(5)
    words = ("members of the committee agreed that the report on regional transport should be "
             "sent back to the council before the summer recess").split()
    units = []
    for i in range(100):
        w = words[:]
        rng.shuffle(w)
        units.append((" ".join(w), f"shuffled {i}"))
    units.insert(rng.randrange(100), (" ".join(words + ["today"]), "in order"))
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many(units)
        tm.flush()
        assert _with_files(tm)
        ms = tm.search(" ".join(words), k=1)
        assert ms[0].target.text == "in order"


def test_many_terms_looked_up_at_once_find_the_same_postings_as_one_by_one():
    # documents as code points: the search looks up a long query's 100-300 terms in one call
    docs = [[300, 301, 300], [301, 302], [300], [305, 300, 301]]
    keys, offs, post, cb, kb = postfile.build_arrays(np.array(sum(docs, []), np.uint32),
                                                     np.array([len(d) for d in docs]))
    pf = postfile.PostFile(keys, offs, post, cb, kb)
    asked = [pf.unigram(300, 1), pf.unigram(300, 2), pf.unigram(304, 1), pf.unigram(299, 1),
             pf.unigram(9999, 1), None, pf.bigram(300, 301), pf.bigram(302, 300), pf.unigram(305, 1)]
    starts, ends = pf.spans(asked)
    assert list(zip(starts, ends)) == [pf.span(k) for k in asked]
    assert [pf.docs[a:b].tolist() for a, b in zip(starts, ends)][:2] == [[0, 2, 3], [0]]


def _builds_started(monkeypatch) -> list:
    started: list = []
    start = postfile._Build.start

    def counted(self):
        started.append(self)
        start(self)

    monkeypatch.setattr(postfile._Build, "start", counted)
    return started


def _post_files(folder) -> list[str]:
    return sorted(p.name for p in (folder / "index").iterdir() if p.name.startswith("post_"))


def test_a_command_that_searches_once_starts_no_build_and_leaves_no_file(big_tm, tmp_path, monkeypatch):
    tm, rng = big_tm
    tm.close()
    started = _builds_started(monkeypatch)
    with TranslationMemory(tmp_path / "tm") as cli:  # `verso tm search TEXT`: open, one search, exit
        assert cli.search(_sentence(rng), k=5)
        assert len(cli.index.leaves()) == 1
    assert started == []
    assert _post_files(tmp_path / "tm") == []


def test_the_second_search_builds_the_file_and_a_later_one_reads_it(big_tm, tmp_path, monkeypatch):
    tm, rng = big_tm
    started = _builds_started(monkeypatch)
    q = _sentence(rng)
    want = [m.score for m in tm.search(q, k=5)]
    assert started == []
    assert [m.score for m in tm.search(q, k=5)] == want
    assert len(started) == 1
    started[0].join()
    assert [m.score for m in tm.search(q, k=5)] == want
    assert all(leaf.postfile is not None for leaf in tm.index.leaves())
    assert _post_files(tmp_path / "tm") == sorted(postfile.names(tm.index.leaves()[0].segid))


def _close_while_building(tm, rng, started, release) -> None:
    """Search twice (the second search starts the build), close the TM while the build is held by
    ``release``, then let it go on and wait for its thread to end."""
    tm.search(_sentence(rng), k=5)
    tm.search(_sentence(rng), k=5)
    assert len(started) == 1 and started[0].is_alive()
    tm.close()
    release.set()
    started[0].join()


def test_closing_the_tm_during_a_build_leaves_no_temporary_file(big_tm, tmp_path, monkeypatch):
    tm, rng = big_tm
    started, release = _builds_started(monkeypatch), threading.Event()
    build = postfile.build_arrays

    def slow(*a):
        release.wait(10)
        return build(*a)

    monkeypatch.setattr(postfile, "build_arrays", slow)
    _close_while_building(tm, rng, started, release)
    assert _post_files(tmp_path / "tm") == []


def test_reading_the_index_again_does_not_check_a_kept_file_again(big_tm, monkeypatch):
    tm, rng = big_tm
    leaf = _with_files(tm)[0]
    checks: list = []
    check = postfile._check
    monkeypatch.setattr(postfile, "_check", lambda *a: checks.append(a) or check(*a))
    tm.add("zebra crossings glow purple tonight", "neu")
    tm.flush()  # a new segment: the index is read again
    assert tm.search("zebra crossings glow purple tonight", k=1)[0].target.text == "neu"
    again = [lf for lf in tm.index.leaves() if lf.segid == leaf.segid][0]
    assert again is not leaf and again.postfile is leaf.postfile
    assert checks == []
    # a file replaced since (another process built it again) is checked again
    docs = tm.index.dir / postfile.names(leaf.segid)[3]
    good = np.load(docs, allow_pickle=False)
    docs.unlink()
    np.save(docs, good, allow_pickle=False)
    tm.index.seal.record(docs.parent, [docs.name])
    tm.index._drop_reader()
    assert [lf.postfile for lf in tm.index.leaves() if lf.segid == leaf.segid][0] is not None
    assert len(checks) == 1


def test_only_abandoned_builds_of_this_machine_are_removed(tmp_path):
    """A TM folder on a team drive: another machine's build in progress is never removed (its process
    number means nothing here); this machine's whose process ended is, and anyone's after an hour."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    me, other = fsutil.host_tag(), "0123abcd" if fsutil.host_tag() != "0123abcd" else "abcd0123"
    names = {"mine_gone": f"post_S_1.docs.npy.{me}-{gone.pid}.7.tmp",
             "mine_alive": f"post_S_1.keys.npy.{me}-{os.getpid()}.7.tmp",
             "other": f"post_S_1.offs.npy.{other}-{gone.pid}.7.tmp",
             "other_old": f"post_S_1.meta.npy.{other}-{gone.pid}.8.tmp",
             "other_segment": f"post_T_2.docs.npy.{other}-{gone.pid}.7.tmp",
             "gone_segment": "post_U_3.docs.npy"}
    for n in names.values():
        (tmp_path / n).write_bytes(b"x")
    old = time.time() - 2 * fsutil.STALE_TEMP_S
    os.utime(tmp_path / names["other_old"], (old, old))
    postfile._drop_orphans(tmp_path, "S_1")
    postfile.drop_others(tmp_path, {"S_1"})
    left = {k for k, n in names.items() if (tmp_path / n).exists()}
    assert left == {"mine_alive", "other", "other_segment"}


def _temporaries(folder, segid: str = "") -> list[str]:
    return [n for n in _post_files(folder) if n.endswith(".tmp") and n.startswith(f"post_{segid}")]


def test_closing_the_tm_after_a_build_finished_unread_leaves_no_temporary_file(big_tm, tmp_path, monkeypatch):
    """The build ended but no search put its files in place yet: closing removes its 4 temporaries
    (~100 MB at 752k units) at once, not an hour later or when the application exits."""
    tm, rng = big_tm
    started = _builds_started(monkeypatch)
    tm.search(_sentence(rng), k=5)
    tm.search(_sentence(rng), k=5)
    assert len(started) == 1
    started[0].join()
    assert len(_temporaries(tmp_path / "tm")) == 4
    tm.close()
    assert _post_files(tmp_path / "tm") == []


def _merge_away(tm, rng) -> None:
    """Five one-unit flushes: Whoosh merges the small segments into one new segment."""
    for i in range(5):
        tm.add(f"{_sentence(rng)} merged{i}", f"m{i}")
        tm.flush()


@pytest.mark.parametrize("when", ["during", "after"])
def test_a_segment_merged_away_around_its_build_leaves_no_temporary_file(tmp_path, monkeypatch, when):
    monkeypatch.setattr(postfile, "MIN_DOCS", 2)
    started, release = _builds_started(monkeypatch), threading.Event()
    build = postfile.build_arrays

    def slow(*a):
        release.wait(10)
        return build(*a)

    if when == "during":
        monkeypatch.setattr(postfile, "build_arrays", slow)
    else:
        release.set()
    rng = random.Random(7)
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many((_sentence(rng), f"t{i}") for i in range(3))
        tm.flush()
        (segid,) = [leaf.segid for leaf in tm.index.leaves()]
        tm.search(_sentence(rng), k=5)
        tm.search(_sentence(rng), k=5)
        assert [job.leaf.segid for job in started] == [segid]
        if when == "after":
            started[0].join()
        _merge_away(tm, rng)
        tm.stats()  # the index read again (the TM panel's figures): the segment is gone
        assert segid not in {leaf.segid for leaf in tm.index.leaves()}
        assert tm.search("merged4", k=1)
        release.set()
        started[0].join()
        assert tm.search("merged4", k=1)
        assert _temporaries(tmp_path / "tm", segid) == []
    assert _temporaries(tmp_path / "tm") == []


def test_a_build_that_fills_the_disk_leaves_no_temporary_file_and_searches_still_answer(big_tm, tmp_path,
                                                                                       monkeypatch):
    tm, rng = big_tm
    started = _builds_started(monkeypatch)
    save, parts = np.save, []

    def disk_full(fh, a, allow_pickle=True):
        parts.append(a)
        if len(parts) < 3:
            return save(fh, a, allow_pickle=allow_pickle)
        fh.write(b"\x93NUMPY partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(postfile.np, "save", disk_full)
    q = _sentence(rng)
    want = [m.score for m in tm.search(q, k=5)]
    tm.search(q, k=5)
    started[0].join()
    assert isinstance(started[0].error, OSError)
    assert [m.score for m in tm.search(q, k=5)] == want  # from Whoosh's postings
    assert [m.score for m in tm.search(q, k=5)] == pytest.approx(_exhaustive(tm, q, 5), abs=1e-9)
    assert all(leaf.postfile is None for leaf in tm.index.leaves())
    assert _post_files(tmp_path / "tm") == []


def test_a_built_file_that_cannot_be_put_in_place_leaves_no_temporary_file(big_tm, tmp_path, monkeypatch):
    tm, rng = big_tm
    started = _builds_started(monkeypatch)
    replace, moved = os.replace, []

    def refused(src, dst, *a, **kw):
        if os.path.basename(src).startswith("post_"):
            moved.append(src)
            if len(moved) == 2:
                raise PermissionError(errno.EACCES, "Permission denied", str(dst))
        return replace(src, dst, *a, **kw)

    monkeypatch.setattr(postfile.os, "replace", refused)
    q = _sentence(rng)
    want = [m.score for m in tm.search(q, k=5)]
    tm.search(q, k=5)
    started[0].join()
    assert [m.score for m in tm.search(q, k=5)] == want
    assert len(moved) == 2
    assert _temporaries(tmp_path / "tm") == []


def test_closing_the_tm_while_a_build_reads_its_segment_skips_the_sort(big_tm, tmp_path, monkeypatch):
    """A TM closed and opened again and searched twice would otherwise hold two builds' sorts at
    once (~2 GB each at 752k units)."""
    tm, rng = big_tm
    started, release, sorted_ = _builds_started(monkeypatch), threading.Event(), []
    read, build = postfile._code_points, postfile.build_arrays

    def slow_read(leaf):
        release.wait(10)
        return read(leaf)

    monkeypatch.setattr(postfile, "_code_points", slow_read)
    monkeypatch.setattr(postfile, "build_arrays", lambda *a: sorted_.append(a) or build(*a))
    _close_while_building(tm, rng, started, release)
    assert sorted_ == []
    assert _post_files(tmp_path / "tm") == []
