"""Final selection of retrieved pairs (Gu et al. 2018): top-K, and the greedy
coverage selection of Algorithm 1."""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")


def top_k(ranked: Sequence[T], k: int) -> list[T]:
    """The ``k`` best of an already ranked (best first) sequence."""
    return list(ranked[:max(0, k)])


def coverage_select(query_tokens: Sequence[str], ranked: Sequence[T],
                    tokens_of: Callable[[T], Sequence[str]]) -> list[T]:
    """Algorithm 1: walk ``ranked`` (best first) and keep a pair only when the
    share of query tokens found in the sources kept so far plus its own
    source grows::

        c_tmp = sum_{x in X} [x in R.keys + {X'_k}] / |X|;  keep if c_tmp > c

    ``query_tokens`` are the query's core tokens (repeats count), and
    ``tokens_of(item)`` the core tokens of an item's source.
    """
    n = len(query_tokens)
    if n == 0:
        return []
    covered_vocab: set[str] = set()
    c = 0.0
    chosen: list[T] = []
    for item in ranked:
        vocab = covered_vocab | set(tokens_of(item))
        c_tmp = sum(1 for x in query_tokens if x in vocab) / n
        if c_tmp > c:
            c = c_tmp
            covered_vocab = vocab
            chosen.append(item)
            if c >= 1.0:
                break
    return chosen
