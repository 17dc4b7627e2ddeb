"""Work around a reference-counting bug of PySide6 6.12.0 on Python 3.11.

Measured here: with PySide6/shiboken6 6.12.0 under CPython 3.11, every call
of a Qt method that returns ``void`` (``label.setText(...)``,
``fmt.setProperty(...)``), and every conversion of an invalid QVariant to
``None``, *decrements* the reference count of ``None`` without having
incremented it.  On CPython >= 3.12 ``None`` is immortal and nothing
happens; on 3.11 the count reaches zero after some tens of thousands of
calls and the interpreter aborts with "Fatal Python error: none_dealloc".

:func:`patch_none_refcount` detects the bug (ten void calls, then a look at
``sys.getrefcount(None)``) and, only when it is present, gives ``None`` a
reserve of references large enough for any editing session.  ``None`` is a
static object that is never freed, so the reserve costs nothing.
"""
from __future__ import annotations

import ctypes
import sys

RESERVE = 1 << 40
_done = False


def none_refcount_bug() -> bool:
    """True when void Qt calls steal a reference to None (PySide6 6.12 on Python < 3.12)."""
    if sys.version_info >= (3, 12):
        return False
    from PySide6.QtCore import QObject

    o = QObject()
    before = sys.getrefcount(None)
    for _ in range(10):
        o.setObjectName("probe")
    return sys.getrefcount(None) <= before - 10


def patch_none_refcount() -> bool:
    """Apply the reserve once if the bug is present; returns whether it was applied."""
    global _done
    if _done:
        return False
    _done = True
    if not none_refcount_bug():
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += RESERVE
    return True


patch_none_refcount()
