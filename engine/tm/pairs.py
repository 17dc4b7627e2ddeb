"""Language pairs of TM units: the index term of a pair and the filter a search keeps.

A module of its own, without Whoosh: the scan process of a TM whose index is rebuilt
(:mod:`engine.tm.scan_server`) filters by pair and starts without importing the index.
"""
from __future__ import annotations

from engine.langs import normalize_lang, same_language


def pair_term(src_lang: str | None, tgt_lang: str | None) -> str:
    """Index term of a language pair (codes as stored: already normalised)."""
    return f"{src_lang or ''}|{tgt_lang or ''}"


def split_pair_term(term: str) -> tuple[str, str]:
    s, _, t = term.partition("|")
    return s, t


def any_lang(code: str | None) -> str:
    """Normalised code; ``*``, ``*all*`` and empty mean any language ("")."""
    code = normalize_lang(code)
    return "" if code in ("*", "*all*") else code


def pair_filter(src: str, tgt: str):
    """Predicate on language-pair terms for a search of ``src`` -> ``tgt``
    (None when any pair will do).  A unit without a language matches any."""
    if not src and not tgt:
        return None

    def accept(term: str) -> bool:
        us, ut = split_pair_term(term)
        return ((not src or not us or same_language(us, src))
                and (not tgt or not ut or same_language(ut, tgt)))
    return accept
