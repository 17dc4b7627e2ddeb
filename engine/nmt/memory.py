"""Key-value memory of retrieved translation pairs: search-engine guided NMT.

Gu, Wang, Cho, Li, *Search Engine Guided Neural Machine Translation* (AAAI 2018),
as a :class:`~engine.nmt.model.ContextSource` of :class:`~engine.nmt.model.RNNSearch`
(``model.memory = "shallow" | "deep"``).

Memory (per sentence, any number of retrieved pairs (X', Y'), batched and masked):
the same attention model runs teacher-forced over each pair; for every target
token y'_tau it stores the key c'_tau (its context vector) and the value
(z'_tau, y'_tau) (decoder state, token).  :func:`pack_memory` packs the pairs of a
batch; :meth:`MemorySource.prepare` runs the model over them.

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
:func:`trace_copies` reports, per output token, the copy mass zeta * p_copy(y)
and the memory slot (pair, position) that contributed most.
"""
from __future__ import annotations

import math
import random
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine.nmt.model import ContextSource, DecoderState, EncoderOutput, StepOutput
from engine.nmt.vocab import BOS, EOS, PAD

#: longest retrieved source/target kept (subwords, ``</s>`` included)
MAX_PAIR_LEN = 100

PairIds = tuple[list[int], list[int]]  # (source ids ending in </s>, target ids ending in </s>)


# ------------------------------------------------------------------ packing
@dataclass
class MemoryBatch:
    """The retrieved pairs of a batch of B sentences, packed.

    ``src`` (P, S') / ``src_mask``: the P pairs' sources; ``tgt_in`` / ``tgt_out``
    (P, T'): their targets for teacher forcing.  Memory slot n of sentence b is
    token ``slot_pos[b, n]`` of pair ``slot_pair[b, n]`` (index among that
    sentence's pairs, as given); ``slot_index[b, n]`` = row * T' + position in
    the flattened (P * T') pair outputs; ``slot_mask`` (B, N) marks real slots;
    ``slot_score`` (B, N) the fuzzy score of each slot's pair (0 where unknown).
    """

    src: Tensor
    src_mask: Tensor
    tgt_in: Tensor
    tgt_out: Tensor
    slot_index: Tensor
    slot_mask: Tensor
    slot_pair: Tensor
    slot_pos: Tensor
    slot_score: Tensor

    def to(self, device) -> "MemoryBatch":
        return MemoryBatch(**{f.name: getattr(self, f.name).to(device) for f in fields(self)})

    @property
    def pairs(self) -> int:
        return self.src.size(0)


def _clip(ids: list[int]) -> list[int]:
    ids = [i for i in ids if i != PAD]
    if not ids or ids[-1] != EOS:
        ids = ids + [EOS]
    if len(ids) > MAX_PAIR_LEN:
        ids = ids[:MAX_PAIR_LEN - 1] + [EOS]
    return ids


def pack_memory(pairs: Sequence[Sequence[PairIds]], device: torch.device | str | None = None,
                scores: Sequence[Sequence[float]] | None = None) -> MemoryBatch | None:
    """Pack ``pairs[b]`` (the retrieved pairs of sentence b, as subword ids)
    for a batch; None when no sentence has a pair.  Every target token but
    ``</s>`` becomes a memory slot.  ``scores[b][k]``: fuzzy score of pair k
    of sentence b (read by ``model.memory_score`` models; 0 when not given)."""
    flat: list[tuple[int, int, list[int], list[int], float]] = []  # (sentence, k, src, tgt, score)
    for b, plist in enumerate(pairs):
        for k, (s, t) in enumerate(plist):
            sc = float(scores[b][k]) if scores is not None else 0.0
            flat.append((b, k, _clip(list(s)), _clip(list(t)), sc))
    if not flat:
        return None
    P = len(flat)
    S = max(len(f[2]) for f in flat)
    T = max(len(f[3]) for f in flat)
    src = torch.full((P, S), PAD, dtype=torch.long)
    tgt_in = torch.full((P, T), PAD, dtype=torch.long)
    tgt_out = torch.full((P, T), PAD, dtype=torch.long)
    slots: list[list[tuple[int, int, int]]] = [[] for _ in pairs]  # (flat index, k, pos)
    pair_score = [f[4] for f in flat]
    for row, (b, k, s, t, _) in enumerate(flat):
        src[row, :len(s)] = torch.tensor(s)
        tgt_out[row, :len(t)] = torch.tensor(t)
        tgt_in[row, :len(t)] = torch.tensor([BOS] + t[:-1])
        # one slot per target token; not </s>: copying "end of sentence" from a retrieved pair would
        # end translations early (the model decides the length)
        slots[b].extend((row * T + pos, k, pos) for pos in range(len(t) - 1))
    N = max(len(x) for x in slots)
    if N == 0:  # only empty targets
        return None
    B = len(pairs)
    idx = torch.zeros((B, N), dtype=torch.long)
    pair = torch.full((B, N), -1, dtype=torch.long)
    pos = torch.full((B, N), -1, dtype=torch.long)
    mask = torch.zeros((B, N), dtype=torch.bool)
    score = torch.zeros((B, N), dtype=torch.float)
    for b, sl in enumerate(slots):
        if sl:
            t = torch.tensor(sl)
            idx[b, :len(sl)], pair[b, :len(sl)], pos[b, :len(sl)] = t[:, 0], t[:, 1], t[:, 2]
            mask[b, :len(sl)] = True
            score[b, :len(sl)] = torch.tensor([pair_score[i // T] for i, _, _ in sl])
    mb = MemoryBatch(src, src != PAD, tgt_in, tgt_out, idx, mask, pair, pos, score)
    return mb.to(device) if device is not None else mb


# ------------------------------------------------------------------ the context source
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


def copy_distribution(q: Tensor, tokens: Tensor, vocab: int) -> Tensor:
    """p_copy (B, V): the match weights q (B, N) summed per memory token (B, N)."""
    return torch.zeros(q.size(0), vocab, dtype=q.dtype, device=q.device).scatter_add_(1, tokens, q)


def memory_source(model: nn.Module) -> MemorySource | None:
    for cs in getattr(model, "context_sources", ()):
        if isinstance(cs, MemorySource):
            return cs
    return None


def memory_parameters(model: nn.Module) -> list[nn.Parameter]:
    """The memory's own parameters (the parts new to SEG-NMT)."""
    ms = memory_source(model)
    return list(ms.parameters()) if ms is not None else []


# ------------------------------------------------------------------ reporting
@dataclass
class CopyTrace:
    """Per target token (teacher-forced along a given translation): ``copy`` =
    zeta * p_copy(token), ``zeta`` the gate, and the memory slot contributing
    most to that token (``pair`` index, ``pos`` token position in that pair's
    target; -1 when no memory slot holds the token)."""

    copy: list[float]
    zeta: list[float]
    pair: list[int]
    pos: list[int]


def copy_info(mem: dict, step: dict, rows: Tensor, tokens: Tensor) -> Tensor:
    """Copy report of emitting ``tokens`` (n,) from decoder rows ``rows`` (n,) at
    one step: (n, 4) = [zeta * p_copy(token), zeta, pair, pos] with pair/pos the
    memory slot contributing most to that token (-1, -1 when no slot holds it).
    ``mem``: ``EncoderOutput.extras["memory"]``; ``step``: ``StepOutput.extras["memory"]``."""
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


def traces_of(hyps) -> list["CopyTrace"] | None:
    """Copy traces recorded by the search itself (``Hypothesis.copy``), or None
    when a hypothesis lacks one (then :func:`trace_copies` runs a second pass)."""
    if not hyps or any(getattr(h, "copy", None) is None for h in hyps):
        return None
    out = []
    for h in hyps:
        c = h.copy.tolist()
        out.append(CopyTrace(copy=[r[0] for r in c], zeta=[r[1] for r in c], pair=[int(r[2]) for r in c],
                             pos=[int(r[3]) for r in c]))
    return out


@torch.inference_mode()
def trace_copies(model: nn.Module, src: Tensor, src_mask: Tensor, tgt: list[list[int]],
                 memory: MemoryBatch) -> list[CopyTrace]:
    """Run the model teacher-forced over translations ``tgt`` (ids, ``</s>``
    included) with ``memory`` and report each token's copy mass and source."""
    model.eval()
    B = src.size(0)
    T = max(len(t) for t in tgt)
    dev = src.device
    tgt_out = torch.full((B, T), PAD, dtype=torch.long, device=dev)
    tgt_in = torch.full((B, T), PAD, dtype=torch.long, device=dev)
    for b, t in enumerate(tgt):
        if t:
            tgt_out[b, :len(t)] = torch.tensor(t, device=dev)
            tgt_in[b, :len(t)] = torch.tensor([BOS] + t[:-1], device=dev)
    enc = model.encode(src, src_mask, memory=memory)
    mem = enc.extras.get("memory")
    state = model.init_state(enc)
    y = model.embed_target(tgt_in)
    cols: list[tuple[Tensor, Tensor, Tensor, Tensor]] = []
    for i in range(T):
        out, state = model.step(y[:, i], state, enc)
        step = out.extras.get("memory")
        if step is None or mem is None:
            z = torch.zeros(B, device=dev)
            cols.append((z, z, torch.full((B,), -1, device=dev), torch.full((B,), -1, device=dev)))
            continue
        c = copy_info(mem, step, torch.arange(B, device=dev), tgt_out[:, i])
        cols.append((c[:, 0], c[:, 1], c[:, 2].long(), c[:, 3].long()))
    out_traces = []
    for b, t in enumerate(tgt):
        n = len(t)
        out_traces.append(CopyTrace(
            copy=[float(cols[i][0][b]) for i in range(n)], zeta=[float(cols[i][1][b]) for i in range(n)],
            pair=[int(cols[i][2][b]) for i in range(n)], pos=[int(cols[i][3][b]) for i in range(n)]))
    return out_traces


# ------------------------------------------------------------------ starting from a baseline
def init_from_checkpoint(model: nn.Module, path, *, strict_shapes: bool = True) -> dict:
    """Copy the tensors of a baseline (a model folder's best checkpoint, or a
    ``.safetensors`` file) into ``model``; parameters the baseline lacks (the
    memory) keep their initial values.  Returns ``{"loaded": n, "new": [names]}``."""
    from pathlib import Path

    from engine.errors import ModelError
    from engine.nmt import checkpoint as ckpt

    path = Path(path)
    if path.is_dir():
        man = ckpt.read_json(path / "manifest.json") if (path / "manifest.json").is_file() else {}
        path = (ckpt.inside(path, man["best"], f"{path / 'manifest.json'}, 'best'") if man.get("best")
                else path / "last" / "model.safetensors")
    tensors = ckpt.load_tensors(path)
    state = model.state_dict()
    loaded, new = 0, []
    done_ptrs = set()
    with torch.no_grad():
        for k, v in state.items():
            if k not in tensors and v.data_ptr() in done_ptrs:
                continue  # a tied alias of a tensor already copied
            if k in tensors:
                done_ptrs.add(v.data_ptr())
                if tuple(tensors[k].shape) != tuple(v.shape):
                    if strict_shapes:
                        raise ModelError(f"{path}: {k} has shape {tuple(tensors[k].shape)}, the model "
                                         f"needs {tuple(v.shape)} (a different vocabulary or size?)")
                    continue
                v.copy_(tensors[k].to(v.dtype))
                loaded += 1
            else:
                new.append(k)
    unknown = sorted(set(tensors) - set(state))
    if unknown:
        raise ModelError(f"{path}: has tensors this model lacks ({unknown[:3]})")
    return {"loaded": loaded, "new": new}


# ------------------------------------------------------------------ training (Algorithm 2)
class MemoryFeed:
    """Retrieved pairs of training batches and dev sentences as model inputs.

    Training pairs get their top-K neighbours from a TM of the training set
    (never themselves nor a same-source pair; cached on disk, see
    :class:`engine.nmt.retrieval.TrainingRetrieval`); dev sentences their top-K.
    ``exact_rate`` (``train.memory_exact_rate``, default 0): that share of the
    training pairs, drawn per (seed, epoch, line) so that a resumed run draws
    the same, reads itself as a 100 % match (score 1.0) before its neighbours.
    """

    def __init__(self, retrieval, src_lines: Sequence[str], tgt_lines: Sequence[str], src_vocab, tgt_vocab,
                 dev_neighbours: list[list[tuple[int, float]]], *, k: int = 1, exact_rate: float = 0.0,
                 seed: int = 1):
        self.retrieval = retrieval
        self.src, self.tgt = src_lines, tgt_lines
        self.sv, self.tv = src_vocab, tgt_vocab
        self.dev = dev_neighbours
        self.k, self.exact_rate, self.seed = k, exact_rate, seed
        self._ids: dict[int, PairIds] = {}

    @classmethod
    def for_training(cls, cfg, folder, src_lines, tgt_lines, dev_src, src_vocab, tgt_vocab) -> "MemoryFeed":
        from pathlib import Path

        from engine.nmt.retrieval import TrainingRetrieval

        d, tc = cfg.data, cfg.train
        cache = Path(tc.memory_cache) if tc.memory_cache else Path(folder) / "memory"
        r = TrainingRetrieval(cache, d.train_src, d.train_tgt, src_lines, tgt_lines, k=tc.memory_k_train,
                              src_lang=d.src_lang, tgt_lang=d.tgt_lang)
        return cls(r, src_lines, tgt_lines, src_vocab, tgt_vocab, r.query(list(dev_src), k=tc.memory_k_train),
                   k=tc.memory_k_train, exact_rate=tc.memory_exact_rate, seed=tc.seed)

    def pair_ids(self, line: int) -> PairIds:
        if line not in self._ids:
            self._ids[line] = (self.sv.encode(self.src[line]) + [EOS], self.tv.encode(self.tgt[line]) + [EOS])
        return self._ids[line]

    def _inputs(self, neigh: list[list[tuple[int, float]]]) -> dict:
        mb = pack_memory([[self.pair_ids(j) for j, _ in n] for n in neigh],
                         scores=[[s for _, s in n] for n in neigh])
        return {"memory": mb} if mb is not None else {}

    def reads_itself(self, line: int, epoch: int) -> bool:
        """Whether training line ``line`` reads itself as a 100 % match in ``epoch``."""
        if self.exact_rate <= 0.0:
            return False
        return random.Random(f"{self.seed}:{epoch}:{line}").random() < self.exact_rate

    def train_inputs(self, indices: list[int], epoch: int = 0) -> dict:
        """``{"memory": MemoryBatch}`` for a batch of training lines (``{}`` if none has a neighbour)."""
        found = self.retrieval.neighbours(indices)
        neigh = [([(i, 1.0)] + found[i])[:self.k] if self.reads_itself(i, epoch) else found[i] for i in indices]
        return self._inputs(neigh)

    def dev_inputs(self, rows: list[int]) -> dict:
        return self._inputs([self.dev[i] for i in rows])


def start_from_baseline(model: nn.Module, train_cfg, *, resuming: bool) -> dict | None:
    """``train.init_from``: copy a baseline's tensors into a fresh model (not on
    resume); ``train.memory_only`` / ``train.context_only``: train only the
    memory / the document-context parts (both flags: both).  With
    ``context_only`` the projections of the document context start at zero
    (not on resume), so the model starts as the baseline."""
    info = None
    if train_cfg.init_from and not resuming:
        info = init_from_checkpoint(model, train_cfg.init_from)
    context_only = getattr(train_cfg, "context_only", False)
    if context_only:
        from engine.nmt.doccontext import find_doc_context

        doc = find_doc_context(model)
        if doc is None:
            raise ValueError("train.context_only: the model has no document context (model.doc_context)")
        if not resuming:
            doc.silence()
    if train_cfg.memory_only or context_only:
        keep = {id(p) for p in memory_parameters(model)} if train_cfg.memory_only else set()
        if context_only:
            keep |= {id(p) for p in doc.parameters() if p.requires_grad}
        for p in model.parameters():
            p.requires_grad_(id(p) in keep)
    return info


# ------------------------------------------------------------------ inference helpers (Translator)
def as_pairs(items) -> list:
    """Retrieved pairs as :class:`~engine.nmt.retrieval.RetrievedPair` (accepts
    those, ``(source, target)`` tuples and TM ``Match`` objects)."""
    from engine.nmt.retrieval import RetrievedPair

    out = []
    for it in items or ():
        if isinstance(it, RetrievedPair):
            out.append(it)
        elif isinstance(it, (tuple, list)):
            out.append(RetrievedPair(str(it[0]), str(it[1]), float(it[2]) if len(it) > 2 else 0.0))
        elif hasattr(it, "entry") and hasattr(it, "score"):  # engine.tm.Match
            out.append(RetrievedPair(it.source.text, it.target.text, float(it.score), it.entry.id))
        else:
            raise TypeError(f"not a retrieved pair: {it!r}")
    return out


def encode_pairs(pairs, src_vocab, tgt_vocab) -> list[PairIds]:
    return [(src_vocab.encode(p.source) + [EOS], tgt_vocab.encode(p.target) + [EOS]) for p in pairs]


def annotate(results, model, src: Tensor, src_mask: Tensor, hyps, memory: MemoryBatch | None,
             pairs: list[list], pair_ids: list[list[PairIds]], tgt_vocab) -> None:
    """Add to each :class:`~engine.nmt.translator.TranslationResult` of a batch
    the retrieved pairs it read (``memory_pairs``), per word the copy mass
    zeta * p_copy (mean over the word's subwords, ``copy``) and, in ``memory``,
    where the most-copied subword came from: ``weight`` (the word's copy),
    ``entry_index`` (pair), ``token_index`` and ``word`` (word of that pair's
    target), TM unit ``id`` / corpus ``line``; None when no pair holds it."""
    from engine.nmt.vocab import word_spans

    traces = ((traces_of(hyps) or trace_copies(model, src, src_mask, [h.tokens for h in hyps], memory))
              if memory is not None else [None] * len(hyps))
    for r, h, tr, plist, pids in zip(results, hyps, traces, pairs, pair_ids):
        r.memory_pairs = [p.to_json() for p in plist]
        r.copy, r.memory = [], []
        for a, b in word_spans(r.tokens):
            vals = tr.copy[a:b] if tr is not None else []
            r.copy.append(sum(vals) / len(vals) if vals else 0.0)
            if not vals:
                r.memory.append(None)
                continue
            best = a + max(range(len(vals)), key=vals.__getitem__)
            k, pos = tr.pair[best], tr.pos[best]
            if k < 0 or tr.copy[best] <= 0.0:
                r.memory.append(None)
                continue
            pieces = tgt_vocab.pieces(pids[k][1][:-1]) + ["</s>"]
            wspans = word_spans(pieces)
            wi = next((n for n, (c, d) in enumerate(wspans) if c <= pos < d), -1)
            word = "".join(p.replace("\u2581", "") for p in pieces[wspans[wi][0]:wspans[wi][1]]) if wi >= 0 else "</s>"
            ref = {"weight": r.copy[-1], "entry_index": k, "token_index": wi, "word": word}
            if plist[k].uid is not None:
                ref["id"] = plist[k].uid
            if plist[k].line is not None:
                ref["line"] = plist[k].line
            r.memory.append(ref)
