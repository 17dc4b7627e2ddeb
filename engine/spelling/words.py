"""The words of a segment text that spelling checks (:func:`iter_words`), and a finding
(:class:`Misspelling`)."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True)
class Misspelling:
    """A misspelt word: ``text[start:end] == word`` (Python string offsets, not UTF-16)."""

    start: int
    end: int
    word: str


_CHUNK = re.compile(r"[^\s\ue001-\uf8ff\ufffc]+")  # inline tags and chips (U+FFFC) end a word
_URL = re.compile(r"^\W*(?:[a-z][a-z0-9+.\-]*://|www\.|mailto:)", re.I)
_EMAIL = re.compile(r"[^\s@]@[^\s@]+\.[^\W\d_]")
_DOTTED = re.compile(r"[^\W\d_]\.[^\W\d_]")  # z.B., e.g., example.com, config.ini
_JOINERS = frozenset("'\u2019\u02bc-\u2010\u2011")  # apostrophes, hyphens inside a word
_HYPHENS = "-\u2010\u2011"
_APOSTROPHES = "\u2019\u02bc"


def _wordchar(c: str) -> bool:
    cat = unicodedata.category(c)
    return cat[0] in "LMN" or c == "_"


def _skip_token(tok: str) -> bool:
    """Numbers, words with digits, identifiers, single letters and ALL-CAPS acronyms (also PDFs)."""
    letters = 0
    for c in tok:
        cat = unicodedata.category(c)
        if cat[0] == "N" or c == "_":
            return True
        if cat[0] == "L":
            letters += 1
    if letters < 2:
        return True
    core = tok[:-1] if tok.endswith("s") and len(tok) > 2 else tok
    return core.isupper() and sum(1 for c in core if c.isalpha()) >= 2


def iter_words(text: str) -> Iterator[tuple[int, int, str]]:
    """The words of ``text`` that spelling checks, as (start, end, word).

    A word is a run of letters (with their combining marks), apostrophes and hyphens allowed
    inside.  Skipped: URLs, e-mail addresses, dotted abbreviations and file names, numbers,
    words with digits, single letters, ALL-CAPS acronyms.  Inline tags (U+E001..U+F8FF) and
    the editor's chips (U+FFFC) end a word and are never part of one.
    """
    for m in _CHUNK.finditer(text):
        chunk = m.group(0)
        if _URL.match(chunk) or _EMAIL.search(chunk) or _DOTTED.search(chunk):
            continue
        base, n, i = m.start(), len(chunk), 0
        while i < n:
            if not _wordchar(chunk[i]):
                i += 1
                continue
            j = i + 1
            while j < n and (_wordchar(chunk[j]) or (chunk[j] in _JOINERS and j + 1 < n and _wordchar(chunk[j + 1]))):
                j += 1
            tok = chunk[i:j]
            if not _skip_token(tok):
                yield base + i, base + j, tok
            i = j


def _parts(word: str) -> Iterator[tuple[int, int, str]]:
    """The hyphen-separated parts of ``word`` as (start, end, part)."""
    start = 0
    for i, c in enumerate(word + "-"):
        if c in _HYPHENS:
            if i > start:
                yield start, i, word[start:i]
            start = i + 1

