"""A model folder made ready for CPU inference: the shape check's meta build without initialisers,
dynamic int8 quantisation or weights packed once (:mod:`engine.nmt.packed`)."""
from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode


class MetaUninitialised(TorchFunctionMode):
    """Initialising a tensor on the ``meta`` device does nothing: the model folder's check builds
    the model there only for its shapes, and torch's meta kernels of the random initialisers
    import torch._dynamo on first use -- 1.1 s of CPU in every process that loads a model (2-core
    VM, time.process_time; the meta build takes 4 ms without them).  Real tensors are untouched."""

    INIT = frozenset({"normal_", "uniform_"})

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__name__", "") in self.INIT:
            t = args[0] if args else kwargs.get("tensor")
            if isinstance(t, torch.Tensor) and t.is_meta:
                return t
        return func(*args, **kwargs)


def quantize_dynamic(model: torch.nn.Module) -> torch.nn.Module:
    """Dynamic int8 quantisation of linear and recurrent layers (CPU inference)."""
    import copy
    import warnings

    # torch.ao.quantization is deprecated in favour of torchao, but still works with the
    # pinned torch; the user cannot act on the warning, so it is not shown.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        # the quantised GRU warns (UserWarning) that quantize_per_tensor is deprecated
        warnings.filterwarnings("ignore", message=r".*quantize_per_tensor", category=UserWarning)
        from torch.ao.quantization import quantize_dynamic as qd

        m = copy.deepcopy(model).cpu().eval()
        return qd(m, {torch.nn.Linear, torch.nn.GRU, torch.nn.GRUCell}, dtype=torch.qint8)


def for_inference(model: torch.nn.Module, quantize: bool) -> torch.nn.Module:
    """The model a translator runs: an int8 copy (``quantize``), else ``model`` itself with its
    linear layers' weights packed for oneDNN (:func:`engine.nmt.packed.pack_linears`; measured
    2-3x less CPU per matrix product on the 2-core AVX-512 VM)."""
    if quantize:
        return quantize_dynamic(model)
    from engine.nmt.packed import pack_linears

    pack_linears(model)
    return model
