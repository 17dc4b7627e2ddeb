"""The model's work on one sentence kept between searches: the editor's completion refreshed as the
translator types.

A refresh searches the same source again with a typed prefix one character or word longer.  The
typed whole words are forced (``Limits``), so the model's inputs along them are the same each time:
the encoder output (B*K, S, A) and, per step t, the last tokens ``prev`` (B*K,) and the decoder state
(B*K, H), itself fixed by the earlier steps' tokens and the rows each step continued.  A
:class:`StepMemo` keeps, per step, that signature (``prev``, the rows continued before it) with the
step's output, new state and log-probabilities (B*K, V) -- so a search whose step t has the same
signature as the kept step t (and every step before it the same) takes them instead of running the
model.  The first step whose signature differs (a word typed, deleted or edited in the middle) and
every step after it run the model, and replace what was kept from there on.  Only the steps of the
forced prefix and the one after it are kept (``limit``): after it the beam chooses, and the next
refresh's prefix differs there.  Reusing is exact: the same inputs give the same outputs (the
rules' own state is not kept: every rule still sees every step).

Measured reason (RESULTS.md, issue 47 session 23): a refresh's CPU was 42 % the decoder's steps, most
of them along the typed words decoded again at every keystroke.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from torch import Tensor

KEEP = 4   # segments kept per translator (the one being typed, and a few the translator went back to)


class StepMemo:
    """Kept work of one sentence (one search key: source, beam, memory and context read)."""

    def __init__(self, kept: bool = False):
        self.kept = kept          # kept between searches (else a search's own: keeps no step)
        self.enc = None           # EncoderOutput, rows expanded to the beam (B*K, ...)
        self.steps: list = []     # per step: (signature, StepOutput, DecoderState, log-probs (B*K, V))
        self.limit = 0
        self.same = True          # this search's steps so far are the kept ones

    def start(self, limit: int) -> None:
        """A search begins; it may keep its first ``limit`` steps (forced prefix + 1)."""
        self.limit, self.same = limit, True

    def encode(self, run):
        """The encoder output: kept, or ``run()`` (nothing kept depends on anything but the key)."""
        if self.enc is None:
            self.enc = run()
        return self.enc

    def step(self, t: int, prev: Tensor, rows: list[int], run):
        """(out, state, lp) of step ``t`` with last tokens ``prev`` reached by continuing ``rows``: kept
        where step t's signature and all before it match, else ``run()`` (kept when t < limit).  A
        search that parts from the kept steps beyond its own limit (the unconstrained suggestion after
        the typed words' search) leaves them for the next keystroke."""
        sig = (tuple(prev.tolist()), tuple(rows))
        if self.same and t < len(self.steps) and self.steps[t][0] == sig:
            _, out, state, lp = self.steps[t]
            return out, state, lp.clone()     # the rules change lp in place
        self.same = False
        out, state, lp = run()
        if t < self.limit:
            del self.steps[t:]
            self.steps.append((sig, out, state, lp.clone()))
        return out, state, lp


def memo_for(owner, key: tuple) -> StepMemo:
    """``owner``'s memo of the search ``key`` (the last :data:`KEEP` keys kept, most recent last).  Each
    thread has its own: a memo is changed as its search goes, so two searches at once never share one
    (the editor's engine process searches on one thread, one request at a time)."""
    k = repr((key, threading.get_ident()))
    with _LOCK:
        memos: OrderedDict = owner.__dict__.setdefault("_step_memos", OrderedDict())
        if k not in memos:
            memos[k] = StepMemo(kept=True)
            while len(memos) > KEEP:
                memos.popitem(last=False)
        memos.move_to_end(k)
        return memos[k]


_LOCK = threading.Lock()
