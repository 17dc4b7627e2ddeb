"""Glossary terms in a finished translation, joined to their neighbours as the target language writes
them, and nothing after a finished sentence.

A term's tokens are forced into the beam (:mod:`engine.nmt.constraints`); the model's next token may
continue the term's last word without a word start ("SQL-Server" + "höher" -> "SQL-Serverhöher"), or,
once the sentence is finished, the term is appended after its final punctuation ("... Datei. Ordner").
Both read as the engine's mistakes and cost the translator keystrokes, so:

* :func:`join_terms`: a term written glued to the next (or previous) word gets a space where the source
  had one beside the source term -- unless the join is how the target language builds words: a term
  ending in a small letter may take a lower-case ending or compound ("Datei" + "en", "Datei" + "manager");
  a term that ends in a capital, a digit or a hyphenated part ("SQL-Server", "F2") or a join onto a capital
  ("DateiManager") is never a word of its own language;
* :func:`trim_after_end`: words after the sentence's final punctuation that the source does not have (its
  sentence ends there) and that are only glossary terms are dropped.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

#: (source start, source end, accepted target forms) of one glossary term found in the source
TermSpan = tuple[int, int, Sequence[str]]
_END = re.compile(r"[.!?。！？][\ue001-\uf8ff\"'»«”’)]*")


def _namelike(term: str) -> bool:
    """A term that ends like a name or a code (a capital or digit last, or a hyphenated or mixed-case part)."""
    last = term.rstrip()[-1:]
    return bool(last) and (last.isupper() or last.isdigit() or "-" in term or any(c.isupper() for c in term[1:]))


def join_terms(text: str, source: str, terms: Iterable[TermSpan]) -> str:
    """``text`` with a space between each glossary term and a word glued to it, where the source has a
    space beside the source term (see the module doc for the joins a language makes itself)."""
    for start, end, targets in terms:
        space_after = end < len(source) and source[end].isspace()
        space_before = start > 0 and source[start - 1].isspace()
        for form in sorted({t for t in targets if t.strip()}, key=len, reverse=True):
            pos = 0
            while (i := text.find(form, pos)) >= 0:
                j = i + len(form)
                if space_after and j < len(text) and text[j].isalpha() and (_namelike(form) or text[j].isupper()):
                    text = text[:j] + " " + text[j:]
                if space_before and i > 0 and text[i - 1].isalpha() and form[:1].isupper() and text[i - 1].islower():
                    text = text[:i] + " " + text[i:]
                    j += 1
                pos = j
    return text


def _sentence_ends(text: str) -> list[re.Match]:
    return [m for m in _END.finditer(text) if m.end() == len(text) or text[m.end()].isspace()]


def trim_after_end(text: str, source: str, terms: Iterable[TermSpan], keep: int = 0) -> str:
    """``text`` without the glossary words written after its last sentence end where the source ends its
    sentence there too (no more sentence ends than the source has); ``keep``: characters never cut (what
    the translator typed)."""
    forms = [t for _, _, targets in terms for t in targets if t.strip()]
    src = source.rstrip()
    if not forms or not any(m.end() == len(src) for m in _sentence_ends(src)):
        return text
    src_inner = [m for m in _sentence_ends(src) if m.end() < len(src)]
    inner = [m for m in _sentence_ends(text) if m.end() < len(text.rstrip())]
    if len(inner) <= len(src_inner) or inner[len(src_inner)].end() < keep:
        return text
    cut = inner[len(src_inner)].end()
    tail = text[cut:]
    words = re.findall(r"\w[\w\-]*", tail)
    term_words = {w for f in forms for w in re.findall(r"\w[\w\-]*", f)}
    if words and all(w in term_words for w in words):
        return text[:cut]
    return text
