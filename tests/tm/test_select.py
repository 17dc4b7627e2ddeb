"""Top-K and Algorithm 1 (greedy coverage) on hand-made cases."""
from engine.tm.select import coverage_select, top_k


def toks(s):
    return s.split()


def test_top_k_keeps_order_and_count():
    assert top_k([5, 4, 3, 2], 2) == [5, 4]
    assert top_k([5], 3) == [5]
    assert top_k([5, 4], 0) == []


def test_algorithm1_adds_a_pair_only_when_coverage_grows():
    ranked = ["a b", "a b x", "c", "b c", "d a", "a b c d"]
    chosen = coverage_select(toks("a b c d"), ranked, toks)
    # "a b" covers 1/2; "a b x" adds nothing; "c" -> 3/4; "b c" nothing; "d a" -> 1
    assert chosen == ["a b", "c", "d a"]


def test_algorithm1_counts_repeated_query_tokens():
    chosen = coverage_select(toks("a a b"), ["b", "a"], toks)
    assert chosen == ["b", "a"]  # 1/3 then 3/3


def test_algorithm1_keeps_nothing_that_covers_nothing():
    assert coverage_select(toks("a b"), ["x y", "z"], toks) == []
    assert coverage_select([], ["a"], toks) == []
