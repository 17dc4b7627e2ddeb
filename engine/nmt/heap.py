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
