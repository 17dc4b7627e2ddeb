"""The full score of the best candidates (engine.tm.rerank.full_scores): the surface tokens are read
only for candidates whose punctuation alone stays under the penalty cap, and the scores are still those
of an exhaustive scan -- on punctuation-heavy, case-differing, very long and equal-scoring units, in the
index's segments and in the overlay of units added since."""
import random

import pytest

from engine.tm import TranslationMemory, token_score

BASE = "save the file to the disk before the window closes and open another copy".split()


def _variant(rng: random.Random, words: list[str]) -> str:
    out = []
    for w in words:
        w = w.upper() if rng.random() < 0.15 else w.capitalize() if rng.random() < 0.15 else w
        out.append(w + rng.choice(["", "", "", ",", ";", "...", " -", " (!)", "?!"]))
    return " ".join(out) + rng.choice(["", ".", "!", " :-)", "??"])


def _exhaustive(tm: TranslationMemory, query: str, k: int) -> list[float]:
    scores = sorted((token_score(query, e.source.text) for e in tm.entries()), reverse=True)
    return [s for s in scores if s > 0][:k]


@pytest.mark.parametrize("where", ["segments", "overlay"])
def test_penalised_scores_of_punctuation_heavy_and_long_units_equal_an_exhaustive_scan(tmp_path, where):
    rng = random.Random(13)
    units = []
    for i in range(300):
        n = rng.choice([3, 8, len(BASE)])
        units.append((_variant(rng, BASE[:n]), f"t{i}"))
    for i in range(40):  # very long units: the penalty cap reached by punctuation alone, or by case alone
        units.append((_variant(rng, BASE * rng.randint(5, 12)), f"long {i}"))
        units.append((" ".join(w.upper() for w in BASE * 6), f"upper {i}"))
    units += [(" ".join(BASE), "plain"), (" ".join(BASE) + ".", "plain dot")] * 3  # equal scores
    tm = TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de")
    if where == "segments":
        tm.add_many(units)
        tm.flush()
    else:
        tm.FLUSH_AT = 10**6
        for s, t in units:
            tm.add(s, t)
    try:
        queries = ([" ".join(BASE), " ".join(BASE) + "!", " ".join(BASE * 6), " ".join(BASE * 6).upper()]
                   + [_variant(rng, BASE * rng.randint(1, 8)) for _ in range(12)])
        for q in queries:
            for k in (1, 5, 20):
                ms = tm.search(q, k=k)
                assert [m.score for m in ms] == pytest.approx(_exhaustive(tm, q, k), abs=1e-9), (q, k)
                for m in ms:
                    assert m.score == pytest.approx(token_score(q, m.source.text), abs=1e-9)
    finally:
        tm.close()
