"""A TM match applied to the segment being translated: its target with the match's tags
renumbered as the current source's (what Ctrl+digit inserts and batch pre-translation
writes)."""
from __future__ import annotations

from engine.inline import TaggedText, tag_char, tag_number
from engine.tm.model import Match


def adapt_tags(match: Match, source: TaggedText) -> str:
    """The match target as text for the current segment: each tag of the match
    becomes the current source's tag at the same position among tags of its
    kind; tags with no counterpart are dropped."""
    m_order = match.source.tag_numbers()
    m_kinds = {t.n: t.kind for t in match.source.tags} | {t.n: t.kind for t in match.target.tags}
    cur = source.tag_numbers()
    cur_kind = {t.n: t.kind for t in source.tags}
    mapping: dict[int, int] = {}
    used: set[int] = set()
    for n in m_order:
        kind = m_kinds.get(n)
        for c in cur:
            if c not in used and cur_kind.get(c) == kind:
                mapping[n] = c
                used.add(c)
                break
    out = []
    for ch in match.target.text:
        n = tag_number(ch)
        if n is None:
            out.append(ch)
        elif n in mapping:
            out.append(tag_char(mapping[n]))
    return "".join(out)
