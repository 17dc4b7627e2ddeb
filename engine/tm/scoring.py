"""Fuzzy-match scores.

**Token score** (what Verso ranks by and what the editor shows as the match
percentage): the score of Gu et al. 2018, Eq. 3, over core tokens (words,
CJK characters, tags -- see :mod:`engine.tm.tokens`)::

    s(X, X') = 1 - D_edit(X, X') / max(|X|, |X'|)

minus small penalties that keep near-identical segments apart without ever
turning a match into a miss:

* ``CASE_PENALTY`` per token whose only difference is letter case (the extra
  edits the case-sensitive sequence needs over the lower-cased one);
* ``PUNCT_PENALTY`` per edit between the two punctuation sequences;
* together at most ``PENALTY_CAP``.

Tags are one generic token for the score, so ``Click <b>Save</b>`` and
``Click <g1>Save</g1>`` are a 100 % match; a moved or missing tag costs one
token like any word.

**Character score** (``char_score``): the usual CAT percentage, normalised
character Levenshtein similarity of the two texts (tags as one character),
case-sensitive.  Shown as secondary information.

The score never exceeds the core score, so the candidate stage may bound it
from the number of shared core tokens.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.inline import TAG_BASE
from engine.tm.tokens import Analysed, Token, analyse, tokenize

CASE_PENALTY = 0.01
PUNCT_PENALTY = 0.01
PENALTY_CAP = 0.05
_CAP_EDITS = round(PENALTY_CAP / min(CASE_PENALTY, PUNCT_PENALTY))  # edits that reach the cap

_TAG_CHARS = {i: chr(TAG_BASE) for i in range(TAG_BASE + 1, 0xF8FF + 1)}


class Vocab:
    """Maps tokens to single characters so rapidfuzz compares token sequences
    as strings (its fastest path).  Skips the surrogate range."""

    __slots__ = ("_map", "_next")

    def __init__(self) -> None:
        self._map: dict[str, str] = {}
        self._next = 0x100

    def encode(self, tokens) -> str:
        m = self._map
        out = []
        for t in tokens:
            c = m.get(t)
            if c is None:
                if self._next == 0xD800:
                    self._next = 0xE000
                if self._next > 0x10FFFF:  # pragma: no cover - 1.1M distinct tokens
                    raise OverflowError("vocabulary too large")
                c = chr(self._next)
                self._next += 1
                m[t] = c
            out.append(c)
        return "".join(out)


@dataclass(frozen=True, slots=True)
class Encoded:
    """A segment encoded for fast scoring against one query."""

    core: str
    surface: str
    punct: str

    @classmethod
    def of(cls, a: Analysed, vocab: Vocab) -> "Encoded":
        return cls(vocab.encode(a.core), vocab.encode(a.surface), vocab.encode(a.punct))


def core_similarity(q: str, m: str) -> float:
    """Eq. 3 on two encoded core sequences (1.0 when both are empty)."""
    n = max(len(q), len(m))
    if n == 0:
        return 1.0
    return 1.0 - Levenshtein.distance(q, m) / n


def score_encoded(q: Encoded, m: Encoded) -> float:
    """Token score (with penalties) of two encoded segments."""
    n = max(len(q.core), len(m.core))
    if n == 0:
        core = 1.0 if q.punct == m.punct else 0.0
        d = 0
    else:
        d = Levenshtein.distance(q.core, m.core)
        core = 1.0 - d / n
    if core <= 0.0:
        return 0.0
    pen = 0
    if q.surface != m.surface:
        pen += (Levenshtein.distance(q.surface, m.surface) - d) * CASE_PENALTY
    if q.punct != m.punct:
        pen += Levenshtein.distance(q.punct, m.punct) * PUNCT_PENALTY
    return max(0.0, core - min(PENALTY_CAP, pen))


def score_many(q: Encoded, cores: list[str], surfaces: list[str] | Callable[[list[int]], list[str]],
               puncts: list[str], d: np.ndarray | None = None) -> np.ndarray:
    """:func:`score_encoded` of ``q`` against many segments at once (the same
    numbers, computed in rapidfuzz's C++ loops), as float64.  ``d``: the core
    edit distances when the caller has them already; ``surfaces``: a list, or a
    function giving those of the segments at the given positions (read only where needed)."""
    if not cores:
        return np.zeros(0, np.float64)
    if not q.core:  # pragma: no cover - searches never ask with an empty query
        return np.array([score_encoded(q, Encoded(c, s, p)) for c, s, p in
                         zip(cores, surfaces(list(range(len(cores)))) if callable(surfaces) else surfaces, puncts)],
                        dtype=np.float64)
    if d is None:
        d = process.cdist([q.core], cores, scorer=Levenshtein.distance, dtype=np.int32)[0]
    # A penalty past the cap changes nothing (ds >= d: a case-sensitive edit script is one of the
    # lower-cased texts too), so rapidfuzz may stop counting there: capped distances, same scores.
    over = _CAP_EDITS + 1
    dp = process.cdist([q.punct], puncts, scorer=Levenshtein.distance, dtype=np.int32,
                       score_cutoff=over)[0]
    pen = dp.astype(np.float64) * PUNCT_PENALTY
    # the surface distance only where the punctuation alone is under the cap (pen only grows with it):
    # long segments reach the cap by punctuation alone (752k TM, the p95 queries' 300-1,300 scored in
    # full: nearly all), and their surface distance was the costliest part of the full score
    todo = np.flatnonzero(pen < PENALTY_CAP)
    if len(todo):
        dt = d[todo]
        idx = todo.tolist()
        ds = process.cdist([q.surface], surfaces(idx) if callable(surfaces) else [surfaces[i] for i in idx],
                           scorer=Levenshtein.distance,
                           dtype=np.int32, score_cutoff=int(dt.max()) + over)[0]
        pen[todo] = (ds - dt).astype(np.float64) * CASE_PENALTY + pen[todo]
    lens = np.fromiter(map(len, cores), dtype=np.float64, count=len(cores))
    core = 1.0 - d.astype(np.float64) / np.maximum(lens, float(len(q.core)))
    out = np.maximum(0.0, core - np.minimum(PENALTY_CAP, pen))
    out[core <= 0.0] = 0.0
    return out


def token_score(a: str, b: str) -> float:
    """Token score of two segment texts (see module docstring)."""
    v = Vocab()
    return score_encoded(Encoded.of(analyse(a), v), Encoded.of(analyse(b), v))


def char_score(a: str, b: str) -> float:
    """Character-level CAT similarity in [0, 1] (tags as one character)."""
    a = a.translate(_TAG_CHARS)
    b = b.translate(_TAG_CHARS)
    if not a and not b:
        return 1.0
    return Levenshtein.normalized_similarity(a, b)


# ------------------------------------------------------------------ edit operations
@dataclass(frozen=True, slots=True)
class EditOp:
    """One token-level edit between the query and a match source.

    ``op``: ``equal`` / ``replace`` / ``insert`` (tokens only in the match
    source) / ``delete`` (tokens only in the query).  ``query_tokens`` and
    ``match_tokens`` are half-open ranges of core-token indices;
    ``query_span`` and ``match_span`` the character ranges they cover in the
    two texts (empty ranges for an insert or delete side).
    """

    op: str
    query_tokens: tuple[int, int]
    match_tokens: tuple[int, int]
    query_span: tuple[int, int]
    match_span: tuple[int, int]

    def to_json(self) -> dict:
        return {"op": self.op, "query_tokens": list(self.query_tokens),
                "match_tokens": list(self.match_tokens),
                "query_span": list(self.query_span), "match_span": list(self.match_span)}


def _span(toks: list[Token], i: int, j: int) -> tuple[int, int]:
    if i < j:
        return (toks[i].start, toks[j - 1].end)
    if i < len(toks):  # empty range: position before token i
        return (toks[i].start, toks[i].start)
    end = toks[-1].end if toks else 0
    return (end, end)


_OPS = {"equal": "equal", "replace": "replace", "insert": "insert", "delete": "delete"}


def core_tokens(text: str) -> list[Token]:
    """The core tokens of ``text`` with their spans (for :func:`edit_ops`)."""
    return [t for t in tokenize(text) if t.kind != "punct"]


def edit_ops(query: str | list[Token], match: str) -> list[EditOp]:
    """Token-level edit operations turning ``query`` into ``match`` (core tokens).

    Lower-cased comparison, tags generic; ``equal`` runs are what the memory
    covers of the query.  ``query`` may be given as its :func:`core_tokens`
    (a search computes them once for all its matches).
    """
    qt = core_tokens(query) if isinstance(query, str) else query
    mt = core_tokens(match)
    # tokens as small ints, equal for equal normal forms (rapidfuzz compares elements only for equality):
    # 0.04 against 0.08 ms a pair through Vocab's characters (752k TM, the p95 queries' 5 long matches)
    codes: dict[str, int] = {}
    qs = [codes.setdefault(t.norm, len(codes)) for t in qt]
    ms = [codes.setdefault(t.norm, len(codes)) for t in mt]
    out = []
    for o in Levenshtein.opcodes(qs, ms):
        # rapidfuzz names edits from the first string's view: "insert" adds
        # match-only tokens, "delete" drops query-only tokens.
        out.append(EditOp(_OPS[o.tag], (o.src_start, o.src_end), (o.dest_start, o.dest_end),
                          _span(qt, o.src_start, o.src_end), _span(mt, o.dest_start, o.dest_end)))
    return out
