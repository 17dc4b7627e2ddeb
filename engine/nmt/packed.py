"""Linear layers with their weights packed once for CPU inference (oneDNN), for a loaded model that
translates.

``F.linear`` hands an fp32 weight to MKL's GEMM, which re-packs the whole matrix into its blocked
layout on every call: a beam step of the demo model (E 128, H 256, V 8,000) multiplies by seven
matrices, and py-spy put the re-packing at 12.6 % of a `verso translate` run.  Here each weight is
reordered once into oneDNN's blocked layout (``torch.ops.mkldnn._reorder_linear_weight``) and every
call reads it as it is.  Measured on the 2-core AMD EPYC VM (AVX-512), one thread, the output layer
x (M, 128) -> (M, 8,000): 207-211 us F.linear vs 66-68 us packed at M = 5 rows (one sentence's
beam), 1,850-1,890 vs 800-810 us at M = 100 (200 calls each, ``time.process_time``, 3 repeats); the
results differ from F.linear's by float rounding only (|diff| <= 1e-5).  Small layers are packed too: a
packed call costs about 13 us more (the attention's v, 256 x 1: 13.7 vs 2.4 us alone), yet leaving the
layers under 256 x 512 to F.linear made one sentence's search slower (33-39 vs 35-43 ms, interleaved).

The packed copy is read only where no gradient is wanted (``torch.is_grad_enabled()`` False: the
searches and forced decoding run under ``torch.inference_mode``) on fp32 CPU tensors; anything else
gets ``F.linear`` on the same parameters, so a packed model trained, copied or cast stays right.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def _key(w: Tensor) -> tuple:
    """What a packed copy was made from: the weight's storage and version (an inference tensor, made
    under ``torch.inference_mode``, has no version and cannot be changed in place outside it)."""
    return w.data_ptr(), (-1 if w.is_inference() else w._version)


def can_pack() -> bool:
    """Whether this torch build has oneDNN's packed linear (CPU builds with mkldnn)."""
    return (torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_reorder_linear_weight")
            and hasattr(torch.ops.mkldnn, "_linear_pointwise"))


class PackedLinear(nn.Module):
    """``nn.Linear`` whose weight is also kept in oneDNN's layout; the same parameters (``weight``,
    ``bias``: shared, tied weights stay tied), so ``state_dict`` is unchanged.  The packed copy is
    made again when the weight changed (a load, a copy, an in-place edit: its storage or version).

    y = x W^T + b;  x (..., in) -> y (..., out)."""

    def __init__(self, lin: nn.Linear, rows: int):
        super().__init__()
        self.in_features, self.out_features = lin.in_features, lin.out_features
        self.weight = lin.weight
        self.bias = lin.bias
        self.rows = rows
        self._packed: Tensor | None = None   # (out, in) in oneDNN's blocked layout
        self._key: tuple | None = None       # the weight it was packed from: (storage, version)

    def forward(self, x: Tensor) -> Tensor:
        w = self.weight
        if (torch.is_grad_enabled() or x.dtype != torch.float32 or w.dtype != torch.float32
                or x.device.type != "cpu" or w.device.type != "cpu"):
            return F.linear(x, w, self.bias)
        key = _key(w)
        if key != self._key:
            self._packed = torch.ops.mkldnn._reorder_linear_weight(w.detach(), self.rows)
            self._key = key
        return torch.ops.mkldnn._linear_pointwise(x, self._packed, self.bias, "none", [], "")

    def __deepcopy__(self, memo):
        """A copy packs its own weight on first use (an opaque oneDNN tensor cannot be copied)."""
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = None if k in ("_packed", "_key") else copy.deepcopy(v, memo)
        return new

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, packed"


class PackedGRUCell(nn.Module):
    """``nn.GRUCell`` on two packed products (its fused CPU kernel multiplies by unpacked weights: 7.5 %
    of one sentence's beam search, py-spy); the same parameters and gate order (r, z, n) as torch's::

        gi = W_ih x + b_ih,  gh = W_hh h + b_hh                 (B, 3H) each
        r = sigmoid(gi_r + gh_r),  z = sigmoid(gi_z + gh_z)
        n = tanh(gi_n + r o gh_n),  h' = (1 - z) o n + z o h    (B, H)
    """

    def __init__(self, cell: nn.GRUCell, rows: int):
        super().__init__()
        self.input_size, self.hidden_size = cell.input_size, cell.hidden_size
        self.weight_ih, self.weight_hh = cell.weight_ih, cell.weight_hh
        self.bias_ih, self.bias_hh = cell.bias_ih, cell.bias_hh
        self.ih = _Product(self, "weight_ih", "bias_ih", rows)
        self.hh = _Product(self, "weight_hh", "bias_hh", rows)

    def forward(self, x: Tensor, h: Tensor) -> Tensor:
        if torch.is_grad_enabled() or x.dtype != torch.float32 or self.weight_ih.dtype != torch.float32:
            return torch.gru_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        gi = self.ih(x)                                            # (B, 3H)
        gh = self.hh(h)                                            # (B, 3H)
        i_r, i_z, i_n = gi.chunk(3, dim=-1)
        h_r, h_z, h_n = gh.chunk(3, dim=-1)
        r = torch.sigmoid(i_r + h_r)
        z = torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        return n + z * (h - n)                                     # (1 - z) o n + z o h


class _Product:
    """y = x W^T + b of a cell's own weight ``w`` and bias ``b`` (attribute names), packed as
    :class:`PackedLinear` packs (not a module: the parameters stay the cell's)."""

    def __init__(self, owner: nn.Module, w: str, b: str, rows: int):
        self.owner, self.w, self.b, self.rows = owner, w, b, rows
        self.packed: Tensor | None = None
        self.key: tuple | None = None

    def __call__(self, x: Tensor) -> Tensor:
        w = getattr(self.owner, self.w)
        key = _key(w)
        if key != self.key:
            self.packed = torch.ops.mkldnn._reorder_linear_weight(w.detach(), self.rows)
            self.key = key
        return torch.ops.mkldnn._linear_pointwise(x, self.packed, getattr(self.owner, self.b), "none", [], "")

    def __deepcopy__(self, memo):
        return _Product(memo[id(self.owner)], self.w, self.b, self.rows)


def pack_linears(model: nn.Module, rows: int = 5) -> int:
    """Replace every fp32 CPU ``nn.Linear`` of ``model`` by a :class:`PackedLinear` and every
    ``nn.GRUCell`` (with biases) by a :class:`PackedGRUCell`, in place;
    ``rows``: the rows a call usually has (the beam), oneDNN's blocking hint.  Returns how many were
    packed (0 where the build lacks oneDNN or the model is not fp32 on the CPU)."""
    if not can_pack():
        return 0
    n = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            kind = {nn.Linear: PackedLinear, nn.GRUCell: PackedGRUCell}.get(type(child))
            w = getattr(child, "weight", None) if kind is PackedLinear else getattr(child, "weight_ih", None)
            if kind is not None and w is not None and w.dtype == torch.float32 and w.device.type == "cpu":
                if kind is PackedGRUCell and child.bias_ih is None:
                    continue
                setattr(parent, name, kind(child, rows))
                n += 1
    return n
