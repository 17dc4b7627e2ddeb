"""A project's own words (:class:`ProjectDictionary`) and the QA check "spelling"
(:func:`spelling_issues`)."""
from __future__ import annotations

import time
import unicodedata
from pathlib import Path
from typing import Iterable

from engine.fsutil import atomic_write
from engine.qa_types import Issue
from engine.spelling.checker import SpellChecker


class ProjectDictionary:
    """A project's own words: one word per line of a UTF-8 file (``#`` starts a comment line)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def words(self) -> list[str]:
        """The words, in file order, without duplicates (none when the file does not exist)."""
        try:
            text = self.path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            return []
        seen: dict[str, None] = {}
        for line in text.splitlines():
            w = unicodedata.normalize("NFC", line.strip())
            if w and not w.startswith("#"):
                seen.setdefault(w, None)
        return list(seen)

    def add(self, word: str) -> bool:
        """Add ``word`` (atomic write).  False when it was there already.  ValueError for an
        empty word or one with a line break."""
        word = unicodedata.normalize("NFC", word.strip())
        if not word or "\n" in word or "\r" in word or word.startswith("#"):
            raise ValueError(f"not a dictionary word: {word!r}")
        words = self.words()
        if word in words:
            return False
        self._write([*words, word])
        return True

    def remove(self, word: str) -> bool:
        """Remove ``word``; False when it was not there."""
        word = unicodedata.normalize("NFC", word.strip())
        words = self.words()
        if word not in words:
            return False
        self._write([w for w in words if w != word])
        return True

    def _write(self, words: list[str]) -> None:
        with atomic_write(self.path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("".join(w + "\n" for w in words))


# ---------------------------------------------------------------- QA

def no_dictionary_issue(lang: str | None = None) -> Issue:
    """The one QA note for a run without a dictionary (segment_id 0, idx -1: no segment)."""
    what = f"the target language ({lang})" if lang else "the target language"
    return Issue(0, -1, "no-dictionary", f"no spelling dictionary for {what}: spelling not checked "
                 "(see the README, \"Spelling\")", "warning")


def spelling_issues(segments: Iterable, checker: SpellChecker | None, *, lang: str | None = None,
                    suggestions: int = 3, word_budget: float = 0.5, total_budget: float = 10.0) -> list[Issue]:
    """QA check ``spelling``: one warning per misspelt word of each translated segment
    (objects with ``id``, ``idx`` and a ``target`` TaggedText or str).

    Without a checker: a single :func:`no_dictionary_issue` (none when there are no segments).
    Suggestions take at most ``word_budget`` s per word and ``total_budget`` s per run; after
    that the messages go on without suggestions.
    """
    segments = list(segments)
    if checker is None:
        return [no_dictionary_issue(lang)] if segments else []
    out: list[Issue] = []
    end = time.perf_counter() + total_budget
    for s in segments:
        text = s.target if isinstance(s.target, str) else s.target.text
        if not text.strip():
            continue
        seen: set[str] = set()
        for m in checker.misspellings(text):
            if m.word in seen:
                continue
            seen.add(m.word)
            left = end - time.perf_counter()
            sugg = checker.suggest(m.word, suggestions, time_budget=min(word_budget, left)) \
                if suggestions > 0 and left > 0 else []
            out.append(Issue(s.id, s.idx, "spelling", f"{m.word!r} may be misspelt"
                             + (f" (suggestions: {', '.join(sugg)})" if sugg else ""), "warning"))
    return out
