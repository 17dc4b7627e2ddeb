"""Tokenisation for TM scoring and indexing.

One tokenizer serves the fuzzy score, the search index and the concordance,
so that what the index finds is what the score counts:

* a **word** is a run of letters/digits (``[^\\W_]+``) outside the CJK blocks;
* each **CJK** ideograph, kana or fullwidth katakana is a token of its own
  (Chinese and Japanese have no spaces; character tokens are what a CAT tool
  matches on, as Lucene's CJK analysers do);
* each **inline tag** (an :mod:`engine.inline` private-use character) is a
  token whose normal form is one generic :data:`TAG` token, so tag numbering
  and tag kinds never block a match;
* every other non-space character is a **punctuation** token.

Words and tags are the *core* tokens the score of the seed paper (Gu et al.
2018, Eq. 3) is computed on; punctuation and letter case only add small
penalties (see :mod:`engine.tm.scoring`).  Core tokens are lower-cased.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

#: Normal form of every inline tag / placeholder (never a word: has a space).
TAG = "\x00tag"

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f"


@cache
def _token_re() -> re.Pattern:
    """The tokenizer's pattern, compiled on first use: its ranges past U+00FF make `re` fill 64K-entry
    maps (6-11 ms), which a process that imports the TM modules and never tokenizes skips."""
    return re.compile(rf"(?P<tag>[\ue001-\uf8ff])|(?P<cjk>[{_CJK}])|(?P<word>[^\W_{_CJK}]+)|(?P<punct>\S)")


_KIND = {"tag": 1, "cjk": 2, "word": 0, "punct": 3}


class Token(NamedTuple):
    """One token of a segment: ``text`` as written, ``norm`` as compared,
    ``start``/``end`` its character span in the segment text.  (A named
    tuple: long segments make thousands of them per search.)"""

    text: str
    norm: str
    start: int
    end: int
    kind: str  # "word" | "cjk" | "tag" | "punct"

    @property
    def core(self) -> bool:
        return self.kind != "punct"


def tokenize(text: str) -> list[Token]:
    """All tokens of ``text`` (core and punctuation) with their spans."""
    out: list[Token] = []
    for m in _token_re().finditer(text):
        kind = m.lastgroup
        s = m.group()
        if kind == "tag":
            norm = TAG
        elif kind == "punct":
            norm = s
        else:
            norm = s.lower()
        out.append(Token(s, norm, m.start(), m.end(), kind))
    return out


@dataclass(frozen=True, slots=True)
class Analysed:
    """A segment split for scoring.

    ``core``: normalised core tokens (words, CJK characters, :data:`TAG`);
    ``surface``: the same tokens as written (for the case penalty);
    ``punct``: punctuation tokens in order (for the punctuation penalty).
    """

    core: tuple[str, ...]
    surface: tuple[str, ...]
    punct: tuple[str, ...]


def analyse(text: str) -> Analysed:
    """Split ``text`` into core tokens and punctuation (fast path, no spans)."""
    core: list[str] = []
    surface: list[str] = []
    punct: list[str] = []
    for m in _token_re().finditer(text):
        kind = m.lastgroup
        s = m.group()
        if kind == "punct":
            punct.append(s)
        elif kind == "tag":
            core.append(TAG)
            surface.append(TAG)
        else:
            core.append(s.lower())
            surface.append(s)
    return Analysed(tuple(core), tuple(surface), tuple(punct))


def index_terms(text: str) -> list[str]:
    """Distinct index terms of ``text``: its core tokens without tags.

    Tags are left out of the index (they would be among the most frequent
    terms and say nothing about the text); they still count in the score.
    """
    seen: dict[str, None] = {}
    for m in _token_re().finditer(text):
        kind = m.lastgroup
        if kind == "word" or kind == "cjk":
            seen[m.group().lower()] = None
    return list(seen)


#: Separates a token from its occurrence number in an occurrence term.
OCC_SEP = "\x01"


def occurrence_terms(core) -> list[str]:
    """Source index terms of core tokens ``core``: the k-th occurrence of a
    token ``t`` is the term ``t`` for k = 1 and ``t\x01k`` after that, so that
    counting shared terms counts the shared tokens *with* repeats (the
    multiset overlap that bounds the fuzzy score).  Tags are left out."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for t in core:
        if t == TAG:
            continue
        k = seen.get(t, 0) + 1
        seen[t] = k
        out.append(t if k == 1 else f"{t}{OCC_SEP}{k}")
    return out


def core_length(text: str) -> int:
    """Number of core tokens (words, CJK characters, tags) of ``text``."""
    return sum(1 for m in _token_re().finditer(text) if m.lastgroup != "punct")
