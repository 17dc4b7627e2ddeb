"""RNNSearch: bi-GRU encoder, additive attention, conditional-GRU decoder.

One class, :class:`RNNSearch`, with the knobs of :class:`~engine.nmt.config.ModelConfig`.
Notation (Tu et al. 2017, "Context Gates"; Kuang et al. 2018, "Bridging")::

    B batch, S source length, T target length, V vocabulary,
    E embedding size, H decoder/encoder hidden size, A annotation size
    (2H, or 2H + E with source bridging), R readout size (= E).

Decoder step i (dl4mt / Nematus conditional GRU; ``cell = "tanh"`` is the
"vanilla" RNN of the context-gates paper)::

    s'_i  = GRU_1(e(y_{i-1}), t_{i-1})          (tanh cell: s'_i = t_{i-1})
    a_i   = softmax_j v^T tanh(W_a h_j + U_a s'_i)   (masked)   c_i = sum_j a_ij h_j
    x^_i  = e(x_{argmax_j a_ij})                  (target bridging only)
    target part  T_i = r_i o (U s'_i + b)          (tanh cell: W e(y_{i-1}) + U t_{i-1})
    source part  S_i = C c_i [+ X x^_i] [+ extra context inputs]
    z_i   = sigmoid(W_z e(y_{i-1}) + U_z t_{i-1} + C_z c_i)        (Eq. 4)
    gate  none: T + S | source: T + z o S | target: z o T + S | both: (1-z) o T + z o S
    GRU:  t_i = (1 - u_i) o s'_i + u_i o tanh(gated)      tanh: t_i = tanh(gated)
    readout  o_i = maxout/tanh(W_o t_i + V_o e(y_{i-1}) + C_o c_i)  -> logits = E_out o_i

Extension points for more context sources (the learned TM memory, the
nearest-neighbour memory, document context): the
:class:`~engine.nmt.decoder_types.ContextSource` objects a model is given
(``RNNSearch(cfg, sources=...)``; :func:`engine.nmt.build.build_model` picks
them from the config) may add to the initial state, add a source-side input
of every decoder update, add to the readout (deep fusion) and mix the output
distribution (shallow fusion).  This class never chooses them.
"""
from __future__ import annotations

from typing import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from engine.nmt.config import ModelConfig
from engine.nmt.decoder_types import ContextSource, DecoderState, EncoderOutput, StepOutput
from engine.nmt.vocab import PAD


# ---------------------------------------------------------------- the model
class RNNSearch(nn.Module):
    """Attention-based encoder-decoder with optional context gates and bridging.

    ``sources``: factories of the context sources this model reads, each called with the model
    once its own layers exist (so a source can size itself from them), in the order given; their
    parameters are initialised with the model's."""

    def __init__(self, cfg: ModelConfig, sources: Sequence[Callable[["RNNSearch"], ContextSource]] = ()):
        super().__init__()
        cfg.validate()
        if cfg.src_vocab <= 0 or cfg.tgt_vocab <= 0:
            raise ValueError("model.src_vocab and model.tgt_vocab must be set")
        self.cfg = cfg
        E, H = cfg.emb_dim, cfg.hidden
        att = cfg.att_dim or H
        self.bridge_source = "source" in cfg.bridging
        self.bridge_target = "target" in cfg.bridging
        self.bridge_direct = "direct" in cfg.bridging
        A = 2 * H + (E if self.bridge_source else 0)
        self.ann_dim = A

        self.src_emb = nn.Embedding(cfg.src_vocab, E, padding_idx=PAD)
        self.tgt_emb = self.src_emb if cfg.tie == "all" else nn.Embedding(cfg.tgt_vocab, E, padding_idx=PAD)
        self.emb_drop = nn.Dropout(cfg.emb_dropout)
        self.drop = nn.Dropout(cfg.dropout)

        self.encoder = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.init_proj = nn.Linear(A, H)

        self.att_keys = nn.Linear(A, att)
        self.att_query = nn.Linear(H, att, bias=False)
        self.att_v = nn.Linear(att, 1, bias=False)

        src_in = A + (E if self.bridge_target else 0)  # [c_i; x^_i]
        if cfg.cell == "gru":
            self.gru1 = nn.GRUCell(E, H)
            self.t2_src = nn.Linear(src_in, 3 * H)          # r, u, candidate (source part)
            self.t2_hid = nn.Linear(H, 3 * H)               # r, u, candidate (target part)
        else:
            self.t2_src = nn.Linear(src_in, H, bias=False)  # C [c; x^]
            self.t2_tgt = nn.Linear(E + H, H)               # W e(y) + U t_{i-1}
        if cfg.context_gate != "none":
            self.gate_lin = nn.Linear(E + H + A, H)         # W_z, U_z, C_z in one matrix

        R = E
        self.readout = nn.Linear(H + E + A, 2 * R if cfg.readout == "maxout" else R)
        self.out_proj = nn.Linear(R, cfg.tgt_vocab)
        if cfg.tie in ("decoder", "all"):
            self.out_proj.weight = self.tgt_emb.weight
        if self.bridge_direct:
            self.bridge_W = nn.Linear(E, E, bias=False)     # W x ~ y for aligned words
        self.context_sources = nn.ModuleList([make(self) for make in sources])
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        E = self.cfg.emb_dim
        for emb in {id(self.src_emb): self.src_emb, id(self.tgt_emb): self.tgt_emb}.values():
            nn.init.normal_(emb.weight, std=E ** -0.5)
            with torch.no_grad():
                emb.weight[PAD].zero_()
        for name, p in self.named_parameters():
            if "weight_hh" in name:  # orthogonal recurrent matrices, per gate block
                for blk in p.data.chunk(3, 0):
                    nn.init.orthogonal_(blk)

    # ------------------------------------------------------------ encoder
    def encode(self, src: Tensor, src_mask: Tensor, **inputs) -> EncoderOutput:
        """``src`` (B, S) ids, ``src_mask`` (B, S) -> :class:`EncoderOutput`."""
        emb = self.emb_drop(self.src_emb(src))                      # (B, S, E)
        lengths = src_mask.sum(1).clamp(min=1).cpu()
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        extras: dict = {}
        h0 = None
        for cs in self.context_sources:
            h = cs.encoder_init(src, src_mask, extras, **inputs)
            if h is not None:
                h0 = h if h0 is None else h0 + h
        out, _ = self.encoder(packed, h0)
        ann, _ = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))  # (B, S, 2H)
        if self.bridge_source:
            ann = torch.cat([ann, emb], dim=-1)                     # (B, S, 2H + E)
        ann = self.drop(ann)
        enc = EncoderOutput(ann, src_mask, self.att_keys(ann), emb, extras)
        for cs in self.context_sources:
            cs.prepare(enc, **inputs)
        return enc

    def init_state(self, enc: EncoderOutput) -> DecoderState:
        """s_0 = tanh(W mean_j h_j [+ context sources])."""
        m = enc.mask.unsqueeze(-1).to(enc.ann.dtype)
        mean = (enc.ann * m).sum(1) / m.sum(1).clamp(min=1.0)      # (B, A)
        pre = self.init_proj(mean)
        for cs in self.context_sources:
            extra = cs.init_state(enc)
            if extra is not None:
                pre = pre + extra
        return DecoderState(torch.tanh(pre))

    # ------------------------------------------------------------ decoder
    def attend(self, query: Tensor, enc: EncoderOutput) -> tuple[Tensor, Tensor]:
        """``query`` (B, H) -> attention (B, S), context (B, A)."""
        e = self.att_v(torch.tanh(enc.keys + self.att_query(query).unsqueeze(1))).squeeze(-1)
        e = e.masked_fill(~enc.mask, torch.finfo(e.dtype).min)
        a = torch.softmax(e.float(), dim=-1).to(enc.ann.dtype)        # (B, S)
        return a, torch.bmm(a.unsqueeze(1), enc.ann).squeeze(1)

    def _gated(self, T: Tensor, S: Tensor, z: Tensor | None) -> Tensor:
        kind = self.cfg.context_gate
        if kind == "none":
            return T + S
        if kind == "source":
            return T + z * S
        if kind == "target":
            return z * T + S
        return (1 - z) * T + z * S

    def step(self, y_emb: Tensor, state: DecoderState, enc: EncoderOutput) -> tuple[StepOutput, DecoderState]:
        """One decoder update.  ``y_emb`` (B, E) = e(y_{i-1}); returns the step output and the new state."""
        H = self.cfg.hidden
        t_prev = state.hidden
        query = self.gru1(y_emb, t_prev) if self.cfg.cell == "gru" else t_prev   # s'_i
        attn, ctx = self.attend(query, enc)
        src_in = ctx
        if self.bridge_target:
            best = attn.argmax(dim=-1)                                          # (B,)
            x_hat = enc.src_emb[torch.arange(best.size(0), device=best.device), best]  # (B, E)
            src_in = torch.cat([ctx, x_hat], dim=-1)
        z = None
        if self.cfg.context_gate != "none":
            z = torch.sigmoid(self.gate_lin(torch.cat([y_emb, t_prev, ctx], dim=-1)))
        extra = None
        for cs in self.context_sources:
            x = cs.update_input(enc, state, y_emb, query, ctx)
            if x is not None:
                if self.cfg.cell == "gru" and x.size(-1) == H:  # candidate only
                    x = F.pad(x, (2 * H, 0))
                extra = x if extra is None else extra + x
        if self.cfg.cell == "gru":
            sr, su, sc = self.t2_src(src_in).split(H, dim=-1)
            if extra is not None:
                er, eu, ec = extra.split(H, dim=-1)
                sr, su, sc, extra = sr + er, su + eu, sc, ec
            hr, hu, hc = self.t2_hid(query).split(H, dim=-1)
            r = torch.sigmoid(sr + hr)
            u = torch.sigmoid(su + hu)
            S = sc if extra is None else sc + extra
            cand = torch.tanh(self._gated(r * hc, S, z))
            t = (1 - u) * query + u * cand
        else:
            S = self.t2_src(src_in)
            if extra is not None:
                S = S + extra
            T = self.t2_tgt(torch.cat([y_emb, t_prev], dim=-1))
            t = torch.tanh(self._gated(T, S, z))
        out = StepOutput(t, ctx, attn, z, y_emb)
        new_state = DecoderState(t, dict(state.extras))
        for cs in self.context_sources:
            cs.update_state(enc, new_state, out)
        return out, new_state

    def readout_vector(self, hidden: Tensor, prev_emb: Tensor, ctx: Tensor, extra: Tensor | None = None) -> Tensor:
        """o_i, the vector the output layer reads; any leading dims: (..., H), (..., E), (..., A) -> (..., R)."""
        pre = self.readout(torch.cat([hidden, prev_emb, ctx], dim=-1))
        if extra is not None:
            pre = pre + extra
        if self.cfg.readout == "maxout":
            return pre.view(*pre.shape[:-1], -1, 2).max(dim=-1).values
        return torch.tanh(pre)

    def logits(self, hidden: Tensor, prev_emb: Tensor, ctx: Tensor, extra: Tensor | None = None) -> Tensor:
        """Readout and output layer; any leading dims: (..., H), (..., E), (..., A) -> (..., V)."""
        return self.out_proj(self.drop(self.readout_vector(hidden, prev_emb, ctx, extra)))

    def step_log_probs(self, out: StepOutput, enc: EncoderOutput) -> Tensor:
        """(B, V) log-probabilities of the next token after step ``out``; sets ``out.readout`` (B, R)."""
        extra = None
        for cs in self.context_sources:
            x = cs.readout_input(enc, out)
            if x is not None:
                extra = x if extra is None else extra + x
        out.readout = self.readout_vector(out.hidden, out.prev_emb, out.ctx, extra)
        lp = torch.log_softmax(self.out_proj(self.drop(out.readout)).float(), dim=-1)
        for cs in self.context_sources:
            lp = cs.fuse_output(enc, out, lp)
        return lp

    def copy_report(self, enc: EncoderOutput, out: StepOutput, rows: Tensor, tokens: Tensor) -> Tensor | None:
        """(n, 4) copy report of emitting ``tokens`` from ``rows`` after step ``out``: the first
        context source that read a translation memory answers (see ``ContextSource.copy_report``)."""
        for cs in self.context_sources:
            rep = cs.copy_report(enc, out, rows, tokens)
            if rep is not None:
                return rep
        return None

    def fuses_output(self) -> bool:
        """True when a trained context source changes the readout or the output distribution
        (then training needs per-step log-probabilities instead of logits)."""
        return any(not cs.inference_only and (type(cs).readout_input is not ContextSource.readout_input
                                              or type(cs).fuse_output is not ContextSource.fuse_output)
                   for cs in self.context_sources)

    def embed_target(self, ids: Tensor) -> Tensor:
        return self.emb_drop(self.tgt_emb(ids))

    # ------------------------------------------------------------ training
    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, tgt_out: Tensor | None = None,
                **inputs) -> dict:
        """Teacher-forced pass.

        ``src`` (B, S), ``src_mask`` (B, S), ``tgt_in`` (B, T) -> dict with
        ``logits`` (B, T, V), ``attn`` (B, T, S), ``gates`` (B, T, H) or None;
        with direct bridging and ``tgt_out`` (B, T) also ``bridge_loss`` (scalar).
        (With context sources that fuse per step, log-probabilities are computed
        per step: ``log_probs`` (B, T, V) instead of ``logits``.)
        """
        enc = self.encode(src, src_mask, **inputs)
        state = self.init_state(enc)
        y = self.embed_target(tgt_in)                                 # (B, T, E)
        outs: list[StepOutput] = []
        for i in range(tgt_in.size(1)):
            out, state = self.step(y[:, i], state, enc)
            outs.append(out)
        hid = torch.stack([o.hidden for o in outs], 1)                # (B, T, H)
        ctx = torch.stack([o.ctx for o in outs], 1)                   # (B, T, A)
        attn = torch.stack([o.attn for o in outs], 1)                 # (B, T, S)
        gates = torch.stack([o.gate for o in outs], 1) if outs[0].gate is not None else None
        res = {"attn": attn, "gates": gates, "enc": enc}
        if self.bridge_direct and tgt_out is not None:
            res["bridge_loss"] = self.direct_bridging_loss(attn, enc, src, tgt_out, tgt_out != PAD)
        if self.fuses_output() or inputs.get("knn") is not None:  # (the kNN memory: scoring with a TM)
            res["log_probs"] = torch.stack([self.step_log_probs(o, enc) for o in outs], 1)
        else:
            res["logits"] = self.logits(hid, y, ctx)
        return res

    def direct_bridging_loss(self, attn: Tensor, enc: EncoderOutput, src: Tensor,
                             tgt_out: Tensor, tgt_mask: Tensor) -> Tensor:
        """Auxiliary loss of direct bridging: mean over target tokens of
        ||W e(x_{a(i)}) - e(y_i)||^2 (squared L2 over the E dimensions), where a(i) = argmax_j attn_ij is the
        most-attended (aligned) source word of target word y_i.

        ``attn`` (B, T, S), ``src`` (B, S), ``tgt_out`` (B, T), ``tgt_mask`` (B, T).
        """
        aligned = src.gather(1, attn.argmax(dim=-1))                  # (B, T) source ids
        x = self.bridge_W(self.src_emb(aligned))                      # (B, T, E)
        y = self.tgt_emb(tgt_out)                                     # (B, T, E)
        d = ((x - y) ** 2).sum(-1)                                   # (B, T)
        m = tgt_mask.to(d.dtype)
        return (d * m).sum() / m.sum().clamp(min=1.0)


def count_parameters(model: nn.Module) -> int:
    """Trainable parameters, shared (tied) tensors counted once."""
    seen = {id(p): p for p in model.parameters() if p.requires_grad}
    return sum(p.numel() for p in seen.values())
