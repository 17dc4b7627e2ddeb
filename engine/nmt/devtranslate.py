"""The dev set translated during training (:func:`engine.nmt.train.train`'s evaluations): id lists
in, id lists out, shortest first in batches, given up between batches on a cancel."""
from __future__ import annotations

import threading
from typing import Callable

import torch

from engine.nmt.data import pad_sources
from engine.nmt.model import RNNSearch
from engine.nmt.search import beam_search, greedy
from engine.nmt.vocab import EOS


class Stopped(Exception):
    """A dev evaluation given up because the run was cancelled."""


def translate_ids(model: RNNSearch, src_ids: list[list[int]], *, beam: int, device: torch.device,
                  batch_size: int = 64, inputs_fn: Callable[[list[int]], dict] | None = None,
                  cancel: threading.Event | None = None) -> list[list[int]]:
    """Target ids (no ``</s>``) for source id lists (each ending in ``</s>``), input order.
    ``inputs_fn(indices)``: extra model inputs of a chunk of sentences (e.g. document context).
    :class:`Stopped` before the next batch once ``cancel`` is set."""
    order = sorted(range(len(src_ids)), key=lambda i: len(src_ids[i]))
    out: list[list[int]] = [[] for _ in src_ids]
    for k in range(0, len(order), batch_size):
        if cancel is not None and cancel.is_set():
            raise Stopped
        chunk = order[k:k + batch_size]
        src, mask = pad_sources([src_ids[i] for i in chunk])
        src, mask = src.to(device), mask.to(device)
        extra = {k: v.to(device) for k, v in inputs_fn(chunk).items()} if inputs_fn else {}
        hyps = (greedy(model, src, mask, **extra) if beam <= 1
                else beam_search(model, src, mask, beam=beam, **extra))
        for i, h in zip(chunk, hyps):
            out[i] = [t for t in h.tokens if t != EOS]
    return out
