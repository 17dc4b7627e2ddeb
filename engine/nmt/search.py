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
  within the length limit; except after sentence-final punctuation (". ! ? 。"): no term starts
  there, and where the model ends there a term it could not place is left out, never appended
  after the finished sentence (:func:`~engine.nmt.constraints.constrain_terms`, ``ended``);
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

from dataclasses import dataclass

import torch
from torch import Tensor

from engine.nmt.constraints import ConstraintState, Terms  # noqa: F401  (ConstraintState: the tests' import)
from engine.nmt.hooks import Batch, Limits, Rule, StepView, limit_step, max_lens
from engine.nmt.model import RNNSearch
from engine.nmt.prefixmemo import StepMemo
from engine.nmt.repeats import TAIL, NoStutter, SameWord, WordKeys, repeat_bans, source_runs
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


def _norm(score: float, length: int, alpha: float) -> float:
    return score / (length ** alpha) if alpha else score


def search_rules(prefixes: list[list[int]] | None = None, constraints: list | None = None,
                 constraint_mode: str = "enforce", constraint_spans: list | None = None,
                 word_starts: frozenset[int] | None = None, glue: frozenset[int] = frozenset(),
                 same_word: WordKeys | SameWord | None = None) -> list[Rule]:
    """The rules of the one search definition (the module doc), in the order they apply."""
    rules: list[Rule] = [Limits()]
    if word_starts is not None:
        rules.append(NoStutter(word_starts, same_word))
    if constraints and any(constraints):
        rules.append(Terms(constraints, constraint_spans, constraint_mode, word_starts, glue,
                           same_word if isinstance(same_word, WordKeys) else None))
    return rules


@torch.inference_mode()
def beam_search(model: RNNSearch, src: Tensor, src_mask: Tensor, *, beam: int = 5, alpha: float = 1.0,
                max_ratio: float = 3.0, prefixes: list[list[int]] | None = None,
                constraints: list[list[list[list[int]]]] | None = None, constraint_mode: str = "enforce",
                constraint_spans: list[list[tuple[int, int] | None]] | None = None,
                word_starts: frozenset[int] | None = None, glue: frozenset[int] = frozenset(),
                same_word: WordKeys | SameWord | None = None, rules: list[Rule] | None = None,
                stop=None, memo: StepMemo | None = None, **inputs) -> list[Hypothesis]:
    """Batched beam search.  ``src`` (B, S), ``src_mask`` (B, S) -> best hypothesis per sentence.
    ``constraints``: per sentence its terms, each a list of alternative token sequences, every term
    of which its translation must contain ([] for none);
    ``constraint_mode``: ``enforce`` (must) or ``prefer`` (a bonus, see :func:`constrain_terms`);
    ``constraint_spans``: per sentence, per term, the source positions ``(start, end)`` of the
    source term (None: not known) -- the term then starts where the attention is on them
    (:func:`term_gates`); ``word_starts``: the target tokens that begin a word -- a term is
    proposed only in a form that begins with one (:meth:`ConstraintState.next_tokens`), except
    after a token of ``glue`` (tag symbols: the word after a tag has no ``▁``), where only in a
    form that does not.  ``rules``: more :class:`~engine.nmt.hooks.Rule` s, applied after these.
    ``memo``: one sentence's model work kept from the last search of it (:mod:`engine.nmt.prefixmemo`)."""
    model.eval()
    B, K = src.size(0), beam
    dev = src.device
    rules = search_rules(prefixes, constraints, constraint_mode, constraint_spans, word_starts, glue,
                         same_word) + list(rules or [])
    src_lens = src_mask.sum(1).tolist()
    batch = Batch([ids[:n] for ids, n in zip(src.tolist(), src_lens)], K, max_lens(src_lens, max_ratio, prefixes),
                  prefixes)
    for r in rules:
        r.start(batch)
    memo = memo or StepMemo()                                             # (a search's own: keeps no step)
    memo.start((max(map(len, prefixes)) + 1 if prefixes else 1) if memo.kept else 0)  # the forced steps + 1
    enc = memo.encode(lambda: model.encode(src, src_mask, **inputs).index_select(
        torch.arange(B, device=dev).repeat_interleave(K)))               # (B*K, S, A) rows b*K + k
    state = model.init_state(enc)
    rows_before: list[int] = []                                           # the rows the last step continued

    def run_step():
        out, new_state = model.step(model.tgt_emb(prev), state, enc)
        return out, new_state, model.step_log_probs(out, enc)             # lp (B*K, V) log p(y_t | y_<t, x), fp32

    scores = torch.full((B, K), NEG_INF, device=dev, dtype=torch.float64)   # (B, K) total log-probability
    scores[:, 0] = 0.0
    prev = torch.full((B * K,), BOS, dtype=torch.long, device=dev)        # (B*K,) the last tokens
    seqs = torch.empty((B * K, 0), dtype=torch.long, device=dev)          # (B*K, t)
    attn_hist = torch.empty((B * K, 0, src.size(1)), device=dev)          # (B*K, t, S)
    gate_hist: Tensor | None = None                                       # (B*K, t, H) with gates
    copy_hist: Tensor | None = None                                       # (B*K, t, 4) with a memory
    finished: list[list[tuple[tuple, Hypothesis]]] = [[] for _ in range(B)]   # (the rules' key, hypothesis)
    done = [False] * B
    step = 0
    while not all(done):
        _check(stop)
        out, state, lp = memo.step(step, prev, rows_before, run_step)
        if step == 0:
            records_copy = model.copy_report(enc, out, torch.zeros(1, dtype=torch.long, device=dev), prev[:1]) is not None
            copy_hist = torch.empty((B * K, 0, 4), device=dev) if records_copy else None
        V = lp.size(-1)
        lp = lp.view(B, K, V)
        attn_now = out.attn.float()                                       # (B*K, S)
        gate_now = out.gate.float() if out.gate is not None else None     # (B*K, H)
        view = StepView(step, seqs, attn_hist, attn_now, prev, scores, done)
        for r in rules:
            r.adjust(lp, view)
        # the best 2K continuations of each sentence, total = row total (fp64) + lp: each row's best 2K
        # tokens first (fp32), then the best 2K of those K * 2K -- the same as over all K * V, since a row's
        # total is the same for all its tokens (fp64 over K * V was 12 % of a 40-sentence batch, py-spy)
        n = min(2 * K, V)
        row_v, row_i = lp.topk(n, dim=-1)                                 # (B, K, n)
        cand = (scores.unsqueeze(-1) + row_v.double()).view(B, K * n)     # (B, K*n) score of each continuation
        top_v, pick = cand.topk(min(2 * K, K * n), dim=-1)                # (B, 2K)
        top_i = torch.div(pick, n, rounding_mode="floor") * V + row_i.view(B, K * n).gather(1, pick)  # k*V + token
        top_v, top_i = top_v.tolist(), top_i.tolist()

        def finish(b: int, row: int, v: float) -> tuple[tuple, Hypothesis]:
            """Row ``row`` of sentence ``b`` ended here with ``</s>`` at total score ``v``."""
            toks = seqs[row].tolist() + [EOS]
            att = torch.cat([attn_hist[row], attn_now[row].unsqueeze(0)], 0)[:, :src_lens[b]]
            gts = (None if gate_now is None else gate_now[row].unsqueeze(0) if gate_hist is None
                   else torch.cat([gate_hist[row], gate_now[row].unsqueeze(0)], 0))
            cp = None
            if records_copy:
                eos = model.copy_report(enc, out, torch.tensor([row], device=dev), torch.tensor([EOS], device=dev))
                cp = torch.cat([copy_hist[row], eos], 0)
            key = tuple(x for r in rules for x in r.ended(b, row, step))
            return key, Hypothesis(toks, v, _norm(v, len(toks), alpha), att, gts, cp)

        sel_rows, sel_tok, sel_score = [], [], []
        for b in range(B):
            alive: list[tuple[int, int, float]] = []
            if not done[b]:
                ranked = list(zip(top_v[b], top_i[b]))
                for r in rules:
                    ranked = r.candidates(b, ranked, view)
                for rank, (v, i) in enumerate(ranked):
                    if v == NEG_INF:
                        break
                    k, tok = divmod(i, V)
                    if tok == EOS:  # finished if among the best K (fairseq)
                        if rank < K and len(finished[b]) < K:
                            finished[b].append(finish(b, b * K + k, v))
                    elif len(alive) < K:
                        alive.append((b * K + k, tok, v))
                    if len(alive) == K and len(finished[b]) >= K:
                        break
                if len(finished[b]) >= K or not alive:  # no live continuation left
                    done[b] = True
                    if not finished[b]:  # (the length rules make this impossible; never return nothing)
                        finished[b].append(finish(b, b * K, float(scores[b, 0])))
            while len(alive) < K:  # dead slots: any row, score -inf
                alive.append((b * K, PAD, NEG_INF))
            for row, tok, v in alive:
                sel_rows.append(row)
                sel_tok.append(tok)
                sel_score.append(v if not done[b] else NEG_INF)
        for r in rules:
            r.advance(sel_rows, sel_tok)
        idx = torch.tensor(sel_rows, device=dev)                          # (B*K,) the rows continued
        rows_before = sel_rows
        prev = torch.tensor(sel_tok, device=dev)
        scores = torch.tensor(sel_score, device=dev, dtype=torch.float64).view(B, K)
        seqs = torch.cat([seqs.index_select(0, idx), prev.unsqueeze(1)], 1)
        attn_hist = torch.cat([attn_hist.index_select(0, idx), attn_now.index_select(0, idx).unsqueeze(1)], 1)
        if records_copy:
            now = model.copy_report(enc, out, idx, prev)
            copy_hist = torch.cat([copy_hist.index_select(0, idx), now.unsqueeze(1)], 1)
        if gate_now is not None:
            g = gate_now.index_select(0, idx).unsqueeze(1)
            gate_hist = g if gate_hist is None else torch.cat([gate_hist.index_select(0, idx), g], 1)
        state = state.index_select(idx)
        step += 1
    return [max(f, key=lambda x: (x[0], x[1].norm_score))[1] for f in finished]


def greedy(model: RNNSearch, src: Tensor, src_mask: Tensor, *, alpha: float = 1.0, max_ratio: float = 3.0,
           prefixes: list[list[int]] | None = None, word_starts: frozenset[int] | None = None,
           same_word: WordKeys | SameWord | None = None, rules: list[Rule] | None = None, stop=None,
           **inputs) -> list[Hypothesis]:
    """Greedy search (argmax each step) under the same rules: beam search with a beam of 1."""
    return beam_search(model, src, src_mask, beam=1, alpha=alpha, max_ratio=max_ratio, prefixes=prefixes,
                       word_starts=word_starts, same_word=same_word, rules=rules, stop=stop, **inputs)


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
    max_len = max_lens([len(src_ids)], max_ratio, [prefix] if prefix else None)[0]
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
            limit_step(lp, step, max_len, prefix)
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
