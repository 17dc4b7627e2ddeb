"""A Hunspell dictionary read by spylls (a pure-Python port of Hunspell) in this process.

:class:`Hunspell` answers the two questions a :class:`engine.spelling.SpellChecker` asks of
its dictionary: which of these words are right (:meth:`Hunspell.lookup_many`), and the
corrections of one word within a time budget (:meth:`Hunspell.suggest`: spylls needs 0.1-0.6 s
for most words but several seconds for some long German compounds).  The editor asks the same
of a child process running this (:mod:`engine.spelling.process`); the CLI's QA uses it here.
Loading takes 1-3 s (German) of Python; loaded dictionaries are shared (by file).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from engine.spelling.dictionaries import DictionaryInfo

log = logging.getLogger(__name__)

_APOSTROPHES = "\u2019\u02bc"

_load_lock = threading.Lock()
_loaded: "OrderedDict[tuple[str, float, float], Hunspell]" = OrderedDict()
_LOADED_MAX = 4


class _Deadline(Exception):
    """Raised inside spylls' suggestion search when the time budget is spent."""


class _Budget(threading.local):
    deadline: float | None = None

    def check(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Deadline


class _TimedLookup:
    """spylls' Lookup, checking the suggestion budget before each (possibly slow) lookup."""

    def __init__(self, inner, budget: _Budget):
        self._inner, self._budget = inner, budget

    def __call__(self, *a, **kw):
        self._budget.check()
        return self._inner(*a, **kw)

    def good_forms(self, *a, **kw):
        self._budget.check()
        return self._inner.good_forms(*a, **kw)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _TimedWords(list):
    """The word list the ngram and phonetic suggestions scan, checking the budget every 512 words."""

    def __init__(self, words, budget: _Budget):
        super().__init__(words)
        self._budget = budget

    def __iter__(self):
        it = super().__iter__()
        check = self._budget.check
        for i, w in enumerate(it):
            if not i & 511:
                check()
            yield w


class Hunspell:
    """One dictionary, loaded by spylls; thread-safe (the suggestion budget is per thread)."""

    def __init__(self, info: DictionaryInfo):
        from spylls.hunspell import Dictionary

        self.info = info
        self._failed = False
        d = Dictionary.from_files(str(info.dic)[: -len(".dic")])
        self._budget = _Budget()
        d.suggester.lookup = _TimedLookup(d.suggester.lookup, self._budget)
        d.suggester.words_for_ngram = _TimedWords(d.suggester.words_for_ngram, self._budget)
        self._dict = d

    def _lookup(self, word: str) -> bool:
        d = self._dict
        try:
            if d.lookup(word):
                return True
            if any(a in word for a in _APOSTROPHES):
                return bool(d.lookup(word.translate({0x2019: "'", 0x02BC: "'"})))
            return False
        except Exception:  # never let a dictionary quirk break the editor
            if not self._failed:
                self._failed = True
                log.exception("spelling lookup failed for %r", word)
            return True

    def lookup_many(self, words: list[str]) -> list[bool]:
        """Whether each word is spelt right (a word spylls fails on counts as right)."""
        return [self._lookup(w) for w in words]

    def suggest(self, word: str, limit: int, time_budget: float | None) -> tuple[list[str], bool]:
        """Up to ``limit`` corrections of ``word`` found within ``time_budget`` seconds (None: no
        limit), best first, and whether that is all there are."""
        found: list[str] = []
        complete = True
        self._budget.deadline = None if time_budget is None else time.perf_counter() + time_budget
        try:
            for s in self._dict.suggest(word):
                if s != word and s not in found:
                    found.append(s)
                    if len(found) >= limit:
                        complete = False  # more may follow; enough for this limit
                        break
        except _Deadline:
            complete = False
        except Exception:
            log.exception("spelling suggestions failed for %r", word)
            complete = False
        finally:
            self._budget.deadline = None
        return found, complete


def load(info: DictionaryInfo) -> Hunspell:
    """The :class:`Hunspell` of ``info`` (shared; the last few stay loaded).  Raises OSError, or
    ValueError naming the file when spylls cannot read it."""
    st_d, st_a = info.dic.stat(), info.aff.stat()
    key = (str(info.dic.resolve()), st_d.st_mtime, st_a.st_mtime)
    with _load_lock:
        if key in _loaded:
            _loaded.move_to_end(key)
            return _loaded[key]
        try:
            h = Hunspell(info)
        except (OSError, ValueError):
            raise
        except Exception as e:  # spylls on a malformed file
            raise ValueError(f"{info.aff}: cannot read the dictionary: {e}".splitlines()[0]) from e
        _loaded[key] = h
        while len(_loaded) > _LOADED_MAX:
            _loaded.popitem(last=False)
        return h
