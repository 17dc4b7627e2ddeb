"""QA's term check: is a glossary term's translation in the target, and is a forbidden one?

The source side is the glossary's own recognition (:class:`engine.glossary.TermIndex`: Snowball
stems).  The target side is read here, on word boundaries (tags skipped, as
:func:`engine.glossary.recognise.tokenize` reads words), by these rules:

1. **Forms of a word.**  A target word is a form of a term's word when, both case-folded (and
   German umlauts folded: ``Häuser``/``Haus``), what is left of each after their common beginning is
   an inflection ending of the target language (:data:`ENDINGS`: noun and adjective endings only):
   ``Dateien`` is ``Datei``, ``Menüs`` is ``Menü``, ``files`` is ``file``; ``started`` is not
   ``Start`` (``-ed`` makes a verb), ``national`` not ``nation``.  Snowball alone stems ``started``
   and ``start`` alike, and ``Menüs``/``Menü`` apart (``menus``/``menu``): it judges the word
   family, a glossary the word.  A language without a table compares Snowball stems (PyStemmer),
   one without a stemmer the case-folded words; an entry marked ``inflect`` accepts any word of
   the same Snowball stem too.  A term in capitals (``PDF``) matches only itself.
2. **Compounds.**  In a compounding language (:data:`COMPOUNDING`) an accepted term's first word
   also counts as the head of a compound, a form of it ending a longer word after at least
   :data:`MIN_MODIFIER` letters (a head of :data:`MIN_HEAD` letters or more): ``Fenster`` is in ``Hauptfenster`` (a main window is a window)
   but not in ``Fensterrahmen`` (a frame).  A forbidden term is found as a whole word only: an
   error needs the word itself.
3. A forbidden term inside an accepted one found there (``File`` in ``File-Manager`` accepted as
   a whole) is not reported.
"""
from __future__ import annotations

from typing import Iterable

from engine.glossary.model import GlossaryEntry, TermHit, TermProblem
from engine.glossary.recognise import stemmer_for, tokenize
from engine.langs import primary

#: noun and adjective inflection endings (plural, case); "" is the bare word
ENDINGS: dict[str, frozenset[str]] = {
    "en": frozenset({"", "s", "es", "y", "ies"}),
    "de": frozenset({"", "e", "en", "n", "er", "ern", "es", "s", "ns", "ens", "nen", "em"}),
    "nl": frozenset({"", "s", "en", "e"}),
    "fr": frozenset({"", "s", "x", "e", "es"}),
    "es": frozenset({"", "s", "es", "a", "as", "o", "os"}),
    "it": frozenset({"", "a", "e", "i", "o"}),
    "pt": frozenset({"", "s", "es", "a", "as", "o", "os"}),
    "sv": frozenset({"", "en", "et", "er", "ar", "or", "na", "n", "s", "ens", "ets", "ernas", "arna", "orna"}),
    "da": frozenset({"", "en", "et", "er", "e", "ene", "s", "ens", "ets"}),
    "nb": frozenset({"", "en", "et", "er", "ene", "a", "s", "ens"}),
}
ENDINGS["no"] = ENDINGS["nn"] = ENDINGS["nb"]
#: languages that write compounds as one word (a term may be the head of one)
COMPOUNDING = frozenset({"de", "nl", "sv", "da", "nb", "nn", "no", "is", "fi"})
#: letters before a compound's head: fewer are an ending or a prefix (``Ge-``), not a word
MIN_MODIFIER = 3
#: letters a compound's head needs (``Ei`` is not in ``Datei``)
MIN_HEAD = 3
_UMLAUTS = str.maketrans({"ä": "a", "ö": "o", "ü": "u"})


class _Words:
    """The words of a text in the target language: case-folded, and their Snowball stems."""

    def __init__(self, text: str, lang: str):
        self.tokens = tokenize(text, lang)
        self.raw = [_raw(text[t.start:t.end]) for t in self.tokens]
        self.lang = primary(lang)


def _raw(word: str) -> str:
    return "".join(c for c in word if c.isalnum())  # (tags inside a word dropped)


def _fold(word: str, lang: str) -> str:
    w = word.casefold()
    return w.translate(_UMLAUTS) if lang == "de" else w


def same_word(token: str, word: str, lang: str, *, inflect: bool = False) -> bool:
    """Whether ``token`` (a word of the target) is a form of ``word`` (a word of a term), rule 1."""
    if len(word) > 1 and word.isupper():
        return token == word
    a, b = _fold(token, lang), _fold(word, lang)
    if a == b:
        return True
    stem = stemmer_for(lang)
    if inflect and stem is not None and stem(token.casefold()) == stem(word.casefold()):
        return True
    endings = ENDINGS.get(lang)
    if endings is None:
        return stem is not None and stem(token.casefold()) == stem(word.casefold())
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n >= 2 and a[n:] in endings and b[n:] in endings


def _head_of_compound(token: str, word: str, lang: str, inflect: bool) -> bool:
    """Whether ``token`` is a compound ending in a form of ``word`` (rule 2)."""
    return len(word) >= MIN_HEAD and any(same_word(token[k:], word, lang, inflect=inflect)
               for k in range(MIN_MODIFIER, len(token) - 1))


def _occurrences(words: _Words, term: str, lang: str, *, compound: bool,
                 inflect: bool) -> list[tuple[int, int]]:
    """(first token, token after the last) of each place ``term`` is in ``words``."""
    parts = [_raw(term[t.start:t.end]) for t in tokenize(term, lang)]
    if not parts:
        return []
    out = []
    n = len(parts)
    for i in range(len(words.raw) - n + 1):
        first = words.raw[i]
        if not (same_word(first, parts[0], lang, inflect=inflect)
                or (compound and _head_of_compound(first, parts[0], lang, inflect))):
            continue
        if all(same_word(words.raw[i + k], parts[k], lang, inflect=inflect) for k in range(1, n)):
            out.append((i, i + n))
    return out


def term_issues(source_text: str, target_text: str, hits: Iterable[TermHit], tgt_lang: str) -> list[TermProblem]:
    """The term findings of one translation: ``term_not_used`` for a source term (``hits``: the
    glossary's :func:`~engine.glossary.find_terms` of ``source_text``) none of whose target terms
    is in ``target_text``; ``forbidden_term`` for a forbidden variant of a found entry there.  In
    source order, then target order."""
    groups: dict[tuple[int, int], list[GlossaryEntry]] = {}
    for h in hits:
        entries = groups.setdefault((h.start, h.end), [])
        if h.entry not in entries:
            entries.append(h.entry)
    if not groups:
        return []
    lang = primary(tgt_lang)
    words = _Words(target_text, lang)
    compound = lang in COMPOUNDING
    found = {key: [span for e in entries if e.targets for t in e.targets
                   for span in _occurrences(words, t, lang, compound=compound, inflect=e.inflect)]
             for key, entries in groups.items()}
    accepted_spans = {span for spans in found.values() for span in spans}
    problems: list[TermProblem] = []
    seen: set[tuple[int, int, str]] = set()
    for (start, end), entries in sorted(groups.items()):
        with_targets = [e for e in entries if e.targets]
        if with_targets and not found[(start, end)]:
            problems.append(TermProblem("term_not_used", with_targets[0], start, end))
        for e in entries:
            for bad in e.forbidden:
                for i, j in _occurrences(words, bad, lang, compound=False, inflect=False):
                    key = (i, j, bad.casefold())
                    if key in seen or any(a <= i and j <= b and (a, b) != (i, j) for a, b in accepted_spans):
                        continue
                    seen.add(key)
                    problems.append(TermProblem("forbidden_term", e, start, end, bad,
                                                words.tokens[i].start, words.tokens[j - 1].end))
    return problems


__all__ = ["term_issues", "same_word", "ENDINGS", "COMPOUNDING", "MIN_MODIFIER"]
