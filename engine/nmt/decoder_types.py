"""The types every part of the decoder shares: what the encoder hands the decoder, the recurrent
state, one step's output, and the hook interface of extra context sources.

Shapes (notation of :mod:`engine.nmt.model`)::

    B batch (sentences x beam), S source length, A annotation size, H hidden size,
    E embedding size, R readout size, V vocabulary

Context sources (:class:`ContextSource`: the learned TM memory :mod:`engine.nmt.memory`, the
nearest-neighbour memory :mod:`engine.nmt.knn`, the document context :mod:`engine.nmt.doccontext`)
are attached to a model by :func:`engine.nmt.build.build_model`; their per-sentence data ride in
``EncoderOutput.extras`` and their per-hypothesis state in ``DecoderState.extras``, which beam
search reorders like everything else.  This module imports no other part of the NMT package, so
the model and every source import it without a circle.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

from torch import Tensor, nn


def _index(v, idx: Tensor):
    if isinstance(v, Tensor):
        return v.index_select(0, idx)
    if isinstance(v, dict):
        return {k: _index(x, idx) for k, x in v.items()}
    return v


@dataclass
class EncoderOutput:
    """What the decoder attends to, batch first.

    ``ann``: (B, S, A) annotations; ``mask``: (B, S) bool, True = real token;
    ``keys``: (B, S, att) precomputed W_a h_j; ``src_emb``: (B, S, E) source
    word embeddings (for bridging); ``extras``: data of context sources.
    """

    ann: Tensor
    mask: Tensor
    keys: Tensor
    src_emb: Tensor
    extras: dict = field(default_factory=dict)

    def index_select(self, idx: Tensor) -> "EncoderOutput":
        """Rows ``idx`` of every tensor (beam expansion and reordering)."""
        return EncoderOutput(**{f.name: _index(getattr(self, f.name), idx) for f in fields(self)})


@dataclass
class DecoderState:
    """Recurrent state of a batch of hypotheses: ``hidden`` (B, H) = t_{i-1};
    ``extras``: per-hypothesis state of context sources (e.g. a coverage vector)."""

    hidden: Tensor
    extras: dict = field(default_factory=dict)

    def index_select(self, idx: Tensor) -> "DecoderState":
        return DecoderState(_index(self.hidden, idx), _index(self.extras, idx))


@dataclass
class StepOutput:
    """One decoder step: ``hidden`` (B, H) t_i, ``ctx`` (B, A) c_i,
    ``attn`` (B, S) a_i, ``gate`` (B, H) z_i or None, ``prev_emb`` (B, E);
    ``readout`` (B, R): o_i, the vector the output layer reads (set by
    ``RNNSearch.step_log_probs``; the nearest-neighbour memory's query);
    ``extras``: per-step values of context sources (e.g. memory weights and gate)."""

    hidden: Tensor
    ctx: Tensor
    attn: Tensor
    gate: Tensor | None
    prev_emb: Tensor
    extras: dict = field(default_factory=dict)
    readout: Tensor | None = None


class ContextSource(nn.Module):
    """Base class of extra context sources (issues: TM memory, document context).

    Every hook may return None to contribute nothing.  Shapes as in the
    module docstring.  ``inference_only`` sources (no parameters, read only at
    translation time) do not change how a model is trained.
    """

    inference_only = False

    def encoder_init(self, src: Tensor, src_mask: Tensor, extras: dict, **inputs) -> Tensor | None:
        """Before encoding: (2, B, H) added to the bi-GRU encoder's initial state
        (zeros otherwise).  ``extras`` becomes ``EncoderOutput.extras``: data
        computed here (e.g. a document summary) can be kept for later hooks."""
        return None

    def prepare(self, enc: EncoderOutput, **inputs) -> None:
        """Put per-sentence data into ``enc.extras`` (e.g. memory keys/values)."""

    def init_state(self, enc: EncoderOutput) -> Tensor | None:
        """(B, H) added inside tanh of the initial decoder state."""
        return None

    def step_input(self, enc: EncoderOutput, state: DecoderState, query: Tensor,
                   ctx: Tensor) -> Tensor | None:
        """(B, H) added to the source part S_i of the decoder update."""
        return None

    def update_input(self, enc: EncoderOutput, state: DecoderState, y_emb: Tensor, query: Tensor,
                     ctx: Tensor) -> Tensor | None:
        """Like :meth:`step_input`, also given ``y_emb`` = e(y_{i-1}).  (B, H), or with the
        GRU cell (B, 3H): source-side input of the reset, update and candidate
        pre-activations.  By default it is :meth:`step_input`."""
        return self.step_input(enc, state, query, ctx)

    def readout_input(self, enc: EncoderOutput, out: StepOutput) -> Tensor | None:
        """(B, readout pre-activation) added to the readout (deep fusion)."""
        return None

    def fuse_output(self, enc: EncoderOutput, out: StepOutput, log_probs: Tensor) -> Tensor:
        """(B, V) log-probabilities after mixing (shallow fusion)."""
        return log_probs

    def update_state(self, enc: EncoderOutput, state: DecoderState, out: StepOutput) -> None:
        """Advance per-hypothesis state in ``state.extras`` (e.g. coverage)."""

    def copy_report(self, enc: EncoderOutput, out: StepOutput, rows: Tensor, tokens: Tensor) -> Tensor | None:
        """(n, 4) report of emitting ``tokens`` (n,) from decoder rows ``rows`` (n,) after step
        ``out`` (once :meth:`fuse_output` has run): [copy mass of the token, the source's weight
        this step, pair index, token position in that pair's target] (-1, -1 when no retrieved
        pair holds the token); None when this source read no translation memory."""
        return None
