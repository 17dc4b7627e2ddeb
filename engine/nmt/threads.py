"""How many CPU threads the neural engine's matrix products use when it translates: decided here only.

    threads = N                          an explicit count (``--threads N``, the editor's preference), kept for
                                         the process: a later load with 0 does not undo it
            = $OMP_NUM_THREADS           when set (the user's choice for every OpenMP program)
            = clamp(cores // 2, 1, 4)    otherwise; cores = the CPUs this process may run on

Every translate path takes its count from :func:`use`: ``Translator.load`` (so ``verso translate``,
``verso eval``, ``verso doc pretranslate``, the training flow's scoring) and the editor's suggestion
worker.

Why half the cores and never torch's default (one per core): on the 2-core Intel Xeon VM, shared (load
average 4-7 from other jobs), the demo model (int8 off, beam 5), 20 held-out KDE manual sentences of 18-22
words one per call (``time.process_time``), 1 thread took 54-66 ms of CPU and 110-215 ms of wall time a
sentence, 2 threads (torch's default there) 805-1,258 ms of CPU and 2.2-2.9 s of wall time: the second
OpenMP thread spins waiting for a core the other jobs hold.  In the editor (``benchmarks/ui_latency.py``,
100k TM, same load) the suggestion took p50 251 / p95 1,622 ms with 1 thread and p50 1,889 / p95 12,412 ms
with torch's default.  On that machine idle, 2 threads gain about 20 % (p50 36.8 vs 46.8 ms,
benchmarks/RESULTS.md "CPU translation latency"), not worth the risk; the editor also needs a core for
its UI and TM threads.  The cap of 4: one sentence's beam is a few rows, which more threads split no
further (not measured beyond 2 cores).
"""
from __future__ import annotations

import os

MAX_AUTO = 4
_explicit: int | None = None   # the count a caller asked for in this process, if any


def cores() -> int:
    """The CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def auto_threads(n_cores: int | None = None, env: dict | None = None) -> int:
    """The automatic count: ``$OMP_NUM_THREADS`` when it is a positive whole number, else half the
    cores, at least 1 and at most :data:`MAX_AUTO`."""
    raw = (os.environ if env is None else env).get("OMP_NUM_THREADS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return max(1, min(MAX_AUTO, (cores() if n_cores is None else n_cores) // 2))


def inference_threads(requested: int = 0) -> int:
    """``requested`` when positive, else the count an earlier explicit request set, else
    :func:`auto_threads`."""
    if requested < 0:
        raise ValueError(f"threads: expected 0 (automatic) or a positive count, not {requested}")
    return requested or _explicit or auto_threads()


def use(requested: int = 0) -> int:
    """Set torch's intra-op thread count for translating (see the module's rule) and return it."""
    global _explicit
    import torch

    n = inference_threads(requested)
    if requested:
        _explicit = requested
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    return n
