"""All-caps segments, handled at the edges of the model.

Headings, legal preambles and UI labels are often written in capitals ("THE
COUNCIL OF THE EUROPEAN UNION,", "HAS ADOPTED THIS REGULATION:").  Subword
vocabularies learnt on ordinary text cut such a segment into rare pieces and the
model translates it badly (JRC-Acquis En->De, 46 all-caps test sentences: 24.5
BLEU as written, 33.5 when case-folded; docs/history.md, session 5).  So the
translator reads an all-caps segment in sentence case (``fold``) and writes its
translation back in capitals (``restore``); the same is done for all-caps memory
pairs and context sentences it reads with it.  Mixed-case text is never touched.
"""
from __future__ import annotations

__all__ = ["is_all_caps", "fold", "restore", "fold_if_caps"]


def is_all_caps(text: str) -> bool:
    """True when ``text`` has at least two cased letters and none of them is lower case."""
    cased = 0
    for ch in text:
        if ch.islower():
            return False
        if ch.isupper():
            cased += 1
    return cased >= 2


def fold(text: str) -> str:
    """Sentence case: lower case, first cased letter upper ("HAS ADOPTED:" -> "Has adopted:")."""
    low = text.lower()
    for i, ch in enumerate(low):
        if ch.isalpha():
            return low[:i] + ch.upper() + low[i + 1:]
    return low


def restore(text: str) -> str:
    """The translation of an all-caps segment, in capitals."""
    return text.upper()


def fold_if_caps(text: str) -> str:
    return fold(text) if is_all_caps(text) else text
