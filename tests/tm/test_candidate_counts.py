"""The candidate stage's shared-token counts (engine.tm.candidates): whatever the query's length --
under 256 terms (one byte a document) or more -- and whether the stage keeps only the documents sharing
most tokens, no unit left out can beat a candidate's bound, and a unit sharing every token of a very
long query is its 100 % match."""
import random
from collections import Counter

import numpy as np
import pytest

from engine.tm import TranslationMemory, token_score
from engine.tm import memory_search as tm_memory
from engine.tm import postfile
from engine.tm.tokens import analyse

WORDS = [f"w{i}" for i in range(400)]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(0.7)) - 1, len(WORDS) - 1)] for _ in range(n)) + "."


@pytest.fixture(params=["postings", "posting file"])
def long_tm(tmp_path, monkeypatch, request):
    """Short and long units over one vocabulary, among them some sharing 250-300 tokens with the
    long queries; searched through Whoosh's postings or a posting file."""
    monkeypatch.setattr(postfile, "MIN_DOCS", 500 if request.param == "posting file" else 10**9)
    rng = random.Random(5)
    tm = TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de")
    units = [(_sentence(rng, rng.randint(1, 40)), f"t{i}") for i in range(900)]
    units += [(" ".join(WORDS[:n]) + " tail", f"prefix {n}") for n in (254, 255, 256, 300)]
    units += [(" ".join(["w1"] * n), f"repeat {n}") for n in (254, 255, 256, 300)]
    tm.add_many(units)
    tm.flush()
    tm.index.leaves()
    tm.index.postfiles.poll(wait=True)
    yield tm, rng
    tm.close()


def _true_bound(q: tuple, m: tuple) -> float:
    shared = sum((Counter(q) & Counter(m)).values())
    return min(shared, len(q), len(m)) / max(len(q), len(m))


@pytest.mark.parametrize("qlen", [12, 255, 256, 300])
def test_no_unit_left_out_of_the_candidates_bounds_above_what_the_stage_says(long_tm, qlen):
    tm, rng = long_tm
    stage = tm._stage("src", tm.search_pair())
    cores = {e.id: analyse(e.source.text).core for e in tm.entries()}
    for query in (" ".join(WORDS[:qlen]), " ".join(["w1"] * qlen), _sentence(rng, qlen)):
        core = analyse(query).core
        r = stage.retrieve(core, limit=5, by_dice=True)  # 5 of ~900 sharing: the stage keeps the best counts only
        kept = set(stage.uids(r.keys))
        for uid, m in cores.items():
            true = _true_bound(core, m)
            if uid in kept:
                assert r.bounds[stage.uids(r.keys).index(uid)] >= np.float32(true) - 1e-6, (qlen, uid)
            else:
                assert true <= r.rest + 1e-6, (qlen, uid, true, r.rest)


@pytest.mark.parametrize("n", [254, 255, 256, 300])
def test_a_unit_holding_every_token_of_a_very_long_query_is_its_best_match(long_tm, monkeypatch, n):
    tm, _ = long_tm
    monkeypatch.setattr(tm_memory, "VERIFY_LIMIT", (5, 5))
    query = " ".join(WORDS[:n]) + " tail"
    ms = tm.search(query, k=3)
    assert ms[0].target.text == f"prefix {n}" and ms[0].score == pytest.approx(1.0)
    for m in ms:
        assert m.score == pytest.approx(token_score(query, m.source.text), abs=1e-9)
    repeated = tm.search(" ".join(["w1"] * n), k=1)
    assert repeated[0].target.text == f"repeat {n}" and repeated[0].score == pytest.approx(1.0)
