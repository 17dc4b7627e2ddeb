"""What a model reads besides its sentences while it trains: the retrieved pairs of each training
batch and dev sentence (SEG-NMT, Gu et al. 2018, Algorithm 2), and the start from a baseline.

Training pairs get their top-K neighbours from a TM of the training set (never themselves nor a
same-source pair; cached on disk, :class:`engine.nmt.retrieval.TrainingRetrieval`), packed as
:mod:`engine.nmt.pairs` packs them for translation.
"""
from __future__ import annotations

import random
from typing import Sequence

from torch import nn

from engine.nmt.checkpoint import init_from_checkpoint
from engine.nmt.memory import memory_parameters
from engine.nmt.pairs import PairIds, pack_memory
from engine.nmt.vocab import EOS


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
    context_only = train_cfg.context_only
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
