"""Counting a file's units before its parser runs, so that a file over a limit is refused within
seconds and in about the file's size of memory.

A format's parser builds an object per line, cue, string or tag; a file of a million of them was
refused only after the parser had built them all (a SubRip file of 10^6 cues: 88 s and 769 MiB,
issue 45).  :func:`refuse_over` counts what a cheap pattern finds in the raw bytes -- ``-->`` of a
cue's timing, the first line of a ``key=value`` entry, a JSON string value, a ``<`` -- and refuses
a file that has more than the limit, naming the file, the line where the count passed the limit,
the number found and the limit.  The count is an estimate of the parser's (a ``-->`` in a cue's
text counts too); it is only compared with limits far above any real file.  A file in an
encoding the bytes patterns do not see (UTF-16) is left to the parser's own checks.
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats import textutil


def read_counted(path: str | Path) -> bytes:
    """The bytes of ``path``, refused first when over :data:`textutil.MAX_DOCUMENT_BYTES`."""
    textutil.check_size(path)
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None


def count(raw: bytes, pattern: bytes | re.Pattern, limit: int) -> tuple[int, int | None]:
    """How many times ``pattern`` occurs in ``raw`` and the offset of the occurrence past ``limit``
    (None when there are at most ``limit``).  A compiled pattern with a group counts only the
    matches whose group 1 did not take part (what a match that is not a unit must match)."""
    if isinstance(pattern, bytes):
        n = raw.count(pattern)
        if n <= limit:
            return n, None
        pos = -1
        for _ in range(limit + 1):
            pos = raw.find(pattern, pos + 1)
        return n, pos
    n, over = 0, None
    grouped = pattern.groups > 0
    for m in pattern.finditer(raw):
        if grouped and m.start(1) >= 0:
            continue
        n += 1
        if n == limit + 1:
            over = m.start()
    return n, over


def refuse_over(path: str | Path, raw: bytes, pattern: bytes | re.Pattern, what: str,
                limit: int | None = None) -> int:
    """Refuse ``raw`` (the bytes of ``path``) when ``pattern`` finds more than ``limit`` (default:
    :data:`textutil.MAX_SEGMENTS`) ``what``; the error names the line where the count passed the
    limit.  Returns the count."""
    limit = textutil.MAX_SEGMENTS if limit is None else limit
    n, over = count(raw, pattern, limit)
    if over is not None:
        line = raw.count(b"\n", 0, over) + 1
        raise FormatError(path, f"{n:,} {what}: more than the {limit:,} Verso imports as one document; split it",
                          f"line {line}")
    return n
