"""torch's shared libraries loaded with the interpreter lock released.

``import torch`` maps and relocates libtorch (``libtorch_cpu.so``, 415 MB) inside ``dlopen``
while it holds the interpreter lock: a Python thread beside it stood still for 0.20-0.42 s on a
2-core machine (``python -m benchmarks.gil_probe``), longer when the disk or the CPUs are busy --
and the editor's UI thread is such a thread, so the window froze while the suggestion engine
loaded.  A foreign call through :mod:`ctypes` releases the lock, so calling the C library's own
``dlopen`` that way first does that work with the lock released; torch's ``dlopen`` then finds
the libraries loaded (``benchmarks.gil_probe --preload``: the longest stop 0.04-0.10 s over the
whole import, what is left being ``torch._C``'s own set-up and ordinary Python).

:func:`install` makes every later ``import torch`` of the process (the suggestion engine's, on
its thread) do this first: a finder on ``sys.meta_path`` that torch's import asks while it holds
torch's import lock, so a second importer waits without the interpreter lock too.

The libraries are opened as torch opens them (``RTLD_NOW``, local symbols), so nothing else
resolves against them.  Anything unexpected (no torch, not Linux, a library missing) leaves
the work to ``import torch`` as before.
"""
from __future__ import annotations

import ctypes
import importlib.abc
import importlib.util
import os
import sys
import threading
from pathlib import Path

#: libtorch's libraries in dependency order (each one's needs already loaded when it is)
LIBRARIES = ("libc10.so", "libtorch_cpu.so", "libtorch.so", "libshm.so", "libtorch_python.so")

_lock = threading.RLock()  # re-entered: find_spec("torch") below asks this module's finder too
_done = False
preloaded = False  # the libraries were loaded here (tests)


def torch_library_folder() -> Path | None:
    """The ``lib`` folder of the torch package installed, without importing torch (None: no torch)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent / "lib"


def preload_torch() -> bool:
    """Load libtorch's shared libraries with the interpreter lock released (call it on a worker
    thread before ``import torch``; once per process, later calls return at once).  True when
    it loaded them now."""
    global _done, preloaded
    with _lock:  # a second caller waits here with the lock released, then finds them loaded
        if _done or "torch._C" in sys.modules or not sys.platform.startswith("linux"):
            return False
        _done = True
        folder = torch_library_folder()
        if folder is None or not all((folder / n).is_file() for n in LIBRARIES):
            return False
        try:
            dlopen = ctypes.CDLL(None).dlopen  # a foreign call: ctypes releases the lock around it
        except (OSError, AttributeError):
            return False
        dlopen.restype = ctypes.c_void_p
        dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
        for name in LIBRARIES:
            if not dlopen(os.fsencode(folder / name), os.RTLD_NOW | os.RTLD_LOCAL):
                return False  # torch's own import says what is wrong
        preloaded = True
        return True


class _PreloadFirst(importlib.abc.MetaPathFinder):
    """Asked for ``torch`` before the finders that find it: loads its libraries, finds nothing."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "torch":
            preload_torch()
        return None


def install() -> None:
    """From now on, ``import torch`` (any thread's, once) loads libtorch with the interpreter lock
    released; a no-op once torch is imported or when it is installed already."""
    if "torch" in sys.modules or any(isinstance(f, _PreloadFirst) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _PreloadFirst())
