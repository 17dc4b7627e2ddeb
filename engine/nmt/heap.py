"""A process's long-lived heap: torch and a model, loaded once for the process's life."""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def loaded_for_good() -> Iterator[None]:
    """Run the block (torch's import, a model's load) without the cyclic collector, then leave every
    object there is out of all later collections (``gc.freeze``) and resume collecting as before.

    The collector's passes over the ~170k objects ``import torch`` makes were 0.13-0.2 s of its ~1 s
    CPU (2-core VM, 4 interleaved pairs); the import leaves ~7k objects unreachable, kept with the
    rest.  Frozen, torch's modules and the model are skipped by every later collection and the one
    at exit: 0.2-0.3 s of the 1.8-2.1 s CPU of `verso translate` on 20 sentences (py-spy put the
    cyclic GC at 13 % of a run)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


def import_torch_alone() -> None:
    """``import torch`` with numpy hidden from it, in a process that has imported neither yet.

    numpy is optional to torch (only its numpy conversions need it) and no translating code of ours
    converts between the two, yet torch imports numpy and its C API at start-up: 0.13 s of the
    ~1.03 s CPU of ``import torch`` (median of 8 interleaved process pairs, 2-core VM, load 2-3).
    Once torch is in, numpy imports as usual for whatever reads it directly (the TM's index); only
    torch's own conversions (``Tensor.numpy``, ``torch.from_numpy``) stay refused in this process,
    as where numpy is not installed -- so only `verso translate` and the editor's engine process
    (:mod:`engine.nmt.server`) ask for this, not training or saving (safetensors' writer converts
    through numpy).  On a big-endian machine safetensors reads
    through numpy too: torch is imported as usual there.  Code on those paths hands torch Python
    numbers, never numpy's: ``torch.tensor([np.int64(3)])`` and ``tensor * np.float32(2)`` are
    refused in such a process (``float()`` / ``.tolist()`` first, as pairs.py and the TM do)."""
    import sys
    import warnings

    if "torch" in sys.modules or "numpy" in sys.modules or sys.byteorder != "little":
        import torch  # noqa: F401
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  # `import numpy` raises ImportError
    try:
        with warnings.catch_warnings():  # torch's note that it runs without numpy: nothing for the user
            warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
            import torch  # noqa: F401
    finally:
        if "numpy" in sys.modules and sys.modules["numpy"] is None:
            del sys.modules["numpy"]
