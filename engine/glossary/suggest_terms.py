"""Which glossary hits a machine suggestion is held to.

Recognition (:mod:`engine.glossary.recognise`) finds every entry whose source term's words are in a
segment, case-folded and stemmed, so the QA term check and the Glossary panel see "files" for
*File*.  A suggestion held to every such hit is garbled by a client's UI glossary: its labels are
also common words ("Edit", "Or", "and", "Name:"), and one span hits several entries ("Group",
"Group:", "Groups").  On 40 held-out KDE manual sentences with 3,717 KDE UI labels as the
glossary, passing every hit gave 16 terms a sentence and ``enforce`` wrote them as a tail after
the sentence (BLEU 44.1 -> 26.2, output 1.6x the reference length; benchmarks/RESULTS.md, issue 37).

So a hit holds the suggestion only where the source writes the term as the glossary does:

* the hit's words equal the entry's source words, case included ("Edit" is not held in "To edit a
  schedule", "File" not in "Files" unless the entry may inflect) -- at the start of a sentence (the
  segment's, or after ". "), where every word has a capital, a one-word term is not held and a
  longer one ignores the case of its first letter;
* one term per source span: the entries of that span are alternatives (any of their targets meets
  it), not one term each.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterable

from engine.glossary.model import TermHit

_TAGS = re.compile("[\ue001-\uf8ff]")
_WORD = re.compile(r"\w+")
#: the text before a sentence's first word: nothing, or a sentence end and spaces (no tag: a label
#: right after its markup is no sentence start)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+)[\s\"'(“„«]*$")


def _words(text: str) -> list[str]:
    return _WORD.findall(_TAGS.sub(" ", text))


def _written_as_in_glossary(text: str, hit: TermHit) -> bool:
    """Whether ``text[hit.start:hit.end]`` writes the entry's source term (see the module doc)."""
    seen, term = _words(text[hit.start:hit.end]), _words(hit.entry.source)
    if len(seen) != len(term):
        return False
    if _SENTENCE_START.search(text[:hit.start]):  # a sentence's first word: capitalised whatever it is
        if len(term) == 1 and not (len(term[0]) > 1 and term[0].isupper()):
            return False
        seen, term = [seen[0][:1].lower() + seen[0][1:], *seen[1:]], [term[0][:1].lower() + term[0][1:], *term[1:]]
    if seen == term:
        return True
    # another form of the last word: the suggestion may inflect the target too
    return hit.entry.inflect and seen[:-1] == term[:-1]


def suggestion_terms(text: str, hits: Iterable[TermHit]) -> list[TermHit]:
    """The hits (of :func:`~engine.glossary.recognise.find_terms` on ``text``) a machine suggestion
    is held to, one a source span, its entry's targets those of every entry kept there; in text order."""
    spans: dict[tuple[int, int], list[TermHit]] = {}
    for h in hits:
        if h.entry.targets and _written_as_in_glossary(text, h):
            spans.setdefault((h.start, h.end), []).append(h)
    out = []
    for (start, end), group in sorted(spans.items()):
        first = group[0].entry
        targets = tuple(dict.fromkeys(t for h in group for t in h.entry.targets))
        entry = replace(first, targets=targets, inflect=any(h.entry.inflect for h in group))
        out.append(TermHit(start, end, entry))
    return out
