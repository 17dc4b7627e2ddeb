"""Term recognition: which glossary entries a segment contains, and where.

A text is read as word tokens; Verso's inline tag characters (U+E001..U+F8FF,
:mod:`engine.inline`) and punctuation are not tokens, so a term is found across
a tag (``file\\ue001 manager``) and a tag inside a word is skipped over
(``Da\\ue001tei`` reads as ``Datei``).  Each token is compared by its Snowball
stem (PyStemmer) of the case-folded word, so ``Datei`` finds ``Dateien`` and
``file`` finds ``Files``; a language without a Snowball stemmer compares the
case-folded words.  A term written in capitals (``PRE``, ``IT``) is an acronym and
matches only in capitals, so it does not fire on every "it".  Chinese and Japanese
characters are one token each (those scripts have no spaces).

The index (:class:`TermIndex`) is a trie over the terms' token keys, so finding
the terms of a segment costs time proportional to the segment, not to the
glossary: every token position walks at most as far as the longest term that
still matches.  Of overlapping matches the longest (in tokens, then characters)
wins; matches never overlap, except that entries whose source terms read the
same (homonyms, "File" and "file") are all reported with that span.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Callable, Generic, Iterable, Protocol, TypeVar, Union

from engine.glossary.model import GlossaryEntry, TermHit, TermProblem
from engine.langs import primary

#: ISO 639 code -> Snowball algorithm name (PyStemmer).
SNOWBALL: dict[str, str] = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian",
    "nn": "norwegian", "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian",
    "ru": "russian", "sr": "serbian", "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil",
    "tr": "turkish", "yi": "yiddish",
}

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TAGS = "\ue001-\uf8ff"
#: A word (letters/digits, possibly with tag characters inside it), or one CJK character.
# One tag inside a word (``Da<b>tei``: formatting) is skipped; two or more between letters
# (``Search</guimenu><guimenuitem>Filter``: one element closing, the next opening) part two words --
# KDE manuals write menu paths that way, and read as one word no label of them was found.
_TOKEN = re.compile(rf"[^\W{_CJK}]+(?:[{_TAGS}][^\W{_CJK}]+)*|[{_CJK}]")
_TAG_RE = re.compile(f"[{_TAGS}]")
_EXACT = "\x00"  # prefix of the key of an all-capitals token (matched case-sensitively)

_local = threading.local()


def stemmer_for(lang: str | None) -> Callable[[str], str] | None:
    """The Snowball stemmer of ``lang`` (a function of one lower-case word), or
    None for a language without one.  One stemmer per thread (PyStemmer's are
    not thread-safe)."""
    name = SNOWBALL.get(primary(lang))
    if not name:
        return None
    cache = getattr(_local, "stemmers", None)
    if cache is None:
        cache = _local.stemmers = {}
    fn = cache.get(name)
    if fn is None:
        import Stemmer

        if name not in Stemmer.algorithms():
            return None
        fn = cache[name] = Stemmer.Stemmer(name).stemWord
    return fn


@dataclass(frozen=True)
class Token:
    """A word of a text: ``text[start:end]``; ``key`` its stem, ``exact`` its
    case-sensitive key when it is in capitals (else '')."""

    start: int
    end: int
    key: str
    exact: str


def tokenize(text: str, lang: str | None) -> list[Token]:
    """The word tokens of ``text`` with their keys (see the module doc)."""
    stem = stemmer_for(lang)
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if not raw.isalnum():
            raw = _TAG_RE.sub("", raw)
        low = raw.casefold()
        key = stem(low) if stem is not None else low
        exact = _EXACT + raw if len(raw) > 1 and raw.isupper() else ""
        out.append(Token(m.start(), m.end(), key, exact))
    return out


def term_keys(term: str, lang: str | None) -> tuple[str, ...]:
    """The keys a text's tokens must have to contain ``term``."""
    return tuple(t.exact or t.key for t in tokenize(term, lang))


P = TypeVar("P")


class _Trie(Generic[P]):
    """Token-key sequences -> payloads; finds every occurrence in a token list."""

    __slots__ = ("root", "size")

    def __init__(self) -> None:
        self.root: dict = {}
        self.size = 0

    def add(self, keys: tuple[str, ...], payload: P) -> None:
        node = self.root
        for k in keys:
            node = node.setdefault(k, {})
        node.setdefault(None, []).append(payload)
        self.size += 1

    def occurrences(self, tokens: list[Token]) -> list[tuple[int, int, list[P]]]:
        """(first token, token after the last, payloads) of every occurrence."""
        out = []
        n = len(tokens)
        for i in range(n):
            frontier = [self.root]
            j = i
            while frontier and j < n:
                tok = tokens[j]
                nxt = []
                for node in frontier:
                    child = node.get(tok.key)
                    if child is not None:
                        nxt.append(child)
                    if tok.exact:
                        child = node.get(tok.exact)
                        if child is not None:
                            nxt.append(child)
                j += 1
                for node in nxt:
                    found = node.get(None)
                    if found:
                        out.append((i, j, found))
                frontier = nxt
        return out


def _longest_first(occ: list[tuple[int, int, list[P]]], tokens: list[Token]) -> list[tuple[int, int, list[P]]]:
    """Non-overlapping occurrences, longest winning; in text order."""
    occ = sorted(occ, key=lambda o: (-(o[1] - o[0]), -(tokens[o[1] - 1].end - tokens[o[0]].start), o[0]))
    taken = [False] * len(tokens)
    chosen: dict[tuple[int, int], list[P]] = {}
    for i, j, payloads in occ:
        if (i, j) in chosen:
            chosen[(i, j)].extend(p for p in payloads if p not in chosen[(i, j)])
            continue
        if any(taken[i:j]):
            continue
        for k in range(i, j):
            taken[k] = True
        chosen[(i, j)] = list(payloads)
    return sorted(((i, j, ps) for (i, j), ps in chosen.items()), key=lambda o: o[0])


class TermIndex:
    """The source terms of ``entries`` in ``lang``, ready for :func:`find_terms`.

    Building stems every term once; a lookup costs time proportional to the text.
    ``unindexed``: entries whose source term has no word at all (punctuation only).
    """

    def __init__(self, entries: Iterable[GlossaryEntry], lang: str | None = None):
        entries = list(entries)
        self.lang = lang or (entries[0].src_lang if entries else "")
        self._trie: _Trie[GlossaryEntry] = _Trie()
        self.unindexed: list[GlossaryEntry] = []
        for e in entries:
            keys = term_keys(e.source, self.lang)
            if keys:
                self._trie.add(keys, e)
            else:
                self.unindexed.append(e)

    def __len__(self) -> int:
        return self._trie.size

    def find(self, text: str) -> list[TermHit]:
        tokens = tokenize(text, self.lang)
        hits: list[TermHit] = []
        for i, j, entries in _longest_first(self._trie.occurrences(tokens), tokens):
            start, end = tokens[i].start, tokens[j - 1].end
            hits.extend(TermHit(start, end, e) for e in entries)
        return hits


class HasTermIndex(Protocol):
    """Anything that keeps a :class:`TermIndex` of its entries (a :class:`~engine.glossary.store.Glossary`)."""

    def index(self) -> "TermIndex": ...


def find_terms(text: str, glossary_or_index: Union[HasTermIndex, TermIndex, Iterable[GlossaryEntry]]) -> list[TermHit]:
    """The glossary entries whose source term is in ``text``, with their
    character spans, in text order (see the module doc for the matching rules).

    Pass a :class:`TermIndex` (or a :class:`~engine.glossary.store.Glossary`, whose
    index is built once and kept) when looking up many segments.
    """
    if isinstance(glossary_or_index, TermIndex):
        index = glossary_or_index
    elif hasattr(glossary_or_index, "index") and callable(glossary_or_index.index):
        index = glossary_or_index.index()
    else:
        index = TermIndex(glossary_or_index)
    return index.find(text)


def term_issues(source_text: str, target_text: str, hits: Iterable[TermHit], tgt_lang: str) -> list[TermProblem]:
    """Terminology findings of a translation, for QA.

    ``hits``: :func:`find_terms` of ``source_text``.  For each found term with
    target terms, ``term_not_used`` when none of them (stem-tolerant in
    ``tgt_lang``) is in ``target_text``; ``forbidden_term`` for each forbidden
    variant of a found entry present in ``target_text`` (not when it is only part
    of an accepted target term there).  In source order, then target order.
    """
    groups: dict[tuple[int, int], list[GlossaryEntry]] = {}
    for h in hits:
        groups.setdefault((h.start, h.end), [])
        if h.entry not in groups[(h.start, h.end)]:
            groups[(h.start, h.end)].append(h.entry)
    if not groups:
        return []
    tokens = tokenize(target_text, tgt_lang)
    trie: _Trie[tuple[bool, str]] = _Trie()
    terms: set[tuple[bool, str]] = set()
    for entries in groups.values():
        for e in entries:
            terms.update((True, t) for t in e.targets)
            terms.update((False, t) for t in e.forbidden)
    for accepted, t in terms:
        keys = term_keys(t, tgt_lang)
        if keys:
            trie.add(keys, (accepted, t.casefold()))
    present: set[str] = set()
    accepted_spans: list[tuple[int, int]] = []
    forbidden_at: list[tuple[int, int, str]] = []
    for i, j, payloads in trie.occurrences(tokens):
        for accepted, folded in payloads:
            if accepted:
                present.add(folded)
                accepted_spans.append((i, j))
            else:
                forbidden_at.append((i, j, folded))
    problems: list[TermProblem] = []
    seen_forbidden: set[tuple[int, int, str]] = set()
    for (start, end), entries in sorted(groups.items()):
        with_targets = [e for e in entries if e.targets]
        if with_targets and not any(t.casefold() in present for e in with_targets for t in e.targets):
            problems.append(TermProblem("term_not_used", with_targets[0], start, end))
        for e in entries:
            bad = {t.casefold(): t for t in e.forbidden}
            for i, j, folded in forbidden_at:
                if folded not in bad or (i, j, folded) in seen_forbidden:
                    continue
                if any(a <= i and j <= b and (a, b) != (i, j) for a, b in accepted_spans):
                    continue
                seen_forbidden.add((i, j, folded))
                problems.append(TermProblem("forbidden_term", e, start, end, bad[folded],
                                            tokens[i].start, tokens[j - 1].end))
    return problems
