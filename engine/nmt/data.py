"""Parallel data: reading, subword encoding, length-bucketed token-budget batches.

A batch is a set of sentence pairs of similar length whose padded size
(``rows * longest``, source or target, whichever is larger) stays within
the token budget.  The batch order is shuffled per epoch from ``seed +
epoch`` so an interrupted run resumes with exactly the same batches.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import torch

from engine.errors import FormatError
from engine.nmt.vocab import BOS, EOS, PAD, SubwordVocab


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file without their line breaks."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return [ln.rstrip("\r\n") for ln in fh]
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text ({e.reason})", f"byte {e.start}") from None
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None


def read_parallel(src: str | Path, tgt: str | Path) -> tuple[list[str], list[str]]:
    """Two line-aligned files; a different line count is an error naming both."""
    s, t = read_lines(src), read_lines(tgt)
    if len(s) != len(t):
        raise FormatError(tgt, f"has {len(t)} lines but {src} has {len(s)}: files are not line-aligned")
    return s, t


@dataclass
class Example:
    src: list[int]   # subword ids, ends with EOS
    tgt: list[int]   # subword ids, ends with EOS (no BOS)
    index: int       # line number in the corpus (0-based)


def encode_corpus(src_lines: list[str], tgt_lines: list[str], src_vocab: SubwordVocab,
                  tgt_vocab: SubwordVocab, *, max_len: int = 0) -> list[Example]:
    """Encode pairs; empty pairs and (when ``max_len``) over-long ones are dropped."""
    out = []
    S = src_vocab.encode_batch(src_lines)
    T = tgt_vocab.encode_batch(tgt_lines)
    for i, (s, t) in enumerate(zip(S, T)):
        if not s or not t:
            continue
        if max_len and (len(s) >= max_len or len(t) >= max_len):
            continue
        out.append(Example(s + [EOS], t + [EOS], i))
    return out


@dataclass
class Batch:
    """Padded tensors of one batch.

    ``src``: (B, S) ids, ``src_mask``: (B, S) bool (True = real token),
    ``tgt_in``: (B, T) ``<s> y1 .. y_{T-1}``, ``tgt_out``: (B, T) ``y1 .. </s>``,
    ``tgt_mask``: (B, T) bool.  ``n_tgt``: real target tokens.
    ``inputs``: extra keyword inputs of the model (e.g. ``doc``: document context).
    """

    src: torch.Tensor
    src_mask: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    tgt_mask: torch.Tensor
    indices: list[int]
    inputs: dict = field(default_factory=dict)

    @property
    def n_tgt(self) -> int:
        return int(self.tgt_mask.sum())

    def to(self, device) -> "Batch":
        return Batch(self.src.to(device), self.src_mask.to(device), self.tgt_in.to(device),
                     self.tgt_out.to(device), self.tgt_mask.to(device), self.indices,
                     {k: v.to(device) if hasattr(v, "to") else v for k, v in self.inputs.items()})


def pad_sources(seqs: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, S) ids and mask for source id lists (each already ending in EOS)."""
    S = max(len(s) for s in seqs)
    src = torch.full((len(seqs), S), PAD, dtype=torch.long)
    for i, s in enumerate(seqs):
        src[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return src, src != PAD


def collate(examples: list[Example]) -> Batch:
    src, src_mask = pad_sources([e.src for e in examples])
    T = max(len(e.tgt) for e in examples)
    tgt_out = torch.full((len(examples), T), PAD, dtype=torch.long)
    tgt_in = torch.full((len(examples), T), PAD, dtype=torch.long)
    for i, e in enumerate(examples):
        tgt_out[i, :len(e.tgt)] = torch.tensor(e.tgt)
        tgt_in[i, :len(e.tgt)] = torch.tensor([BOS] + e.tgt[:-1])
    return Batch(src, src_mask, tgt_in, tgt_out, tgt_out != PAD, [e.index for e in examples])


def make_batches(examples: list[Example], batch_tokens: int, *, seed: int | None = None,
                 epoch: int = 0) -> list[list[Example]]:
    """Group examples into token-budget batches of similar length.

    Examples are sorted by (target, source) length so that padding is small;
    with ``seed`` the sort is broken randomly among equal lengths and the
    batch order is shuffled (deterministically from ``seed + epoch``).
    A single pair longer than the budget still gets a batch of its own.
    """
    rng = random.Random(None if seed is None else seed * 100_003 + epoch)
    keyed = [(len(e.tgt), len(e.src), rng.random() if seed is not None else 0.0, k)
             for k, e in enumerate(examples)]
    keyed.sort()
    batches = pack_batches([examples[k] for *_, k in keyed], batch_tokens)
    if seed is not None:
        rng.shuffle(batches)
    return batches


def pack_batches(ordered: list[Example], batch_tokens: int) -> list[list[Example]]:
    """Cut ``ordered`` into consecutive batches whose padded size (rows x longest
    pair) stays within ``batch_tokens``; a pair longer than the budget gets a batch
    of its own."""
    batches: list[list[Example]] = []
    cur: list[Example] = []
    longest = 0
    for e in ordered:
        n = max(len(e.src), len(e.tgt))
        if cur and max(longest, n) * (len(cur) + 1) > batch_tokens:
            batches.append(cur)
            cur, longest = [], 0
        cur.append(e)
        longest = max(longest, n)
    if cur:
        batches.append(cur)
    return batches
