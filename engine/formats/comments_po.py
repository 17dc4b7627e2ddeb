"""Comments written into an exported PO file as translator comments (``# ...`` lines).

A comment goes before its entry, after the translator comments the entry already has (gettext
keeps translator comments first, then ``#.`` extracted, ``#:`` references, ``#,`` flags, ``#|``
previous strings).  Each line of a comment is one ``# `` line.  Only those lines are added: the
rest of the file is copied as the writer left it (:mod:`engine.formats.po`'s line splice).  A
comment on any plural form of an entry, or any sentence of an HTML entry, is a comment of the entry.
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.formats import htmlsub
from engine.formats.comments_export import ExportComment
from engine.fsutil import atomic_write

_TRANSLATOR = re.compile(r"#(?:[ \t]|$)")


def write_po_comments(out: Path, comments: dict[str, list[ExportComment]]) -> None:
    """Add ``comments`` (by segment key) to the PO file ``out`` as translator comments."""
    from engine.formats.po_read import parse as _parse
    from engine.formats.po_units import assign_keys as _assign_keys
    from engine.formats.po_write import encode as _encode
    from engine.formats.po_lines import line_end as _line_end

    parsed = _parse(out)
    _assign_keys(parsed)
    repl: dict[int, str] = {}
    by_entry: dict[str, list[ExportComment]] = {}
    for k, cs in comments.items():  # a comment on a sentence of an HTML entry (po_html) is the entry's
        split = htmlsub.split_key(k)
        by_entry.setdefault(split[0] if split else k, []).extend(cs)
    for e in parsed.entries:
        cs = [c for k in dict.fromkeys(e.keys) for c in by_entry.get(k, ())]
        if not cs:
            continue
        i = e.first_line
        while i < e.end_line and not parsed.lines[i].strip():
            i += 1
        while i < e.end_line and _TRANSLATOR.match(parsed.lines[i].rstrip("\r\n")):
            i += 1
        if i >= e.end_line:  # pragma: no cover - an entry has its msgid line
            continue
        end = _line_end(parsed.lines[i], parsed.newline)
        lines = "".join(f"# {line}".rstrip() + end for c in cs for line in c.text.splitlines() if line.strip())
        repl[i] = lines + repl.get(i, parsed.lines[i])
    if repl:
        data = _encode(parsed, repl)
        with atomic_write(out, "wb") as fh:
            fh.write(data)
