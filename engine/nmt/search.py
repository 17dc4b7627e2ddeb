"""Decoding: greedy, batched beam search, a slow reference beam, forced decoding.

All searches share one definition, so they can be tested against each other:

* a hypothesis is finished when it emits ``</s>``; its score is the sum of
  token log-probabilities, normalised by ``len(tokens) ** alpha`` (``</s>``
  counted);
* every step keeps the ``beam`` best unfinished continuations (fairseq
  style: of the ``2 * beam`` best candidates, ``</s>`` ones ranked within
  the first ``beam`` are set aside as finished, the others fill the beam);
* a sentence is done when it has ``beam`` finished hypotheses; at
  ``max_ratio * source length`` tokens only ``</s>`` is allowed;
* ``prefix``: the first target tokens are forced (interactive completion);
* ``constraints``: terms (glossary terms) every finished hypothesis must contain, each a set of
  alternative token sequences any one of which meets it (lexically constrained decoding, Post &
  Vilar 2018, "dynamic beam allocation"): each step also offers every live hypothesis its own
  best token, the next token of the term it is in, and the first token of each term it lacks;
  the beam is shared out over *banks* (how many constraint tokens a hypothesis has met) from the
  most advanced down, so progress on the terms is not crowded out by fluent hypotheses that
  ignore them; ``</s>`` is allowed only once every term is met, and where the model would end
  (or the tokens left only just hold the unmet terms) the next term token is forced, and the
  rest of that term with it -- so every translation holds every term and the search still ends
  within the length limit;
* ``constraint_spans``: where each term's source term is.  A term is then offered only where the
  attention is on it -- the step's most attended source piece lies in the span, or half the
  attention mass does (:func:`term_gates`), and the model is not about to write a tag (the
  term goes inside the label's tags, not instead of them) --, so the term takes the place of the
  model's words for the source term rather than going anywhere the beam finds room (the end,
  mostly); a term the model never reaches is written where the hypothesis would end.

With ``beam = 1`` and no constraints this is exactly greedy search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from engine.nmt.model import RNNSearch
from engine.nmt.vocab import BOS, EOS, PAD

NEG_INF = float("-inf")


@dataclass
class Hypothesis:
    """A finished translation of one sentence.

    ``tokens``: target ids ending in ``</s>``; ``score``: total log-probability;
    ``norm_score``: length-normalised score; ``attn``: (len(tokens), S) source
    attention of each token (S = real source length, ``</s>`` included);
    ``gates``: (len(tokens), H) context-gate values, or None without gates;
    ``copy``: with a translation memory, (len(tokens), 4) per token
    [copy mass, memory weight, pair, pos] (``RNNSearch.copy_report``, :mod:`engine.nmt.copyreport`),
    recorded during the search so the copy report needs no second pass.
    """

    tokens: list[int]
    score: float
    norm_score: float
    attn: Tensor
    gates: Tensor | None
    copy: Tensor | None = None


def _copy_now(model: RNNSearch, enc, out, rows: Tensor, tokens: Tensor) -> Tensor | None:
    """(n, 4) copy report of emitting ``tokens`` from ``rows`` this step; None without memory."""
    return model.copy_report(enc, out, rows, tokens)


def _norm(score: float, length: int, alpha: float) -> float:
    return score / (length ** alpha) if alpha else score


def _max_lens(src_mask: Tensor, max_ratio: float, prefixes: list[list[int]] | None) -> list[int]:
    lens = src_mask.sum(1).tolist()
    out = [max(2, int(math.ceil(max_ratio * n))) for n in lens]
    if prefixes:
        out = [max(m, len(p) + 1) for m, p in zip(out, prefixes)]
    return out


def _constrain(lp: Tensor, step: int, max_len: int, prefix: list[int] | None) -> None:
    """In place: forbid specials; force the prefix token; force ``</s>`` at the length limit."""
    lp[..., PAD] = NEG_INF
    lp[..., BOS] = NEG_INF
    if prefix is not None and step < len(prefix):
        keep = lp[..., prefix[step]].clone()
        lp.fill_(NEG_INF)
        lp[..., prefix[step]] = keep
    elif step + 1 >= max_len:
        keep = lp[..., EOS].clone()
        lp.fill_(NEG_INF)
        lp[..., EOS] = keep


#: How a term under way was begun (``ConstraintState.how``): by the model where its gate was shut
#: (tracked, so a term the model writes by itself counts, but neither proposed further nor ranked
#: above no progress), where its attention gate was open, or by force.
OWN, GATED, FORCED = 0, 1, 2


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
        """The state after writing ``tok``: ``how`` :data:`FORCED` when :func:`_constrain_terms`
        forced it; ``may_start``: the terms whose gate was open for it (None: all)."""
        met = self.met
        if self.cur >= 0:
            t = terms[self.cur]
            alts = tuple(a for a in self.alts if t[a][self.pos] == tok)
            if alts:
                pos = self.pos + 1
                if any(len(t[a]) == pos for a in alts):  # one alternative complete: the term is met
                    return ConstraintState(met | 1 << self.cur)
                return ConstraintState(met, self.cur, alts, pos, max(self.how, how))
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


def _constrain_terms(lp: Tensor, st: ConstraintState, terms: list[list[list[int]]], step: int, max_len: int,
                     mode: str = "enforce", may_start: list[bool] | None = None,
                     starts: frozenset[int] | None = None, after_glue: bool = False) -> bool:
    """In place, one hypothesis's log-probs (V,).  ``enforce``: no ``</s>`` while a term is unmet;
    the next constraint token forced where the hypothesis would end, or once the tokens left
    (``</s>`` included) only just hold the unmet terms.  ``prefer``: the tokens that make progress
    get :data:`PREFER_BONUS`.  ``may_start``: per term, whether its attention gate is open
    (:func:`term_gates`): a term starts (or gets the bonus) only there, except where it is forced;
    ``starts``, ``after_glue``: see :meth:`ConstraintState.next_tokens`.  True when a token was forced."""
    need = st.needed(terms)
    if need <= 0:
        return False
    if mode == "prefer":
        for tok in st.next_tokens(terms, may_start, starts, after_glue):
            lp[tok] += PREFER_BONUS
        return False
    # Where the model would end the sentence with a term still missing, the term is written
    # there rather than later: with </s> only masked, the KDE UI-label test rambled on to the
    # length limit (BLEU 53.6 -> 36.1 for 97 % term use).
    wants_end = bool(lp[EOS] >= lp.max())
    lp[EOS] = NEG_INF
    if wants_end or (st.how == FORCED and st.cur >= 0) or need + 1 >= max_len - step:
        # the term under way goes on (however it was begun: ``needed`` counts on it), else a term
        # starts -- one whose gate is open if any
        tok = (st.continuation(terms) or st.next_tokens(terms, may_start, starts, after_glue)
               or st.next_tokens(terms, None, starts, after_glue))[0]
        keep = lp[tok].clone()
        lp.fill_(NEG_INF)
        lp[tok] = keep
        return True
    return False


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


@torch.inference_mode()
def beam_search(model: RNNSearch, src: Tensor, src_mask: Tensor, *, beam: int = 5, alpha: float = 1.0,
                max_ratio: float = 3.0, prefixes: list[list[int]] | None = None,
                constraints: list[list[list[list[int]]]] | None = None, constraint_mode: str = "enforce",
                constraint_spans: list[list[tuple[int, int] | None]] | None = None,
                word_starts: frozenset[int] | None = None, glue: frozenset[int] = frozenset(),
                **inputs) -> list[Hypothesis]:
    """Batched beam search.  ``src`` (B, S), ``src_mask`` (B, S) -> best hypothesis per sentence.
    ``constraints``: per sentence its terms, each a list of alternative token sequences, every term
    of which its translation must contain ([] for none);
    ``constraint_mode``: ``enforce`` (must) or ``prefer`` (a bonus, see :func:`_constrain_terms`);
    ``constraint_spans``: per sentence, per term, the source positions ``(start, end)`` of the
    source term (None: not known) -- the term then starts where the attention is on them
    (:func:`term_gates`); ``word_starts``: the target tokens that begin a word -- a term is
    proposed only in a form that begins with one (:meth:`ConstraintState.next_tokens`), except
    after a token of ``glue`` (tag symbols: the word after a tag has no ``▁``), where only in a
    form that does not."""
    model.eval()
    B, K = src.size(0), beam
    dev = src.device
    enc = model.encode(src, src_mask, **inputs)
    rows = torch.arange(B, device=dev).repeat_interleave(K)
    enc = enc.index_select(rows)
    state = model.init_state(enc)
    max_lens = _max_lens(src_mask, max_ratio, prefixes)
    src_lens = src_mask.sum(1).tolist()
    terms: list[list[list[list[int]]]] = [[] for _ in range(B)]
    spans: list[list[tuple[int, int] | None]] = [[] for _ in range(B)]
    for b, c in enumerate(constraints or []):
        for j, alts in enumerate(c):
            if any(alts):
                terms[b].append([a for a in alts if a])
                spans[b].append(constraint_spans[b][j] if constraint_spans and constraint_spans[b] else None)
    # room for every term (its longest alternative) after the prefix, and for </s>
    max_lens = [max(m, (len(prefixes[b]) if prefixes else 0) + sum(max(map(len, t)) for t in terms[b]) + 1)
                for b, m in enumerate(max_lens)]
    cstate = [ConstraintState()] * (B * K)

    scores = torch.full((B, K), NEG_INF, device=dev, dtype=torch.float64)
    scores[:, 0] = 0.0
    prev = torch.full((B * K,), BOS, dtype=torch.long, device=dev)
    seqs = torch.empty((B * K, 0), dtype=torch.long, device=dev)
    attn_hist = torch.empty((B * K, 0, src.size(1)), device=dev)
    gate_hist: Tensor | None = None
    copy_hist: Tensor | None = None                                       # (B*K, t, 4) with a memory
    finished: list[list[Hypothesis]] = [[] for _ in range(B)]
    cut_off: list[list[bool]] = [[] for _ in range(B)]                   # per finished: ended at the length limit
    done = [False] * B
    step = 0
    while not all(done):
        out, state = model.step(model.tgt_emb(prev), state, enc)
        lp = model.step_log_probs(out, enc).double()                      # (B*K, V)
        if step == 0:
            records_copy = _copy_now(model, enc, out, prev[:1], prev[:1]) is not None
            copy_hist = torch.empty((B * K, 0, 4), device=dev) if records_copy else None
        V = lp.size(-1)
        lp = lp.view(B, K, V)
        attn_now = out.attn.float()
        gates: list[list[list[bool]] | None] = [None] * B
        forced = [False] * (B * K)
        glued: list[list[bool]] = [[False] * K for _ in range(B)]
        for b in range(B):
            _constrain(lp[b], step, max_lens[b], prefixes[b] if prefixes else None)
            if terms[b] and not (prefixes and step < len(prefixes[b])) and not done[b]:
                gates[b] = term_gates(attn_now[b * K:(b + 1) * K], spans[b])
                if glue:  # where the model would write a tag (glue that is no word start) the term waits for it
                    wants = lp[b].argmax(-1).tolist()
                    gates[b] = [[False] * len(spans[b]) if w in glue and not (word_starts and w in word_starts)
                                 else g for g, w in zip(gates[b], wants)]
                glued[b] = [t in glue for t in prev[b * K:(b + 1) * K].tolist()] if glue else [False] * K
                for k in range(K):
                    forced[b * K + k] = _constrain_terms(lp[b, k], cstate[b * K + k], terms[b], step, max_lens[b],
                                                         constraint_mode, gates[b][k], word_starts, glued[b][k])
        cand = (scores.unsqueeze(-1) + lp).view(B, K * V)
        top_v, top_i = cand.topk(min(2 * K, K * V), dim=-1)
        top_v, top_i = top_v.tolist(), top_i.tolist()
        gate_now = out.gate.float() if out.gate is not None else None
        sel_rows, sel_tok, sel_score = [], [], []

        def finish(b: int, row: int, v: float) -> Hypothesis:
            """Row ``row`` of sentence ``b`` ended here with ``</s>`` at total score ``v``."""
            n = src_lens[b]
            toks = seqs[row].tolist() + [EOS]
            att = torch.cat([attn_hist[row], attn_now[row].unsqueeze(0)], 0)[:, :n]
            gts = (None if gate_now is None else gate_now[row].unsqueeze(0)
                   if gate_hist is None else  # </s> as the very first token
                   torch.cat([gate_hist[row], gate_now[row].unsqueeze(0)], 0))
            cp = None
            if records_copy:
                eos = _copy_now(model, enc, out, torch.tensor([row], device=dev), torch.tensor([EOS], device=dev))
                cp = torch.cat([copy_hist[row], eos], 0)
            return Hypothesis(toks, v, _norm(v, len(toks), alpha), att, gts, cp)

        for b in range(B):
            alive: list[tuple[int, int, float]] = []
            if not done[b]:
                ranked = list(zip(top_v[b], top_i[b]))
                if terms[b] and gates[b] is not None:
                    ranked = _with_constraint_candidates(ranked, b, K, V, scores, lp, cstate, terms[b], gates[b],
                                                         word_starts, glued[b])
                for rank, (v, i) in enumerate(ranked):
                    if v == NEG_INF:
                        break
                    k, tok = divmod(i, V)
                    row = b * K + k
                    if tok == EOS:
                        if (rank < K or terms[b]) and len(finished[b]) < K:
                            finished[b].append(finish(b, row, v))
                            cut_off[b].append(step + 1 >= max_lens[b])
                    elif len(alive) < K:
                        alive.append((row, tok, v))
                    if len(alive) == K and len(finished[b]) >= K:
                        break
                if len(finished[b]) >= K or not alive:  # no live continuation left
                    done[b] = True
                    if not finished[b]:  # (the length rules make this impossible; never return nothing)
                        finished[b].append(finish(b, b * K, float(scores[b, 0])))
                        cut_off[b].append(True)
            while len(alive) < K:  # dead slots: any row, score -inf
                alive.append((b * K, PAD, NEG_INF))
            for row, tok, v in alive:
                sel_rows.append(row)
                sel_tok.append(tok)
                sel_score.append(v if not done[b] else NEG_INF)
        if any(terms):
            cstate = [cstate[r].advance(t, terms[r // K], FORCED if forced[r] else OWN,
                                        gates[r // K][r % K] if gates[r // K] is not None else None)
                      if terms[r // K] and t != PAD else cstate[r] for r, t in zip(sel_rows, sel_tok)]
        idx = torch.tensor(sel_rows, device=dev)
        prev = torch.tensor(sel_tok, device=dev)
        scores = torch.tensor(sel_score, device=dev, dtype=torch.float64).view(B, K)
        seqs = torch.cat([seqs.index_select(0, idx), prev.unsqueeze(1)], 1)
        attn_hist = torch.cat([attn_hist.index_select(0, idx), attn_now.index_select(0, idx).unsqueeze(1)], 1)
        if records_copy:
            copy_hist = torch.cat([copy_hist.index_select(0, idx), _copy_now(model, enc, out, idx, prev).unsqueeze(1)], 1)
        if gate_now is not None:
            g = gate_now.index_select(0, idx).unsqueeze(1)
            gate_hist = g if gate_hist is None else torch.cat([gate_hist.index_select(0, idx), g], 1)
        elif gate_hist is None:
            gate_hist = None
        state = state.index_select(idx)
        step += 1
    # With terms, a hypothesis cut off at the length limit loses to any that ended by itself: a
    # loop of likely tokens before a forced term scores better per token than the same term
    # forced where the sentence ends (the toy model looped "ein Haus ein Haus ... Baum")
    return [max([h for h, cut in zip(f, c) if not cut] or f, key=lambda h: h.norm_score) if terms[b] else
            max(f, key=lambda h: h.norm_score) for b, (f, c) in enumerate(zip(finished, cut_off))]


def _with_constraint_candidates(ranked: list[tuple[float, int]], b: int, K: int, V: int, scores: Tensor,
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


@torch.inference_mode()
def greedy(model: RNNSearch, src: Tensor, src_mask: Tensor, *, alpha: float = 1.0, max_ratio: float = 3.0,
           prefixes: list[list[int]] | None = None, **inputs) -> list[Hypothesis]:
    """Batched greedy search (argmax each step) under the same constraints as beam search."""
    model.eval()
    B = src.size(0)
    dev = src.device
    enc = model.encode(src, src_mask, **inputs)
    state = model.init_state(enc)
    max_lens = _max_lens(src_mask, max_ratio, prefixes)
    src_lens = src_mask.sum(1).tolist()
    prev = torch.full((B,), BOS, dtype=torch.long, device=dev)
    toks: list[list[int]] = [[] for _ in range(B)]
    score = [0.0] * B
    atts: list[list[Tensor]] = [[] for _ in range(B)]
    gts: list[list[Tensor]] = [[] for _ in range(B)]
    cps: list[list[Tensor]] = [[] for _ in range(B)]
    done = [False] * B
    step = 0
    while not all(done):
        out, state = model.step(model.tgt_emb(prev), state, enc)
        lp = model.step_log_probs(out, enc).double()
        for b in range(B):
            _constrain(lp[b], step, max_lens[b], prefixes[b] if prefixes else None)
        best_v, best_i = lp.max(dim=-1)
        nxt = best_i.tolist()
        cp_now = _copy_now(model, enc, out, torch.arange(B, device=dev), best_i)
        for b in range(B):
            if done[b]:
                continue
            toks[b].append(nxt[b])
            score[b] += float(best_v[b])
            atts[b].append(out.attn[b, :src_lens[b]].float())
            if out.gate is not None:
                gts[b].append(out.gate[b].float())
            if cp_now is not None:
                cps[b].append(cp_now[b])
            if nxt[b] == EOS:
                done[b] = True
        prev = best_i.masked_fill(best_i == EOS, PAD)
        step += 1
    return [Hypothesis(toks[b], score[b], _norm(score[b], len(toks[b]), alpha), torch.stack(atts[b]),
                       torch.stack(gts[b]) if gts[b] else None, torch.stack(cps[b]) if cps[b] else None)
            for b in range(B)]


@torch.inference_mode()
def reference_beam(model: RNNSearch, src_ids: list[int], *, beam: int = 5, alpha: float = 1.0,
                   max_ratio: float = 3.0, prefix: list[int] | None = None) -> Hypothesis:
    """Slow, obvious beam search over one sentence, one hypothesis at a time (for tests)."""
    model.eval()
    dev = next(model.parameters()).device
    src = torch.tensor([src_ids], device=dev)
    mask = src != PAD
    enc = model.encode(src, mask)
    max_len = _max_lens(mask, max_ratio, [prefix] if prefix else None)[0]
    # a hypothesis: (tokens, score, state, attn rows, gate rows)
    alive = [([], 0.0, model.init_state(enc), [], [])]
    finished: list[Hypothesis] = []
    step = 0
    while len(finished) < beam:
        cands = []
        for k, (toks, sc, st, at, gt) in enumerate(alive):
            prev = torch.tensor([toks[-1] if toks else BOS], device=dev)
            out, new_st = model.step(model.tgt_emb(prev), st, enc)
            lp = model.step_log_probs(out, enc).double()[0]
            _constrain(lp, step, max_len, prefix)
            for v in range(lp.size(0)):
                if lp[v] != NEG_INF:
                    cands.append((sc + float(lp[v]), k, v, out, new_st))
        cands.sort(key=lambda c: -c[0])
        new_alive = []
        for rank, (total, k, v, out, new_st) in enumerate(cands[:2 * beam]):
            toks, _, _, at, gt = alive[k]
            at2 = at + [out.attn[0].float()]
            gt2 = gt + ([out.gate[0].float()] if out.gate is not None else [])
            if v == EOS:
                if rank < beam and len(finished) < beam:
                    t = toks + [EOS]
                    finished.append(Hypothesis(t, total, _norm(total, len(t), alpha), torch.stack(at2),
                                               torch.stack(gt2) if gt2 else None))
            elif len(new_alive) < beam:
                new_alive.append((toks + [v], total, new_st, at2, gt2))
        alive = new_alive
        step += 1
        if not alive and len(finished) < beam:
            break
    return max(finished, key=lambda h: h.norm_score)


@torch.inference_mode()
def forced_decode(model: RNNSearch, src: Tensor, src_mask: Tensor, tgt_in: Tensor, tgt_out: Tensor,
                  **inputs) -> dict:
    """Teacher-forced pass in eval mode.

    Returns ``token_logprob`` (B, T) of each reference token (0 on padding),
    ``attn`` (B, T, S) and ``gates`` (B, T, H) or None.
    """
    model.eval()
    res = model(src, src_mask, tgt_in, **inputs)
    lp = res["log_probs"] if "log_probs" in res else torch.log_softmax(res["logits"].float(), -1)
    tok = lp.gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1).masked_fill(tgt_out == PAD, 0.0)
    return {"token_logprob": tok, "attn": res["attn"], "gates": res["gates"]}
