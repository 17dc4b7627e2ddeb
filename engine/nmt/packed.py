"""Linear layers with their weights packed once for CPU inference (oneDNN), for a loaded model that
translates.

``F.linear`` hands an fp32 weight to MKL's GEMM, which re-packs the whole matrix into its blocked
layout on every call: a beam step of the demo model (E 128, H 256, V 8,000) multiplies by seven
matrices, and py-spy put the re-packing at 12.6 % of a `verso translate` run.  Here each weight is
reordered once into oneDNN's blocked layout (``torch.ops.mkldnn._reorder_linear_weight``) and every
call reads it as it is.  Measured on the 2-core AMD EPYC VM (AVX-512), one thread, the output layer
x (M, 128) -> (M, 8,000): 207-211 us F.linear vs 66-68 us packed at M = 5 rows (one sentence's
beam), 1,850-1,890 vs 800-810 us at M = 100 (/tmp/lin3.py, ``time.process_time``, 200 calls); the
results differ from F.linear's by float rounding only (|diff| <= 1e-5).

The packed copy is read only where no gradient is wanted (``torch.is_grad_enabled()`` False: the
searches and forced decoding run under ``torch.inference_mode``) on fp32 CPU tensors; anything else
gets ``F.linear`` on the same parameters, so a packed model trained, copied or cast stays right.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import Tensor, nn


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
        key = (w.data_ptr(), w._version)
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


def pack_linears(model: nn.Module, rows: int = 5) -> int:
    """Replace every fp32 CPU ``nn.Linear`` of ``model`` by a :class:`PackedLinear` in place;
    ``rows``: the rows a call usually has (the beam), oneDNN's blocking hint.  Returns how many were
    packed (0 where the build lacks oneDNN or the model is not fp32 on the CPU)."""
    if not can_pack():
        return 0
    n = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if (type(child) is nn.Linear and child.weight.dtype == torch.float32
                    and child.weight.device.type == "cpu"):
                setattr(parent, name, PackedLinear(child, rows))
                n += 1
    return n
