"""The locks an XLIFF file sets on its segments, read without changing the file.

XLIFF 1.2 and 2.0 ``translate="no"`` (on the unit or inherited from the nearest group or file
that says) is read by each reader; here are the tools' own marks in XLIFF 1.x: SDL Trados
``<sdl:seg locked="true">`` in the unit's ``<sdl:seg-defs>`` and memoQ's ``mq:locked="locked"``
on the ``<trans-unit>``.  A lock read from the file is kept in the project only: the writer
never adds, removes or rewrites one.
"""
from __future__ import annotations

SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_LOCKED = "{MQXliff}locked"
_YES = ("true", "yes", "1", "locked")


def tool_locked(unit, sdl_seg) -> bool:
    """Whether SDL (``sdl_seg``: the segment's ``<sdl:seg>`` or None) or memoQ (on ``unit``) locks it."""
    if sdl_seg is not None and (sdl_seg.get("locked") or "").lower() in _YES:
        return True
    return (unit.get(MQ_LOCKED) or "").lower() in _YES


def translate_no(el, scopes: tuple[str, ...] | None = None) -> bool:
    """Whether ``el`` or its nearest ancestor with a ``translate`` attribute says ``no``
    (``scopes``: the local names it may be inherited through; None: any ancestor)."""
    while el is not None and (scopes is None or _local(el) in scopes):
        v = el.get("translate")
        if v is not None:
            return v == "no"
        el = el.getparent()
    return False


def _local(el) -> str:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.rsplit("}", 1)[-1]
