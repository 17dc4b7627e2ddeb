"""The memory-mapped posting files beside large index segments (engine.tm.postfile): searches
read them with the same results as Whoosh's postings, units added since they were built are
still found, a changed file is never read, and shared word bigrams order the candidates."""
import random

import numpy as np
import pytest

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
