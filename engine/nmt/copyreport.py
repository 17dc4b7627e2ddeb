"""Which words of a translation came from the translation memory, and from which entry.

Either memory reports, per emitted token, a row [copy mass, weight, pair, pos]
(``ContextSource.copy_report``): the learned memory zeta * p_copy(token) and zeta, the
nearest-neighbour memory lambda * p_kNN(token) and lambda; ``pair``/``pos`` the memory slot
that contributed most (-1 when no retrieved pair holds the token).  The searches record these
rows as they go (``Hypothesis.copy``); :func:`trace_copies` makes them with a teacher-forced
pass where a search did not.  :func:`annotate` turns them into one :class:`CopiedWord` per
target word that came from the memory.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from engine.nmt.pairs import PairIds
from engine.nmt.results import CopiedWord
from engine.nmt.vocab import BOS, PAD, word_spans


@dataclass
class CopyTrace:
    """Per target token: ``copy`` (copy mass), ``weight`` (the memory's weight that step) and the
    slot contributing most (``pair`` index, ``pos`` in that pair's target; -1 when none)."""

    copy: list[float]
    weight: list[float]
    pair: list[int]
    pos: list[int]

    @classmethod
    def of_rows(cls, rows: Tensor) -> "CopyTrace":
        c = rows.tolist()
        return cls([r[0] for r in c], [r[1] for r in c], [int(r[2]) for r in c], [int(r[3]) for r in c])


def traces_of(hyps) -> list[CopyTrace] | None:
    """Copy traces recorded by the search itself (``Hypothesis.copy``), or None
    when a hypothesis lacks one (then :func:`trace_copies` runs a second pass)."""
    if not hyps or any(h.copy is None for h in hyps):
        return None
    return [CopyTrace.of_rows(h.copy) for h in hyps]


@torch.inference_mode()
def trace_copies(model: nn.Module, src: Tensor, src_mask: Tensor, tgt: list[list[int]], **inputs) -> list[CopyTrace]:
    """Run the model teacher-forced over translations ``tgt`` (ids, ``</s>``
    included) with its memory ``inputs`` and report each token's copy mass and source."""
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
    enc = model.encode(src, src_mask, **inputs)
    state = model.init_state(enc)
    y = model.embed_target(tgt_in)
    rows = torch.arange(B, device=dev)
    cols: list[Tensor] = []
    for i in range(T):
        out, state = model.step(y[:, i], state, enc)
        model.step_log_probs(out, enc)            # the fusion records what each memory gave this step
        rep = model.copy_report(enc, out, rows, tgt_out[:, i])
        if rep is None:
            rep = torch.tensor([[0.0, 0.0, -1.0, -1.0]], device=dev).expand(B, 4)
        cols.append(rep.float())
    table = torch.stack(cols, 1)                  # (B, T, 4)
    return [CopyTrace.of_rows(table[b, :len(t)]) for b, t in enumerate(tgt)]


def annotate(results, traces: list[CopyTrace | None], pairs: list[list], pair_ids: list[list[PairIds]],
             tgt_vocab) -> None:
    """Add to each :class:`~engine.nmt.translator.TranslationResult` of a batch the retrieved
    pairs it read (``memory_pairs``), per word its copy mass (mean over the word's subwords,
    ``copy``) and, in ``memory``, a :class:`CopiedWord` naming where the most-copied subword came
    from (None for a word the memory did not give)."""
    for r, tr, plist, pids in zip(results, traces, pairs, pair_ids):
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
            r.memory.append(CopiedWord(r.copy[-1], k, wi, word, plist[k].uid, plist[k].line))
