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


class FilledFromFile(MetaUninitialised):
    """Around :func:`engine.nmt.checkpoint.load_model` only: the model it builds is overwritten
    tensor by tensor from the weights file (``apply_tensors`` copies every parameter and buffer, a
    file lacking one is refused), so torch's random initialisers do nothing on any device, and
    ``nn.init.orthogonal_`` (no torch-function hook of its own) gets no QR factorisation of the
    random matrix it no longer draws: the demo model's build 0.05 -> 0.003 s of CPU, of the 1.1 s
    fixed cost of a `verso translate` process (2-core VM, time.process_time)."""

    SKIPPED = frozenset({"normal_", "uniform_", "orthogonal_", "trunc_normal_", "kaiming_uniform_",
                         "kaiming_normal_", "xavier_uniform_", "xavier_normal_"})

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in self.SKIPPED:
            t = args[0] if args else kwargs.get("tensor")
            if isinstance(t, torch.Tensor):
                return t
        elif name == "linalg_qr" and args and isinstance(args[0], torch.Tensor) and args[0].dim() == 2:
            a = args[0]                                               # (m, n): Q (m, k), R (k, n), k = min(m, n)
            k = min(a.shape)
            return a.new_empty((a.shape[0], k)), a.new_empty((k, a.shape[1]))
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
