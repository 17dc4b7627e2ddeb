"""The segments of a parsed PO file's entries for :mod:`engine.formats.po`: each unit's msgctxt,
msgid, msgstr forms, comments and flags as text, and each entry's segment keys and protected
sources (one reading shared by the reader and the writer)."""
from __future__ import annotations

import json

from engine.formats import htmlsub, po_plurals
from engine.formats.po_read import Parsed
from engine.formats.textutil import codes_checked, protect_text

#: ``json.dumps(obj, ensure_ascii=False)`` with one encoder (json.dumps builds one per call)
_json = json.JSONEncoder(ensure_ascii=False).encode


def is_segment_unit(u) -> bool:
    return not (u.isheader() or u.obsolete or u.isblank())


def msgstr_forms(u, count: int) -> list[str]:
    """The msgstr[n] strings of a plural unit, padded to ``count``."""
    from translate.storage.pypo import unquotefrompo

    d = u.msgstr if isinstance(u.msgstr, dict) else {0: u.msgstr}
    return [unquotefrompo(d[i]) if i in d else "" for i in range(max(count, max(d, default=0) + 1))]


def unit_context(u) -> str | None:
    from translate.storage.pypo import unquotefrompo

    return unquotefrompo(u.msgctxt) if u.msgctxt else None


def msgid_of(u) -> tuple[str, str]:
    from translate.storage.pypo import unquotefrompo

    return unquotefrompo(u.msgid), unquotefrompo(u.msgid_plural)


def unit_note(u) -> str:
    out = []
    for c in u.othercomments:
        c = c.rstrip("\r\n")[1:]
        out.append(c[1:] if c.startswith(" ") else c)
    for c in u.automaticcomments:
        c = c.rstrip("\r\n")[2:]
        out.append(c[1:] if c.startswith(" ") else c)
    return "\n".join(out).strip("\n")


def unit_flags(u) -> list[str]:
    return [f.strip() for tc in u.typecomments for f in tc.strip().lstrip("#,").split(",") if f.strip()]


def assign_keys(parsed: Parsed) -> None:
    """Fill each entry's keys and protected sources (shared by reader and writer)."""
    seen: dict[str, int] = {}
    for e in parsed.entries:
        u = e.unit
        if not is_segment_unit(u):
            continue
        ctx = unit_context(u)
        msgid, msgid_plural = msgid_of(u)
        base = [ctx, msgid]
        prefix = f"domain={e.domain}|" if e.domain else ""
        key = prefix + _json(base)
        n = seen[key] = seen.get(key, 0) + 1
        suffix = f"#{n}" if n > 1 else ""
        with codes_checked(parsed.path, f"line {e.first_line + 1}"):
            if u.hasplural():
                for i in range(po_plurals.plural_count(u, parsed)):
                    e.keys.append(prefix + _json(base + [i]) + suffix)
                    e.sources.append(protect_text(msgid if i == 0 else msgid_plural))
            else:
                e.keys.append(key + suffix)
                e.sources.append(protect_text(msgid))
                e.html = htmlsub.is_html(msgid)
        if n > 1:
            parsed.problems.append(f"line {e.first_line + 1}: duplicate entry {msgid[:40]!r} "
                                   f"(kept as a separate segment)")
