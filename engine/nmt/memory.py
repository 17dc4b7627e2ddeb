"""Key-value memory of retrieved translation pairs: search-engine guided NMT.

Gu, Wang, Cho, Li, *Search Engine Guided Neural Machine Translation* (AAAI 2018),
as a :class:`~engine.nmt.decoder_types.ContextSource` of :class:`~engine.nmt.model.RNNSearch`
(``model.memory = "shallow" | "deep"``).  The pairs come packed by :mod:`engine.nmt.pairs`; the
training feed is :mod:`engine.nmt.memory_feed`, the per-word report :mod:`engine.nmt.copyreport`.

Memory (per sentence, any number of retrieved pairs (X', Y'), batched and masked):
the same attention model runs teacher-forced over each pair; for every target
token y'_tau it stores the key c'_tau (its context vector) and the value
(z'_tau, y'_tau) (decoder state, token); :meth:`MemorySource.prepare` runs the
model over them.

Each decoder step t (``update_state``), with c_t the context vector, z_t the
decoder state and beta the coverage of the memory slots::

    q_t,tau  = softmax_tau( c_t^T M c'_tau - lambda * beta_{t-1,tau} )      (Eq. 4, 7)
    z~_t     = sum_tau q_t,tau z'_tau
    zeta_t   = sigmoid(w^T tanh(W [c_t; z_t; z~_t] + b) + b')               (f_gate)
    beta_t   = beta_{t-1} + q_t * zeta_t
    p_copy(y)= sum_{tau: y'_tau = y} q_t,tau

With ``model.memory_score`` (not in the paper) each slot also carries the fuzzy
score s_tau of its pair: the match adds w_s * s_tau (w_s trainable, from 0) and
the gate reads s~_t = sum_tau q_t,tau s_tau as a fourth input, so that it can
tell a 100 % match (to be copied) from a 90 % one (to be edited).

M is diagonal (initialised to the identity), lambda is trainable (initialised
to 0).  ``model.memory_match = "cosine"`` (not in the paper) scores
s * cos(D c_t, D c'_tau) instead (D diagonal from I, s a learnt temperature
initialised to ``memory_metric_init``): a key equal to the query then scores
highest, so a 100 % match is read slot by slot.

Shallow fusion (Eq. 6, the default) mixes the output distribution, in log space::

    p(y) = zeta_t p_copy(y) + (1 - zeta_t) p_model(y)

deep fusion (Eq. 5) replaces z_t by zeta_t z~_t + (1 - zeta_t) z_t in the readout.
A sentence with no retrieved pair gets exactly the plain model's output
(zeta = 0 and the fused values are bypassed).

Per-step values (q, zeta, ...) ride in ``StepOutput.extras["memory"]``; the
coverage beta in ``DecoderState.extras["mem_beta"]`` (beam search reorders it).
:meth:`MemorySource.copy_report` gives, per output token, the copy mass zeta * p_copy(y)
and the memory slot (pair, position) that contributed most.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine.nmt.decoder_types import ContextSource, DecoderState, EncoderOutput, StepOutput
from engine.nmt.pairs import MemoryBatch
from engine.nmt.vocab import PAD

class MemorySource(ContextSource):
    """The key-value memory with its matching metric, coverage and gate."""

    def __init__(self, model: nn.Module):
        super().__init__()
        cfg = model.cfg
        A, H = model.ann_dim, cfg.hidden
        object.__setattr__(self, "_owner", model)  # a back reference, not a submodule
        self.kind = cfg.memory
        self.use_coverage = cfg.memory_coverage
        # diagonal of M (Eq. 4), kept in log space so that Adam changes it by a similar *ratio* whatever
        # its scale (M = exp(log_metric) > 0; the paper initialises M to the identity)
        if cfg.memory_metric_init <= 0:
            raise ValueError("model.memory_metric_init must be positive")
        self.match = cfg.memory_match
        if self.match == "cosine":  # D from the identity, the temperature s from memory_metric_init
            self.log_metric = nn.Parameter(torch.zeros(A))
            self.log_temp = nn.Parameter(torch.tensor(math.log(cfg.memory_metric_init)))
        else:
            self.log_metric = nn.Parameter(torch.full((A,), math.log(cfg.memory_metric_init)))
        self.coverage_weight = nn.Parameter(torch.zeros(()))  # lambda (Eq. 7)
        G = cfg.att_dim or H
        self.use_score = cfg.memory_score
        if self.use_score:
            self.score_weight = nn.Parameter(torch.zeros(()))  # w_s: match bias towards closer pairs
        self.gate_hidden = nn.Linear(A + 2 * H + int(self.use_score), G)  # f_gate(c_t, z_t, z~_t[, s~_t])
        self.gate_out = nn.Linear(G, 1)
        with torch.no_grad():
            self.gate_out.bias.fill_(cfg.memory_gate_bias)

    # ---------------------------------------------------------------- memory
    def prepare(self, enc: EncoderOutput, memory: MemoryBatch | None = None, **_) -> None:
        """Run the model teacher-forced over the retrieved pairs; store keys c'
        (times M), values z' and tokens y' per sentence in ``enc.extras``.
        At inference the encoding of each pair is cached (LRU), so a pair read
        again (the copy trace, the next segment, prefetch) costs nothing."""
        if memory is None:
            return
        if self.training or torch.is_grad_enabled():
            k, v = self._encode_pairs(memory.src, memory.src_mask, memory.tgt_in)
        else:
            k, v = self._cached_pairs(memory)
        P, T = memory.tgt_in.shape
        k, v = k.reshape(P * T, -1), v.reshape(P * T, -1)
        idx = memory.slot_index
        enc.extras["memory"] = {
            "keys": self.keys_of(k[idx]),                         # (B, N, A): M c' (cosine: s D c'/|D c'|)
            "values": v[idx],                                     # (B, N, H): z'
            "tokens": memory.tgt_out.reshape(-1)[idx],            # (B, N): y'
            "mask": memory.slot_mask,                             # (B, N)
            "pair": memory.slot_pair, "pos": memory.slot_pos,     # (B, N): provenance
            "score": memory.slot_score,                           # (B, N): fuzzy score of the pair
        }

    def keys_of(self, ctx: Tensor) -> Tensor:
        """Keys (..., A) of context vectors c' (..., A): M c' ("bilinear"), s D c' / |D c'| ("cosine")."""
        d = self.log_metric.exp().to(ctx.dtype)
        if self.match == "cosine":
            return F.normalize(ctx * d, dim=-1) * self.log_temp.exp().to(ctx.dtype)
        return ctx * d

    def match_scores(self, keys: Tensor, ctx: Tensor) -> Tensor:
        """(B, N) match scores of the context vectors ``ctx`` (B, A) against ``keys`` (B, N, A)
        (Eq. 4: c_t^T M c'; "cosine": s cos(D c_t, D c'))."""
        if self.match == "cosine":
            ctx = F.normalize(ctx * self.log_metric.exp().to(ctx.dtype), dim=-1)
        return torch.bmm(keys, ctx.unsqueeze(-1)).squeeze(-1).float()

    def _encode_pairs(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor) -> tuple[Tensor, Tensor]:
        """(P, T', A) context vectors c' and (P, T', H) decoder states z' of P pairs."""
        m = self._owner
        menc = m.encode(src, src_mask)                       # no memory here: no recursion
        state = m.init_state(menc)
        y = m.embed_target(tgt_in)
        keys, vals = [], []
        for i in range(tgt_in.size(1)):
            out, state = m.step(y[:, i], state, menc)
            keys.append(out.ctx)
            vals.append(out.hidden)
        return torch.stack(keys, 1), torch.stack(vals, 1)

    CACHE_PAIRS = 256

    def _cached_pairs(self, memory: MemoryBatch) -> tuple[Tensor, Tensor]:
        cache: OrderedDict = self.__dict__.setdefault("_pair_cache", OrderedDict())
        P, T = memory.tgt_in.shape
        s_len = memory.src_mask.sum(1).tolist()
        t_len = (memory.tgt_out != PAD).sum(1).tolist()
        keys = [(tuple(memory.src[p, :s_len[p]].tolist()), tuple(memory.tgt_out[p, :t_len[p]].tolist()))
                for p in range(P)]
        todo = [p for p in range(P) if keys[p] not in cache]
        if todo:
            rows = torch.tensor(todo, device=memory.src.device)
            S2, T2 = max(s_len[p] for p in todo), max(t_len[p] for p in todo)
            kk, vv = self._encode_pairs(memory.src.index_select(0, rows)[:, :S2],
                                        memory.src_mask.index_select(0, rows)[:, :S2],
                                        memory.tgt_in.index_select(0, rows)[:, :T2])
            for j, p in enumerate(todo):
                cache[keys[p]] = (kk[j, :t_len[p]], vv[j, :t_len[p]])
        first = cache[keys[0]]
        k = first[0].new_zeros(P, T, first[0].size(-1))
        v = first[1].new_zeros(P, T, first[1].size(-1))
        for p in range(P):
            cache.move_to_end(keys[p])
            ck, cv = cache[keys[p]]
            k[p, :t_len[p]], v[p, :t_len[p]] = ck, cv
        while len(cache) > self.CACHE_PAIRS:
            cache.popitem(last=False)
        return k, v

    def train(self, mode: bool = True):
        self.__dict__.pop("_pair_cache", None)  # weights may change: encodings are stale
        return super().train(mode)

    def update_state(self, enc: EncoderOutput, state: DecoderState, out: StepOutput) -> None:
        """Match, read, gate; advance the coverage beta (Algorithm 2, lines 16-20)."""
        mem = enc.extras.get("memory")
        if mem is None:
            return
        mask = mem["mask"]
        e = self.match_scores(mem["keys"], out.ctx)                              # (B, N)
        beta = state.extras.get("mem_beta")
        if self.use_coverage and beta is not None:
            e = e - self.coverage_weight * beta
        if self.use_score:
            e = e + self.score_weight * mem["score"]
        e = e.masked_fill(~mask, torch.finfo(e.dtype).min)
        q = torch.softmax(e, dim=-1) * mask                                      # (B, N)
        has = mask.any(-1, keepdim=True)                                         # (B, 1)
        z_mem = torch.bmm(q.unsqueeze(1).to(mem["values"].dtype), mem["values"]).squeeze(1)  # (B, H)
        gin = [out.ctx, out.hidden, z_mem]
        if self.use_score:
            gin.append((q * mem["score"]).sum(-1, keepdim=True).to(z_mem.dtype))  # s~_t (B, 1)
        g = self.gate_out(torch.tanh(self.gate_hidden(torch.cat(gin, -1)))).float()
        zeta = torch.sigmoid(g) * has
        state.extras["mem_beta"] = q * zeta if beta is None else beta + q * zeta
        out.extras["memory"] = {"q": q, "gate_logit": g, "zeta": zeta, "z_mem": z_mem, "has": has}

    # ---------------------------------------------------------------- fusion
    def readout_input(self, enc: EncoderOutput, out: StepOutput) -> Tensor | None:
        """Deep fusion (Eq. 5): the readout sees zeta z~ + (1 - zeta) z instead of z."""
        if self.kind != "deep":
            return None
        step = out.extras.get("memory")
        if step is None:
            return None
        delta = step["zeta"].to(out.hidden.dtype) * (step["z_mem"] - out.hidden)
        w = self._owner.readout.weight
        w = w() if callable(w) else w          # a dynamically quantised Linear keeps it packed
        if w.is_quantized:
            w = w.dequantize()
        return F.linear(delta, w[:, :delta.size(-1)].to(delta.dtype))

    def fuse_output(self, enc: EncoderOutput, out: StepOutput, log_probs: Tensor) -> Tensor:
        """Shallow fusion (Eq. 6): log(zeta p_copy + (1 - zeta) p_model), computed
        stably in log space; rows without memory are returned untouched.

        Only the tokens held in the memory (N per sentence, N << V) get a copy
        term, so the mixture is the model part log(1 - zeta) + log p_model plus,
        at those tokens, softplus(log(zeta p_copy) - model part) -- added once per
        distinct token (each of a token's c slots adds 1/c of it), which keeps the
        work to a few (B, V) and (B, N) operations per step: the per-token sums
        go through a scatter into the vocabulary, not an (N, N) token match
        (which made the cost grow with the square of the memory size)."""
        step = out.extras.get("memory")
        if self.kind != "shallow" or step is None:
            return log_probs
        mem = enc.extras["memory"]
        tokens, mask, q = mem["tokens"], mem["mask"], step["q"]                 # (B, N)
        g = step["gate_logit"].to(log_probs.dtype)                             # (B, 1)
        model_part = log_probs + F.logsigmoid(-g)                              # (B, V)
        B, V = log_probs.shape
        # p_copy of each slot's token: the match weights of every unmasked slot holding that token
        p_tok = torch.zeros(B, V, dtype=q.dtype, device=q.device).scatter_add_(1, tokens, q.masked_fill(~mask, 0))
        p_copy = p_tok.gather(1, tokens)                                       # (B, N)
        # slots per token (all slots, as the delta of each is added once per slot)
        count = torch.zeros(B, V, dtype=log_probs.dtype, device=q.device).scatter_add_(
            1, tokens, torch.ones_like(tokens, dtype=log_probs.dtype)).gather(1, tokens)
        a = model_part.gather(1, tokens)
        b = F.logsigmoid(g) + torch.log(p_copy.to(log_probs.dtype).clamp_min(1e-30))
        delta = torch.where(p_copy > 0, F.softplus(b - a), torch.zeros_like(a)) / count
        mixed = model_part.scatter_add(1, tokens, delta)
        return torch.where(step["has"], mixed, log_probs)

    def copy_report(self, enc: EncoderOutput, out: StepOutput, rows: Tensor, tokens: Tensor) -> Tensor | None:
        """[zeta * p_copy(token), zeta, pair, pos] per emitted token, pair/pos the memory slot
        contributing most to it (-1, -1 when no slot holds it)."""
        mem, step = enc.extras.get("memory"), out.extras.get("memory")
        if mem is None or step is None:
            return None
        held = mem["tokens"].index_select(0, rows)                                 # (n, N)
        hit = (held == tokens.unsqueeze(1)) & mem["mask"].index_select(0, rows)
        qm = step["q"].index_select(0, rows) * hit
        mass = qm.sum(-1)
        best = qm.argmax(-1, keepdim=True)
        found = mass > 0
        none = torch.full_like(mass, -1.0)
        pair = torch.where(found, mem["pair"].index_select(0, rows).gather(1, best).squeeze(1).to(mass.dtype), none)
        pos = torch.where(found, mem["pos"].index_select(0, rows).gather(1, best).squeeze(1).to(mass.dtype), none)
        zeta = step["zeta"].index_select(0, rows).squeeze(-1).to(mass.dtype)
        return torch.stack([zeta * mass, zeta, pair, pos], 1)


def copy_distribution(q: Tensor, tokens: Tensor, vocab: int) -> Tensor:
    """p_copy (B, V): the match weights q (B, N) summed per memory token (B, N)."""
    return torch.zeros(q.size(0), vocab, dtype=q.dtype, device=q.device).scatter_add_(1, tokens, q)


def memory_source(model: nn.Module) -> MemorySource | None:
    """The model's learned memory, or None."""
    for cs in model.context_sources:
        if isinstance(cs, MemorySource):
            return cs
    return None


def memory_parameters(model: nn.Module) -> list[nn.Parameter]:
    """The memory's own parameters (the parts new to SEG-NMT)."""
    ms = memory_source(model)
    return list(ms.parameters()) if ms is not None else []
