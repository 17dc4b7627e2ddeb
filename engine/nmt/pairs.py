"""Retrieved translation pairs as model input: the pairs a memory reads, packed for a batch.

Both memories -- the learned key-value memory (:mod:`engine.nmt.memory`) and the
nearest-neighbour memory (:mod:`engine.nmt.knn`) -- read the same packing: the P
retrieved pairs of a batch of B sentences, padded, and per sentence its N memory
slots (one per target token of its pairs)::

    src (P, S'), tgt_in / tgt_out (P, T')      the pairs, teacher forcing
    slot_index (B, N) = row * T' + position    into the flattened (P * T') pair outputs
    slot_pair / slot_pos (B, N)                provenance: pair index (per sentence), token position
    slot_mask (B, N), slot_score (B, N)        real slots; fuzzy score of each slot's pair
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Sequence

import torch
from torch import Tensor

from engine.nmt.vocab import BOS, EOS, PAD

#: longest retrieved source/target kept (subwords, ``</s>`` included)
MAX_PAIR_LEN = 100

PairIds = tuple[list[int], list[int]]  # (source ids ending in </s>, target ids ending in </s>)


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
                scores: Sequence[Sequence[float]] | None = None, *, with_eos: bool = False) -> MemoryBatch | None:
    """Pack ``pairs[b]`` (the retrieved pairs of sentence b, as subword ids)
    for a batch; None when no sentence has a pair.  Every target token but
    ``</s>`` becomes a memory slot (``with_eos``: ``</s>`` too, for the
    nearest-neighbour memory, so that a copied 100 % match ends where it does).
    ``scores[b][k]``: fuzzy score of pair k of sentence b (read by
    ``model.memory_score`` models; 0 when not given)."""
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
        # one slot per target token; not </s> for the learned memory: copying "end of sentence" from a
        # retrieved pair ended its translations early (the model decides the length there)
        slots[b].extend((row * T + pos, k, pos) for pos in range(len(t) if with_eos else len(t) - 1))
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



# ------------------------------------------------------------------ text pairs to ids
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
