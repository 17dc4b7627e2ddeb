"""How large one TM unit may be, on every path that reads or writes one.

A received TM with one 5 MB unit made the first search take 73 s and 422 MiB (100 MB: over
120 s at 6.8 GiB): the index build, the scan and the re-rank read a unit whole, tokenise it and
align it.  Real units are short: the longest of 413,000 real segments in the research corpora
(KDE manuals and UI, JRC-Acquis, Python docs, Hansards, Magento) is 5,081 characters.  So a
unit whose text, tags, encodings or metadata run over :data:`MAX_CHARS` characters on a side
(13 times that longest one: a whole page of text fits) is refused at import with a word, and a
TM that already holds one (received, written by another tool) leaves it out of the index, the
scan, the matches, the TM editor and the export, counted in :meth:`stats` -- filtered in SQL
(:data:`FITS`, ``length()``) before a row reaches Python, so it is never read whole into memory.
"""
from __future__ import annotations

import json

#: characters a unit may have per side (its text; likewise its tags, encodings and metadata)
MAX_CHARS = 65_536
_COLUMNS = ("source", "target", "source_tags", "target_tags", "enc", "senc", "penc", "meta")
#: a SQL condition on a row of ``units``: true when the unit is within the limit
FITS = "(" + " AND ".join(f"length(coalesce({c}, '')) <= {MAX_CHARS}" for c in _COLUMNS) + ")"


def refusal(source, target, meta: dict | None = None) -> str:
    """Why the unit (``source``/``target``: :class:`TaggedText`) is too large to store, or ""."""
    for side, tt in (("source", source), ("target", target)):
        if len(tt.text) > MAX_CHARS:
            return f"the {side} has {len(tt.text):,} characters, more than the {MAX_CHARS:,} a TM unit may have"
        if len(tt.tags_json() or "") > MAX_CHARS:
            return f"the {side}'s inline codes run over the {MAX_CHARS:,} characters a TM unit may have"
    if meta and len(json.dumps(meta, ensure_ascii=False, default=str)) > MAX_CHARS:
        return f"its metadata run over the {MAX_CHARS:,} characters a TM unit may have"
    return ""


def oversized(conn) -> int:
    """Units of the TM ``conn`` over the limit (left out of every read)."""
    return conn.execute(f"SELECT count(*) FROM units WHERE NOT {FITS}").fetchone()[0]


__all__ = ["MAX_CHARS", "FITS", "refusal", "oversized"]
