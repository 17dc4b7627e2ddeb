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
* ``word_starts`` (the target tokens that begin a word) given: no stutter -- a token that would
  write again, at once, the word or phrase just written is refused unless the source repeats it
  (the copies read a place where the source has as many copies in a row; :mod:`engine.nmt.repeats`;
  ``same_word``: the target pieces as text, so "Ein Hund ein Hund" and a word cut two ways repeat),
  except inside the prefix.
* ``stop`` (a function, checked before every step): a search whose answer nobody wants any more --
  the editor's translator has moved to another segment -- ends at once with :class:`Stopped`, so
  the next request need not wait for a whole long sentence (one step of a 55-word sentence is
  about 2 ms of CPU here; the whole beam search 130-290 ms alone, 1-2 s beside the editor's UI).

With ``beam = 1`` and no constraints this is exactly greedy search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from engine.nmt.constraints import (OWN, ConstraintState, constrain_terms, term_gates,
                                    with_constraint_candidates)
from engine.nmt.model import RNNSearch
from engine.nmt.repeats import TAIL, SameWord, WordKeys, repeat_bans, source_runs
from engine.nmt.results import Stopped
from engine.nmt.vocab import BOS, EOS, PAD

NEG_INF = float("-inf")


def _check(stop) -> None:
    if stop is not None and stop():
        raise Stopped()


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


@torch.inference_mode()
def beam_search(model: RNNSearch, src: Tensor, src_mask: Tensor, *, beam: int = 5, alpha: float = 1.0,
                max_ratio: float = 3.0, prefixes: list[list[int]] | None = None,
                constraints: list[list[list[list[int]]]] | None = None, constraint_mode: str = "enforce",
                constraint_spans: list[list[tuple[int, int] | None]] | None = None,
                word_starts: frozenset[int] | None = None, glue: frozenset[int] = frozenset(),
                same_word: WordKeys | SameWord | None = None, stop=None, **inputs) -> list[Hypothesis]:
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
    runs = [source_runs(ids[:n]) for ids, n in zip(src.tolist(), src_lens)] if word_starts is not None else []
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
    tailed: list[list[bool]] = [[] for _ in range(B)]                    # per finished: a term forced after its end
    done = [False] * B
    step = 0
    while not all(done):
        _check(stop)
        out, state = model.step(model.tgt_emb(prev), state, enc)
        lp = model.step_log_probs(out, enc).double()                      # (B*K, V)
        if step == 0:
            records_copy = _copy_now(model, enc, out, prev[:1], prev[:1]) is not None
            copy_hist = torch.empty((B * K, 0, 4), device=dev) if records_copy else None
        V = lp.size(-1)
        lp = lp.view(B, K, V)
        attn_now = out.attn.float()
        gates: list[list[list[bool]] | None] = [None] * B
        forced = [OWN] * (B * K)                                            # per row: OWN, FORCED or TAIL
        glued: list[list[bool]] = [[False] * K for _ in range(B)]
        tails = seqs[:, -TAIL:].tolist() if word_starts is not None and step else None
        for b in range(B):
            _constrain(lp[b], step, max_lens[b], prefixes[b] if prefixes else None)
            if tails is not None and not done[b] and not (prefixes and step < len(prefixes[b])):
                for k in range(K):
                    ban = repeat_bans(tails[b * K + k], word_starts, runs[b], attn_hist[b * K + k],
                                      attn_now[b * K + k], same_word)
                    if ban:
                        lp[b, k, ban] = NEG_INF
            if terms[b] and not (prefixes and step < len(prefixes[b])) and not done[b]:
                gates[b] = term_gates(attn_now[b * K:(b + 1) * K], spans[b])
                if glue:  # where the model would write a tag (glue that is no word start) the term waits for it
                    wants = lp[b].argmax(-1).tolist()
                    gates[b] = [[False] * len(spans[b]) if w in glue and not (word_starts and w in word_starts)
                                 else g for g, w in zip(gates[b], wants)]
                glued[b] = [t in glue for t in prev[b * K:(b + 1) * K].tolist()] if glue else [False] * K
                for k in range(K):
                    forced[b * K + k] = constrain_terms(lp[b, k], cstate[b * K + k], terms[b], step, max_lens[b],
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
                    ranked = with_constraint_candidates(ranked, b, K, V, scores, lp, cstate, terms[b], gates[b],
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
                            tailed[b].append(cstate[row].tail)
                    elif len(alive) < K:
                        alive.append((row, tok, v))
                    if len(alive) == K and len(finished[b]) >= K:
                        break
                if len(finished[b]) >= K or not alive:  # no live continuation left
                    done[b] = True
                    if not finished[b]:  # (the length rules make this impossible; never return nothing)
                        finished[b].append(finish(b, b * K, float(scores[b, 0])))
                        cut_off[b].append(True)
                        tailed[b].append(True)
            while len(alive) < K:  # dead slots: any row, score -inf
                alive.append((b * K, PAD, NEG_INF))
            for row, tok, v in alive:
                sel_rows.append(row)
                sel_tok.append(tok)
                sel_score.append(v if not done[b] else NEG_INF)
        if any(terms):
            cstate = [cstate[r].advance(t, terms[r // K], forced[r],
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
    # forced where the sentence ends (the toy model looped "ein Haus ein Haus ... Baum"); and one
    # with a term forced where the model would have ended loses to any that placed its terms inside
    # the sentence: the tail's likely tokens raised its length-normalised score ("... <guilabel>Neu
    # laden</guilabel>. Deaktivieren Sie dann den Knopf Neu laden." on the KDE client glossary)
    return [max(zip(f, c, t), key=lambda x: (not x[1], not x[2], x[0].norm_score))[0] if terms[b] else
            max(f, key=lambda h: h.norm_score) for b, (f, c, t) in enumerate(zip(finished, cut_off, tailed))]


@torch.inference_mode()
def greedy(model: RNNSearch, src: Tensor, src_mask: Tensor, *, alpha: float = 1.0, max_ratio: float = 3.0,
           prefixes: list[list[int]] | None = None, word_starts: frozenset[int] | None = None,
           same_word: WordKeys | SameWord | None = None, stop=None, **inputs) -> list[Hypothesis]:
    """Batched greedy search (argmax each step) under the same constraints as beam search."""
    model.eval()
    B = src.size(0)
    dev = src.device
    enc = model.encode(src, src_mask, **inputs)
    state = model.init_state(enc)
    max_lens = _max_lens(src_mask, max_ratio, prefixes)
    src_lens = src_mask.sum(1).tolist()
    runs = [source_runs(ids[:n]) for ids, n in zip(src.tolist(), src_lens)] if word_starts is not None else []
    prev = torch.full((B,), BOS, dtype=torch.long, device=dev)
    toks: list[list[int]] = [[] for _ in range(B)]
    score = [0.0] * B
    atts: list[list[Tensor]] = [[] for _ in range(B)]
    gts: list[list[Tensor]] = [[] for _ in range(B)]
    cps: list[list[Tensor]] = [[] for _ in range(B)]
    done = [False] * B
    step = 0
    while not all(done):
        _check(stop)
        out, state = model.step(model.tgt_emb(prev), state, enc)
        lp = model.step_log_probs(out, enc).double()
        for b in range(B):
            _constrain(lp[b], step, max_lens[b], prefixes[b] if prefixes else None)
            if word_starts is not None and atts[b] and not done[b] and not (prefixes and step < len(prefixes[b])):
                ban = repeat_bans(toks[b], word_starts, runs[b], torch.stack(atts[b][-TAIL:]),
                                  out.attn[b, :src_lens[b]].float(), same_word)
                if ban:
                    lp[b, ban] = NEG_INF
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
                   max_ratio: float = 3.0, prefix: list[int] | None = None,
                   word_starts: frozenset[int] | None = None, same_word: WordKeys | SameWord | None = None) -> Hypothesis:
    """Slow, obvious beam search over one sentence, one hypothesis at a time (for tests)."""
    model.eval()
    dev = next(model.parameters()).device
    src = torch.tensor([src_ids], device=dev)
    mask = src != PAD
    enc = model.encode(src, mask)
    max_len = _max_lens(mask, max_ratio, [prefix] if prefix else None)[0]
    runs = source_runs(src_ids)
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
            if word_starts is not None and toks and not (prefix and step < len(prefix)):
                ban = repeat_bans(toks, word_starts, runs, torch.stack(at[-TAIL:]), out.attn[0].float(), same_word)
                if ban:
                    lp[ban] = NEG_INF
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
