"""No stutter: a hypothesis may not write again, at once, the word or phrase it has just written,
unless the source repeats it.

Notation: y_1..y_t the hypothesis's tokens, v the candidate token, a_i the attention (S,) the
token y_i was written with, j_i = argmax a_i its most attended source piece, x the source ids.

A candidate v *completes the m-th copy in a row* of a unit X of n tokens (1 <= n <= :data:`REPEAT_MAX`)
when y_{t-mn+2} .. y_t v = X X .. X (m times, m >= 2) and X[0] is a word start; tokens are compared
up to case (``same``: a token -> every token of its piece in any case), as :func:`engine.qa.repeats`
reads words ("▁Hund ▁Hund", "▁der ▁Datei ▁der ▁Datei", "Ein Hund ein Hund").

It is allowed only where the source repeats what the copies read: with r_j the number of copies in a
row of the source unit (any run of pieces, :func:`source_runs`) that covers source piece j,

    allowed  <=>  max { r_j : j = j_i for a token i of the m copies, or j = argmax a_now }  >=  m

so "very very" -> "sehr sehr" is kept (the copies read the repeated "very"; r = 2) and a third "sehr"
is not, while a decoder that has lost its place ("individuelle individuelle", reading one word of a
source that says it once; r = 1) is refused.  The rule is part of the one search definition
(:mod:`engine.nmt.search`): greedy, beam and the reference beam apply it the same way.  A word may
still come back later in the sentence ("die Datei und die Ordner").
"""
from __future__ import annotations

from functools import cached_property

from torch import Tensor

from engine.nmt.hooks import Batch, Rule, StepView

#: The longest repeated unit looked for, in tokens (three words of up to three pieces each).
REPEAT_MAX = 9
#: How far back copies are counted, in tokens (the search hands the rule only this tail).
TAIL = 4 * REPEAT_MAX

#: token id -> the ids of the same piece in every case, ascending (only tokens that have another case)
SameWord = dict[int, tuple[int, ...]]
#: How many words back a repeat of differently cut words is looked for (:func:`word_repeat_ban`),
#: and in how many tokens (the rule's cost grows with it: +15 % CPU a sentence with the whole TAIL).
WORDS_MAX = 3
WORD_TAIL = 12


class WordKeys:
    """The target vocabulary read as text: ``same`` (:data:`SameWord`) for the token-level rule, and
    each piece's text without its word-start mark, case-folded (``key``), with the pieces of each text
    (``ids``): the first word after a tag is cut into other pieces than the same word after a space
    ("E ben e" / "▁Ebene"), so a repeat across the two is found on the text."""

    def __init__(self, pieces: list[str], word_start: str = "\u2581"):
        folded = [p.casefold() for p in pieces]  # folding is per character: the mark may go after it
        self.key = [f.replace(word_start, "") for f in folded]
        self.word = [k.isalnum() for k in self.key]  # letters or digits (no tag, no punctuation)
        # two pieces fold alike only if one of them changes when folded: the rest (57 in 100 of the
        # demo model's 8,000) join no group (2.3 -> 1.5 ms of every process's first sentence)
        changes = {f for p, f in zip(pieces, folded) if f != p}
        cases: dict[str, list[int]] = {}
        for i, f in enumerate(folded):
            if f in changes:
                cases.setdefault(f, []).append(i)
        self.same: SameWord = {i: tuple(v) for v in cases.values() if len(v) > 1 for i in v}
        self._derived: dict = {}

    def derived(self, key, build):
        """A table another rule reads off this vocabulary, ``build()`` the first time ``key`` is
        asked and kept with it (the term rule's sentence ends and word insides: two scans of all
        8,000 pieces, 0.9 ms of every search with terms)."""
        hit = self._derived.get(key)
        if hit is None:
            hit = self._derived[key] = build()
        return hit

    @cached_property
    def ids(self) -> dict[str, tuple[int, ...]]:
        """Each text (``key``) -> its pieces, ascending; built on the first repeat read on the text
        (2-3 ms): a tail of words only never asks (:func:`repeat_bans`)."""
        ids: dict[str, list[int]] = {}
        for i, k in enumerate(self.key):
            ids.setdefault(k, []).append(i)
        return {k: tuple(v) for k, v in ids.items()}


def word_repeat_ban(seq: list[int], word_starts: frozenset[int], words: WordKeys
                    ) -> list[tuple[int, int, tuple[int, ...]]]:
    """Like :func:`repeat_ban`, on the text: ``(span, m, tokens)`` where each of ``tokens`` would
    complete the m-th copy in a row of the last 1..:data:`WORDS_MAX` words, the copies' texts equal
    whatever their pieces; ``span``: the tokens of all copies, the candidate included.  A word starts
    at a word-start piece, at a piece that is no letter or digit (a tag) and after one.  The copy
    being written begins at the last word start or with the candidate (a phrase cut the same way
    both times is :func:`repeat_ban`'s)."""
    tail = seq[-WORD_TAIL:]
    keys = [words.key[t] for t in tail]
    word = [words.word[t] for t in tail]
    n = len(tail)
    starts = [i for i in range(n) if i == 0 or tail[i] in word_starts or not word[i] or not word[i - 1]]
    texts = ["".join(keys[a:b]) for a, b in zip(starts, starts[1:] + [n])]
    out = []
    for pi in (len(starts) - 1, len(starts)):      # copy 2 begins at the last word start, or with the candidate
        partial = texts[pi] if pi < len(starts) else ""
        fresh = pi == len(starts) and (n == 0 or word[-1])  # the candidate must begin a word
        for w in range(1, WORDS_MAX + 1):
            if pi - w < 0:
                break
            first = "".join(texts[pi - w:pi])
            if (len(first) <= len(partial) or not first.startswith(partial)
                    or not any(word[starts[j]] for j in range(pi - w, pi))):  # tags only: no word to repeat
                continue
            rest = first[len(partial):]
            toks = tuple(t for t in words.ids.get(rest, ()) if (t in word_starts) == fresh)
            if not toks:
                continue
            m, k = 2, pi - w
            while k - w >= 0 and "".join(texts[k - w:k]) == first:
                m, k = m + 1, k - w
            out.append((n - starts[k] + 1, m, toks))
    return out


def repeat_ban(seq: list[int], word_starts: frozenset[int] | None,
               same: SameWord | None = None) -> list[tuple[int, int, tuple[int, ...]]]:
    """The ``(n, m, tokens)`` triples: each of ``tokens`` would complete the m-th copy in a row of the
    last n tokens' unit after the tokens ``seq`` (see the module doc); ``word_starts`` None: every
    token starts a word; ``same``: each id's tuple in ascending order (its first is the key)."""
    out = []
    seq = seq[-TAIL:]
    keys = [same.get(x, (x,))[0] for x in seq] if same else seq
    t = len(keys)
    for n in range(1, min(REPEAT_MAX, (t + 1) // 2) + 1):
        first = t - 2 * n + 1                    # X = keys[first:first + n]; copy 2 = keys[first + n:] + [v]
        if n > 1 and keys[t - 1] != keys[t - 1 - n] or word_starts is not None and seq[first] not in word_starts:
            continue
        if keys[first + n:] == keys[first:first + n - 1]:
            m = 2
            while first - n >= 0 and keys[first - n:first] == keys[first:first + n]:
                first -= n
                m += 1
            last = seq[t - n]
            out.append((n, m, same.get(last, (last,)) if same else (last,)))
    return out


def source_runs(src: list[int]) -> list[int]:
    """Per source piece, how many copies in a row of a unit of at most :data:`REPEAT_MAX` pieces
    cover it (1: it is in no repetition).  ``src``: the sentence's real ids."""
    runs = [1] * len(src)
    for u in range(1, REPEAT_MAX + 1):
        a = 0
        while a + 2 * u <= len(src):
            c = 1
            while src[a + c * u:a + (c + 1) * u] == src[a:a + u]:
                c += 1
            if c > 1:
                for j in range(a, a + c * u):
                    runs[j] = max(runs[j], c)
            a += 1
    return runs


def source_repeats(span: int, m: int, runs: list[int], attn_rows: Tensor, attn_now: Tensor) -> bool:
    """Whether the m copies (``span`` tokens, the last about to be written) read a place the source
    repeats at least m times in a row.  ``runs``: :func:`source_runs`; ``attn_rows`` (t, S): the
    attention of the hypothesis's tokens so far, ``attn_now`` (S,): this step's."""
    if max(runs, default=1) < m:  # the source repeats nothing that often: no attention to read
        return False
    read = attn_rows[-(span - 1):].argmax(-1).tolist() + [int(attn_now.argmax())] if span > 1 else \
        [int(attn_now.argmax())]
    return max(runs[j] if j < len(runs) else 1 for j in read) >= m


def repeat_bans(seq: list[int], word_starts: frozenset[int] | None, runs: list[int], attn_rows: Tensor,
                attn_now: Tensor, words: WordKeys | SameWord | None = None) -> list[int]:
    """The tokens one hypothesis may not write next: those that would complete a repeat the source
    does not make (:func:`repeat_ban` -- ``words`` a :data:`SameWord` or a :class:`WordKeys`, which
    also gives :func:`word_repeat_ban` --;
    :func:`source_repeats`).  ``seq``: its tokens so far."""
    out: list[int] = []
    for n, m, toks in repeat_ban(seq, word_starts, words.same if isinstance(words, WordKeys) else words):
        if not source_repeats(m * n, m, runs, attn_rows, attn_now):
            out += toks
    # a word is cut another way after a tag or a lone "▁": without one in the tail, repeat_ban sees all
    if isinstance(words, WordKeys) and word_starts is not None and not all(words.word[t] for t in seq[-WORD_TAIL:]):
        for span, m, toks in word_repeat_ban(seq, word_starts, words):
            if not source_repeats(span, m, runs, attn_rows, attn_now):
                out += toks
    return out


class NoStutter(Rule):
    """The search's repeat rule (the module doc): each step, each live row of a sentence past its
    prefix may not write the tokens :func:`repeat_bans` names.  ``word_starts``: the target pieces
    that begin a word; ``words``: a :class:`WordKeys` (or a :data:`SameWord`)."""

    def __init__(self, word_starts: frozenset[int], words: WordKeys | SameWord | None = None):
        self.word_starts, self.words = word_starts, words

    def start(self, batch: Batch) -> None:
        super().start(batch)
        self.runs = [source_runs(ids) for ids in batch.src]

    def adjust(self, lp: Tensor, view: StepView) -> None:
        if not view.step:
            return
        bt, K = self.batch, self.batch.K
        tails = view.seqs[:, -TAIL:].tolist()
        for b in range(lp.size(0)):
            if view.done[b] or bt.in_prefix(b, view.step):
                continue
            for k in range(K):
                r = b * K + k
                ban = repeat_bans(tails[r], self.word_starts, self.runs[b], view.attn_hist[r], view.attn_now[r],
                                  self.words)
                if ban:
                    lp[b, k, ban] = float("-inf")
