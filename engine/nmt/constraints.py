"""Glossary terms in the search: lexically constrained decoding (Post & Vilar 2018, "dynamic beam
allocation"), with each term placed where the attention is on its source term.

What the search does with terms is defined in :mod:`engine.nmt.search` (its module doc); this module
holds the per-hypothesis bookkeeping (:class:`ConstraintState`), the attention gate
(:func:`term_gates`), the per-step rules on one hypothesis's log-probs (:func:`constrain_terms`) and the
candidate selection over banks (:func:`with_constraint_candidates`).  Shapes: K beam, V vocabulary,
S source length.
"""
from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from engine.nmt.hooks import Batch, Rule, StepView
from engine.nmt.vocab import EOS, PAD

NEG_INF = float("-inf")


#: How a term under way was begun (``ConstraintState.how``): by the model where its gate was shut
#: (tracked, so a term the model writes by itself counts, but neither proposed further nor ranked
#: above no progress), where its attention gate was open, or by force.
OWN, GATED, FORCED = 0, 1, 2
#: ``constrain_terms`` forced a term token where the model would have ended the sentence (a tail).
TAIL = 3


@dataclass(frozen=True)
class ConstraintState:
    """Where a hypothesis stands with its sentence's terms.  Each term is a list of alternative
    token sequences, any one of which meets it (a *disjunctive* constraint: the same words after a
    space or after a tag, ``▁OK`` / ``OK``, every accepted target term of a glossary entry, and its
    inflected forms where the entry allows them).  ``met``: bit i set when term i is in the
    hypothesis; ``cur``: the term it is in the middle of (-1: none), ``alts``: the alternatives of
    that term still consistent with what is written, ``pos``: how many of their tokens are written;
    ``how``: how it was begun (:data:`OWN`, :data:`GATED`, :data:`FORCED`): a term begun by force
    is forced to its end (a forced first token alone, ``▁``, was otherwise abandoned at once); one
    the model began by itself outside its gate (``▁Ein`` of ``▁Ein stellungen`` written as the word
    "Ein") is not pushed on, or every common first piece would start the term anywhere."""

    met: int = 0
    cur: int = -1
    alts: tuple[int, ...] = ()
    pos: int = 0
    how: int = OWN
    tail: bool = False

    def needed(self, terms: list[list[list[int]]]) -> int:
        """Tokens still to write for every term to be met: the rest of the term under way (its
        shortest consistent alternative), the longest alternative of each term not begun (the
        form the search forces may not be the shortest: ``▁ F r au``, not ``F r au``)."""
        n = sum(max(map(len, t)) for i, t in enumerate(terms) if not self.met >> i & 1 and i != self.cur)
        if self.cur >= 0:
            n += min(len(terms[self.cur][a]) for a in self.alts) - self.pos
        return n

    def bank(self, terms: list[list[list[int]]]) -> int:
        """Constraint tokens met so far (the bank the hypothesis belongs to): a met term counts its
        longest form, so it ranks above any progress on it, a term under way the tokens written of
        it unless the model began it outside its gate.  (Counting the tokens the shortest form still
        needs put a term begun as ``▁ B a u m`` in the same bank as no progress -- the bare
        ``B a u m`` is shorter --, so a term forced at the end fell out of the beam at once.)"""
        done = sum(max(map(len, t)) for i, t in enumerate(terms) if self.met >> i & 1)
        return done + (self.pos if self.cur >= 0 and self.how != OWN else 0)

    def next_tokens(self, terms: list[list[list[int]]], may_start: list[bool] | None = None,
                    starts: frozenset[int] | None = None, after_glue: bool = False) -> list[int]:
        """Tokens that make progress: the next of the term under way (unless the model began it
        outside its gate), else the first of each alternative of each unmet term (shortest first)
        -- of the terms ``may_start`` allows (None: all; see :func:`term_gates`), and of a term's
        alternatives those that begin with a token of ``starts`` (word starts; None: all) where it
        has one: the others (a term right after a tag, ``OK`` for ``▁OK``) count when the model
        writes them but are not proposed, or the search starts terms in the middle of words --
        except ``after_glue`` (the last token was a tag), where those are the ones proposed."""
        if self.cur >= 0 and self.how != OWN:
            return self.continuation(terms)
        out: list[int] = []
        for i, t in enumerate(terms):
            if self.met >> i & 1 or (may_start is not None and not may_start[i]):
                continue
            alts = sorted(t, key=len)
            if starts is not None:
                alts = [a for a in alts if (a[0] in starts) != after_glue] or alts
            out += [a[0] for a in alts]
        return list(dict.fromkeys(out))

    def continuation(self, terms: list[list[list[int]]]) -> list[int]:
        """The next tokens of the term under way ([] when none is)."""
        if self.cur < 0:
            return []
        t = terms[self.cur]
        return list(dict.fromkeys(t[a][self.pos] for a in self.alts))

    def advance(self, tok: int, terms: list[list[list[int]]], how: int = OWN,
                may_start: list[bool] | None = None) -> "ConstraintState":
        """The state after writing ``tok``: ``how`` :data:`FORCED` when :func:`constrain_terms`
        forced it, :data:`TAIL` when it forced it where the model would have ended (``tail`` is then
        set for good); ``may_start``: the terms whose gate was open for it (None: all)."""
        st = self._advance(tok, terms, min(how, FORCED), may_start)
        return ConstraintState(st.met, st.cur, st.alts, st.pos, st.how, True) if how == TAIL or self.tail else st

    def _advance(self, tok: int, terms: list[list[list[int]]], how: int,
                 may_start: list[bool] | None) -> "ConstraintState":
        met = self.met
        if self.cur >= 0:
            t = terms[self.cur]
            alts = tuple(a for a in self.alts if t[a][self.pos] == tok)
            if alts:
                pos = self.pos + 1
                if any(len(t[a]) == pos for a in alts):  # one alternative complete: the term is met
                    return ConstraintState(met | 1 << self.cur)
                # a term the model began by itself (a lone "▁") goes on where its gate is open: the
                # toy model's own "▁" before "Kind" left the term "▁ B au m" unpushed, and it was
                # written later, cutting "hat" ("Der Kind ein Haus ha Baum ein Haus hat.")
                gate = GATED if self.how == OWN and (may_start is None or may_start[self.cur]) else OWN
                return ConstraintState(met, self.cur, alts, pos, max(self.how, how, gate))
        for i, t in enumerate(terms):  # a term abandoned half way, or a new one started
            if met >> i & 1:
                continue
            alts = tuple(j for j, a in enumerate(t) if a[0] == tok)
            if alts:
                if any(len(t[j]) == 1 for j in alts):
                    return ConstraintState(met | 1 << i)
                gate = GATED if may_start is None or may_start[i] else OWN
                return ConstraintState(met, i, alts, 1, max(gate, how))
        return ConstraintState(met)


#: ``prefer``: log-probability bonus of a token that makes progress on a term (a hint, not a rule).
PREFER_BONUS = 2.0

#: The attention gate of a term whose source span is known: the term may start at a step whose
#: attention (the one the next token is written with) is on the span -- its most attended source
#: piece inside the span, or at least this share of the attention mass on it.
TERM_GATE_MASS = 0.5


def term_gates(attn: Tensor, spans: list[tuple[int, int] | None]) -> list[list[bool]]:
    """Per row of ``attn`` (k, S): per term, whether it may start now (:data:`TERM_GATE_MASS`);
    a term without a span (None) may start anywhere."""
    if all(sp is None for sp in spans):
        return [[True] * len(spans) for _ in range(attn.size(0))]
    top = attn.argmax(-1).tolist()
    cols = []
    for sp in spans:
        if sp is None:
            cols.append([True] * attn.size(0))
            continue
        a, b = sp
        mass = attn[:, a:b].sum(-1).tolist()
        cols.append([a <= t < b or m >= TERM_GATE_MASS for t, m in zip(top, mass)])
    return [list(r) for r in zip(*cols)]


#: What ends a sentence: a piece whose text ends in one of these (before closing quotes or brackets).
SENTENCE_FINAL, CLOSERS = ".!?\u3002\uff01\uff1f\u2026\u061f\u0964", "\"'\u00bb\u201d\u2019)]"


def sentence_end_tokens(keys: list[str]) -> frozenset[int]:
    """The target tokens (their texts, ``WordKeys.key``) after which the sentence may end: ". ! ? 。" ..."""
    return frozenset(i for i, k in enumerate(keys) if (e := k.strip().rstrip(CLOSERS)) and e[-1] in SENTENCE_FINAL)


def constrain_terms(lp: Tensor, st: ConstraintState, terms: list[list[list[int]]], step: int, max_len: int,
                     mode: str = "enforce", may_start: list[bool] | None = None,
                     starts: frozenset[int] | None = None, after_glue: bool = False, ended: bool = False) -> int:
    """In place, one hypothesis's log-probs (V,).  ``enforce``: no ``</s>`` while a term is unmet;
    the next constraint token forced where the hypothesis would end, or once the tokens left
    (``</s>`` included) only just hold the unmet terms.  ``prefer``: the tokens that make progress
    get :data:`PREFER_BONUS`.  ``may_start``: per term, whether its attention gate is open
    (:func:`term_gates`): a term starts (or gets the bonus) only there, except where it is forced;
    ``starts``, ``after_glue``: see :meth:`ConstraintState.next_tokens`; ``ended``: the last piece ends
    the sentence (:func:`sentence_end_tokens`): no term starts there, and where the model would end, it
    ends with a term unmet -- left out (the glossary report names it unused), not appended after the full
    stop ("Der Kind ein Haus hat. Baum ein Haus hat." on the toy model).  :data:`OWN` (0) when no token
    was forced, :data:`TAIL` when one was where the model would have ended, else :data:`FORCED`."""
    need = st.needed(terms)
    if need <= 0:
        return OWN
    if ended and st.cur < 0:   # (a term under way, its own "z.B.", goes on)
        if mode == "enforce" and lp[EOS] >= lp.max():   # the model ends here: nothing is written after
            keep = lp[EOS].clone()
            lp.fill_(NEG_INF)
            lp[EOS] = keep
        return OWN
    if mode == "prefer":
        for tok in st.next_tokens(terms, may_start, starts, after_glue):
            lp[tok] += PREFER_BONUS
        return OWN
    # Where the model would end the sentence with a term still missing, the term is written
    # there rather than later: with </s> only masked, the KDE UI-label test rambled on to the
    # length limit (BLEU 53.6 -> 36.1 for 97 % term use).
    wants_end = bool(lp[EOS] >= lp.max())
    lp[EOS] = NEG_INF
    if wants_end or (st.how >= FORCED and st.cur >= 0) or need + 1 >= max_len - step:
        # the term under way goes on (however it was begun: ``needed`` counts on it), else a term
        # starts -- one whose gate is open if any
        tok = (st.continuation(terms) or st.next_tokens(terms, may_start, starts, after_glue)
               or st.next_tokens(terms, None, starts, after_glue))[0]
        keep = lp[tok].clone()
        lp.fill_(NEG_INF)
        lp[tok] = keep
        return TAIL if wants_end and not (st.cur >= 0 and st.how >= FORCED) else FORCED
    return OWN


def _bank_allocation(cands: list[tuple[float, int, int, int]], K: int) -> list[tuple[float, int, int, int]]:
    """Up to ``K`` of (score, row, token, bank) candidates, shared out over banks round-robin from the
    most advanced bank down, each bank's best first (Post & Vilar's dynamic beam allocation)."""
    banks: dict[int, list] = {}
    for c in sorted(cands, key=lambda c: -c[0]):
        banks.setdefault(c[3], []).append(c)
    order = sorted(banks, reverse=True)
    out: list = []
    while len(out) < K and any(banks[b] for b in order):
        for b in order:
            if banks[b] and len(out) < K:
                out.append(banks[b].pop(0))
    return sorted(out, key=lambda c: -c[0])


def with_constraint_candidates(ranked: list[tuple[float, int]], b: int, K: int, V: int, scores: Tensor,
                                lp: Tensor, cstate: list[ConstraintState], terms: list[list[list[int]]],
                                gates: list[list[bool]], starts: frozenset[int] | None = None,
                                glued: list[bool] | None = None) -> list[tuple[float, int]]:
    """The (score, k*V + token) candidates of sentence ``b`` in the order the beam takes them: the
    usual best ``2K``, each live hypothesis's own best token and its progress tokens (a term's
    first token only where its attention gate is open, ``gates[k]``) -- Post & Vilar's three
    sources --; ``</s>`` ones first (every one taken: see below), the others by bank allocation
    (:func:`_bank_allocation`).  Without the best token of each hypothesis, one that had just met
    a term fell out of the beam at its next step (the best ``2K`` all continued the leader)."""
    seen = {i for _, i in ranked}
    extra = []
    best = lp[b].argmax(-1).tolist()
    for k in range(K):
        base = float(scores[b, k])
        if base == NEG_INF:
            continue
        for tok in [best[k], *cstate[b * K + k].next_tokens(terms, gates[k], starts, bool(glued and glued[k]))]:
            v = base + float(lp[b, k, tok])
            if v != NEG_INF and k * V + tok not in seen:
                seen.add(k * V + tok)
                extra.append((v, k * V + tok))
    pool = sorted(ranked + extra, key=lambda c: -c[0])
    # </s> (allowed only once every term is met) among the best K, or a hypothesis's own best
    # token: with the rank rule alone, a hypothesis that met its terms late, at a lower score,
    # could never end and rambled on to the length limit
    eos = [(v, i) for rank, (v, i) in enumerate(pool)
           if i % V == EOS and v != NEG_INF and (rank < K or best[i // V] == EOS)]
    rest = [(v, b * K + i // V, i % V, cstate[b * K + i // V].advance(i % V, terms, OWN, gates[i // V]).bank(terms))
            for v, i in pool if i % V != EOS and v != NEG_INF]
    chosen = [(v, (row - b * K) * V + tok) for v, row, tok, _ in _bank_allocation(rest, K)]
    return eos + sorted(chosen, key=lambda c: -c[0])


class Terms(Rule):
    """The search's term rule (:mod:`engine.nmt.search`'s module doc).  ``terms``: per sentence its
    terms, each a list of alternative token sequences; ``spans``: per sentence, per term, the source
    positions of its source term (None: not known); ``mode``: ``enforce`` or ``prefer``;
    ``word_starts``, ``glue``: see :meth:`ConstraintState.next_tokens`; ``words``: the target pieces as
    text (:class:`~engine.nmt.repeats.WordKeys`): a term does not start where the model would go on
    with the word it is writing."""

    def __init__(self, terms: list[list[list[list[int]]]], spans: list[list[tuple[int, int] | None]] | None,
                 mode: str = "enforce", word_starts: frozenset[int] | None = None, glue: frozenset[int] = frozenset(),
                 words=None):
        self.terms: list[list[list[list[int]]]] = [[] for _ in terms]
        self.spans: list[list[tuple[int, int] | None]] = [[] for _ in terms]
        for b, c in enumerate(terms):
            for j, alts in enumerate(c):
                if any(alts):
                    self.terms[b].append([a for a in alts if a])
                    self.spans[b].append(spans[b][j] if spans and spans[b] else None)
        self.mode, self.word_starts, self.glue = mode, word_starts, glue
        # the tokens that go on with a word: letters or digits without a word start (WordKeys.word)
        self.inner = (words.derived(("inner", word_starts, glue), lambda: frozenset(
                          i for i, w in enumerate(words.word) if w and i not in word_starts and i not in glue))
                      if words is not None and word_starts is not None else frozenset())
        self.word = words.word if words is not None else None   # per token: letters or digits
        self.ends = words.derived("ends", lambda: sentence_end_tokens(words.key)) if words is not None else frozenset()

    def start(self, batch: Batch) -> None:
        super().start(batch)
        K = batch.K
        # room for every term (its longest alternative) after the prefix, and for </s>
        batch.max_lens[:] = [max(m, (len(batch.prefixes[b]) if batch.prefixes else 0)
                                 + sum(max(map(len, t)) for t in self.terms[b]) + 1)
                             for b, m in enumerate(batch.max_lens)]
        self.cstate = [ConstraintState()] * (len(self.terms) * K)
        self.forced = [OWN] * len(self.cstate)          # per row: OWN, FORCED or TAIL this step
        # per row, bit i: a word written with term i's gate open (the model's own words for the source
        # term), and the gate shut since; ``twice``: a term begun after that (the source term said twice)
        self.spoke, self.said, self.twice = [0] * len(self.cstate), [0] * len(self.cstate), [False] * len(self.cstate)
        self.gates: list[list[list[bool]] | None] = [None] * len(self.terms)
        self.glued: list[list[bool]] = [[False] * K for _ in self.terms]

    def adjust(self, lp: Tensor, view: StepView) -> None:
        bt, K = self.batch, self.batch.K
        self.forced = [OWN] * len(self.cstate)
        self.on = [0] * len(self.cstate)
        self.gates = [None] * len(self.terms)
        for b, terms in enumerate(self.terms):
            if not terms or view.done[b]:
                continue
            gates = term_gates(view.attn_now[b * K:(b + 1) * K].float(), self.spans[b])
            for k, g in enumerate(gates):  # where the attention is on the source terms (bit i: term i)
                self.on[b * K + k] = sum(1 << i for i, o in enumerate(g) if o)
            if bt.in_prefix(b, view.step):  # the typed words: tracked (spoke, said), nothing forced
                for k in range(K):
                    self.said[b * K + k] |= self.spoke[b * K + k] & ~self.on[b * K + k]
                continue
            if bt.prefixes and view.step == len(bt.prefixes[b]):
                self._typed_over(b)
            wants = lp[b].argmax(-1).tolist()
            # where the model would write a tag (glue that is no word start) the term waits for it; and
            # where it would go on with the word it is writing: a term started there cut "hat" in two on
            # the toy model ("Der Kind ein Haus ha Baum ein Haus hat.")
            glued = [t in self.glue for t in view.prev[b * K:(b + 1) * K].tolist()] if self.glue else [False] * K
            gates = [[False] * len(terms) if w in self.glue and not (self.word_starts and w in self.word_starts)
                      or w in self.inner and not after else g for g, w, after in zip(gates, wants, glued)]
            # after the sentence's final punctuation no term starts (constrain_terms, ``ended``)
            ended = [t in self.ends for t in view.prev[b * K:(b + 1) * K].tolist()]
            gates = [[False] * len(terms) if e else g for g, e in zip(gates, ended)]
            self.gates[b], self.glued[b] = gates, glued
            for k in range(K):
                self.said[b * K + k] |= self.spoke[b * K + k] & ~self.on[b * K + k]
            for k in range(K):
                self.forced[b * K + k] = constrain_terms(lp[b, k], self.cstate[b * K + k], terms, view.step,
                                                         bt.max_lens[b], self.mode, gates[k], self.word_starts,
                                                         self.glued[b][k], ended[k])
        self.lp = lp

    def _typed_over(self, b: int) -> None:
        """After the typed words: a term whose source term they have translated in words of their own
        (written with its attention gate open, the gate shut since: ``said``) counts as met -- the
        translator's word stands; enforcing the term appended it after their last word ("Der Kind ein
        Haus hat Baum ein Haus hat." for the typed "Der Kind ein Haus hat " on the toy model)."""
        K = self.batch.K
        for r in range(b * K, (b + 1) * K):
            st, passed = self.cstate[r], self.said[r] & ~(1 << self.cstate[r].cur if self.cstate[r].cur >= 0 else 0)
            if passed:
                self.cstate[r] = ConstraintState(st.met | passed, st.cur, st.alts, st.pos, st.how, st.tail)
                self.said[r] &= ~passed

    def candidates(self, b: int, ranked: list[tuple[float, int]], view: StepView) -> list[tuple[float, int]]:
        if not self.terms[b] or self.gates[b] is None:
            return ranked
        return with_constraint_candidates(ranked, b, self.batch.K, self.lp.size(-1), view.scores, self.lp,
                                          self.cstate, self.terms[b], self.gates[b], self.word_starts, self.glued[b])

    def advance(self, rows: list[int], toks: list[int]) -> None:
        K = self.batch.K
        new = [self.cstate[r].advance(t, self.terms[r // K], self.forced[r],
                                      self.gates[r // K][r % K] if self.gates[r // K] is not None else None)
               if self.terms[r // K] and t != PAD else self.cstate[r] for r, t in zip(rows, toks)]
        spoke, said, twice = [], [], []
        for r, t, st in zip(rows, toks, new):
            old = self.cstate[r]
            begun = (st.cur >= 0 and st.cur != old.cur and 1 << st.cur) | (st.met & ~old.met)
            own_word = self.word is not None and t != PAD and self.word[t] and st.cur < 0 and not st.met & ~old.met
            spoke.append(self.spoke[r] | (self.on[r] if own_word else 0))
            said.append(self.said[r])
            twice.append(self.twice[r] or bool(begun & self.said[r] & ~(1 << old.cur if old.cur >= 0 else 0)))
        self.cstate, self.spoke, self.said, self.twice = new, spoke, said, twice

    def ended(self, b: int, row: int, step: int) -> tuple:
        """With terms, a hypothesis cut off at the length limit loses to any that ended by itself: a
        loop of likely tokens before a forced term scores better per token than the same term forced
        where the sentence ends (the toy model looped "ein Haus ein Haus ... Baum"); and one with a
        term forced where the model would have ended loses to any that placed its terms inside the
        sentence: the tail's likely tokens raised its length-normalised score ("... <guilabel>Neu
        laden</guilabel>. Deaktivieren Sie dann den Knopf Neu laden." on the KDE client glossary); and
        one that wrote its own word for the source term, moved on and wrote the term later loses to any
        that did not: its cheap repeated words raised its normalised score ("Der Kind ein Haus hat Baum
        hat." over "Der Baum ein Haus hat." on the toy model).  In ``enforce`` mode one that ended at its full
        stop with a term unmet (:func:`constrain_terms`, ``ended``) loses to any that met them all."""
        if not self.terms[b]:
            return ()
        met = self.mode != "enforce" or self.cstate[row].needed(self.terms[b]) <= 0
        return step + 1 < self.batch.max_lens[b], met, not self.cstate[row].tail, not self.twice[row]
