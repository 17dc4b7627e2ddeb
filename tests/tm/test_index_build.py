"""The bulk build of a TM's search index (engine/tm/whoosh_index.py ``build_new``: a
rebuild, a large TM's background build, a replica's first sync) gives the same index
and the same search results as the build before issue 40 made it faster."""
from __future__ import annotations

import random

import pytest

from engine.fsutil import atomic_write
from engine.inline import TaggedText
from engine.tm import TranslationMemory
from engine.tm.index_schema import BLOCK_LIMIT, FORMAT, INDEX_NAME, doc_fields, make_schema
from engine.tm.seal import SealedStorage
from engine.tm.whoosh_index import new_index_id

WORDS = ("the file was saved to disk and then window closed before we could open another copy of "
         "document while printing page number one two three four layer selected items Datei "
         "Fenster öffnen 文件 保存 ファイル").split()


def _sentence(rng: random.Random) -> str:
    n = rng.randint(1, 20)
    words = [WORDS[min(int(rng.paretovariate(0.9)) - 1, len(WORDS) - 1)] for _ in range(n)]
    if rng.random() < 0.3:
        words[0] = words[0].capitalize()
    if rng.random() < 0.2:  # an inline tag: a token of the score, never an index term
        words.insert(rng.randrange(len(words) + 1), "\ue001")
    return " ".join(words) + rng.choice(["", ".", "?", " !", ","])


def _rebuild_as_before(tm: TranslationMemory) -> None:
    """``tm.rebuild_index()`` with the build as it was before issue 40: Whoosh's own codec
    (field lengths asked per posting) and posting pool (sorted tuples, spilled runs)."""
    import json
    import shutil

    from whoosh.codec.whoosh3 import W3Codec

    seq = tm.conn.execute("SELECT max(seq) FROM journal").fetchone()[0] or 0
    index_id = new_index_id()
    docs = tm.conn.execute("SELECT id, source, target, src_lang, tgt_lang, enc, senc, penc FROM units ORDER BY id")
    tm.index.close()
    new = tm.index.dir.with_name("index.new")
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir(parents=True)
    ix = SealedStorage(str(new), tm.index.seal).create_index(make_schema(), indexname=INDEX_NAME)
    w = ix.writer(limitmb=1, codec=W3Codec(blocklimit=BLOCK_LIMIT))  # 1 MB: runs spilled and merged
    for doc in docs:
        w.add_document(**doc_fields(*doc))
    w.commit(optimize=True)
    ix.close()
    with atomic_write(new / "state.json", "w", encoding="utf-8") as fh:
        json.dump({"format": FORMAT, "index_id": index_id, "seq": seq}, fh)
    tm.index.swap_in_new()
    tm._adopt_index(index_id, seq)


def _top(tm: TranslationMemory, queries: list[str], pair: tuple[str, str]) -> list[list[tuple[int, float]]]:
    return [[(m.entry.id, round(m.score, 12)) for m in tm.search(q, k=5, src_lang=pair[0], tgt_lang=pair[1])]
            for q in queries]


def _postings(tm: TranslationMemory) -> dict:
    out = {}
    for leaf in tm.index.leaves():
        for field in ("src", "tgt", "lp", "uid"):
            for t in leaf.terms(field):
                out[(field, t)] = sorted(leaf.uids[d] for d in leaf.postings(field, t).tolist())
    return out


@pytest.fixture
def built(tmp_path):
    rng = random.Random(40)
    tm = TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de")
    tm.add_many([(_sentence(rng), f"Ziel {i} {_sentence(rng)}") for i in range(2500)])
    tm.add_many([(_sentence(rng), f"cible {i}") for i in range(300)], src_lang="en", tgt_lang="fr")
    sources = [e.source.text for e in tm.entries()]
    queries = [_sentence(rng) for _ in range(200)] + rng.sample(sources, 60)
    queries += [" ".join(s.split()[::-1]) for s in rng.sample(sources, 40)]  # same words, other order
    yield tm, queries
    tm.close()


def test_the_faster_build_gives_the_same_postings_and_top_5_as_before(built):
    tm, queries = built
    _rebuild_as_before(tm)
    before = (_top(tm, queries, ("en", "de")), _top(tm, queries, ("en", "fr")), _postings(tm))
    tm.rebuild_index("as now")
    after = (_top(tm, queries, ("en", "de")), _top(tm, queries, ("en", "fr")), _postings(tm))
    assert sum(map(len, before[0])) > 800 and len(before[2]) > 100  # the queries find things
    assert after[0] == before[0] and after[1] == before[1]
    assert after[2] == before[2]


def test_an_index_built_now_opens_under_the_seal_and_takes_new_units(built):
    tm, queries = built
    tm.rebuild_index("as now")
    folder = tm.folder
    tm.close()
    with TranslationMemory(folder) as again:  # the sealed table of contents names the codec
        assert again.rebuilt_because == ""
        uid = again.add(TaggedText("A sentence added after the build"), TaggedText("Ein Satz danach"))
        again.flush()  # written to the index by the incremental writer
        assert again.search("A sentence added after the build", k=1)[0].entry.id == uid
    with TranslationMemory(folder) as third:
        assert third.rebuilt_because == ""
        assert third.search("A sentence added after the build", k=1)[0].score == 1.0
