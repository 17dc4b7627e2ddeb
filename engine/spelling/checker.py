"""The spelling checker: one Hunspell dictionary (here, :mod:`engine.spelling.hunspell`, or in a
child process, :mod:`engine.spelling.process`) plus a project's own words."""
from __future__ import annotations

import logging
import threading
import unicodedata
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable, Sequence

from engine.spelling.dictionaries import DictionaryInfo, find_dictionary
from engine.spelling.words import _HYPHENS, Misspelling, _parts, _skip_token, iter_words

log = logging.getLogger(__name__)

#: How long :meth:`SpellChecker.suggest` may take by default (seconds).
SUGGEST_BUDGET_S = 1.5


class SpellChecker:
    """Checks and corrects words with one Hunspell dictionary plus extra (project) words.

    Thread-safe for checking; the caches are per checker (an LRU cache per word: a 20-word
    segment takes well under a millisecond once its words were seen).  Build one with
    :meth:`for_language` or :meth:`from_info`.  ``dictionary``: an object with ``lookup_many``
    and ``suggest`` as :class:`engine.spelling.hunspell.Hunspell`'s (a child's answer None:
    not known now -- the words count as right and are not cached).
    """

    CACHE_SIZE = 50_000

    def __init__(self, dictionary, info: DictionaryInfo | None = None, extra_words: Iterable[str] = ()):
        self._dict = dictionary
        self.info = info
        self._lock = threading.Lock()
        self._extra: set[str] = set()
        self._extra_upper: set[str] = set()
        self._checked: OrderedDict[str, bool] = OrderedDict()
        self._suggested: OrderedDict[str, tuple[list[str], bool, float]] = OrderedDict()
        self._news: list[Callable[[], None]] = []
        self._pending: set[str] = set()       # words asked without waiting, not answered yet
        self._queue: list[list[str]] = []
        self._asker: threading.Thread | None = None
        for w in extra_words:
            self.add_word(w)

    # -- construction
    @classmethod
    def from_info(cls, info: DictionaryInfo, extra_words: Iterable[str] = (), *,
                  process: bool = False) -> "SpellChecker":
        """Read ``info``'s files (1-3 s the first time): here, or with ``process`` in a child
        process of its own (the editor: spylls is Python and would hold this process's lock).
        Raises OSError or ValueError on a bad file."""
        if process:
            from engine.spelling.shared import lease

            return cls(lease(info), info, extra_words)
        from engine.spelling.hunspell import load

        return cls(load(info), info, extra_words)

    @classmethod
    def for_language(cls, lang: str | None, extra_words: Iterable[str] = (),
                     folders: Sequence[str | Path] | None = None, *, process: bool = False) -> "SpellChecker | None":
        """A checker for ``lang``, or None when no dictionary for it is installed or it cannot be read."""
        info = find_dictionary(lang, folders)
        if info is None:
            return None
        try:
            return cls.from_info(info, extra_words, process=process)
        except (OSError, ValueError) as e:
            log.warning("spelling dictionary %s not usable: %s", info.dic, e)
            return None

    @property
    def lang(self) -> str:
        return self.info.lang if self.info else ""

    def on_news(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on another thread) when words checked without waiting
        (``misspellings(text, wait=False)``) have their answers and one is misspelt, or when a
        spelling process that had ended answers again (words checked meanwhile counted as right):
        marks may change."""
        with self._lock:
            self._news.append(callback)
            hook = len(self._news) == 1 and hasattr(self._dict, "on_restored") \
                and self._tell not in self._dict.on_restored
        if hook:
            self._dict.on_restored.append(self._tell)

    def off_news(self, callback: Callable[[], None]) -> None:
        """Stop calling ``callback`` (an editor that closed: one is opened per segment)."""
        with self._lock:
            try:
                self._news.remove(callback)
            except ValueError:
                pass

    def _tell(self) -> None:
        for fn in list(self._news):
            try:
                fn()
            except Exception:  # noqa: BLE001 - a closed editor's callback
                log.debug("spelling callback failed", exc_info=True)

    def _ask_later(self, words: list[str]) -> None:
        """Ask the dictionary for ``words`` on the checker's own thread (a spelling process: the
        caller, the UI thread, does not wait on its pipe -- a round trip at load 5-7 on 2 cores
        waited for the child to be scheduled), then :meth:`_tell` if one is misspelt."""
        with self._lock:
            words = [w for w in words if w not in self._pending]
            self._pending.update(words)
            if not words:
                return
            self._queue.append(words)
            if self._asker is None or not self._asker.is_alive():
                self._asker = threading.Thread(target=self._ask_loop, name="spelling-ask", daemon=True)
                self._asker.start()

    def _ask_loop(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._asker = None
                    return
                words = [w for batch in self._queue for w in batch]
                self._queue.clear()
            answers = self._dict.lookup_many(words)
            with self._lock:
                self._pending.difference_update(words)
                if answers is not None:
                    self._remember(words, answers)
            if answers is not None and not all(answers):
                self._tell()  # words not answered counted as right: all right changes no mark

    def _remember(self, words: list[str], answers: list[bool]) -> None:
        """Cache the answers (the lock held)."""
        for word, ok in zip(words, answers):
            self._checked[word] = ok
        while len(self._checked) > self.CACHE_SIZE:
            self._checked.popitem(last=False)

    def close(self) -> None:
        """End the spelling process, if any (its words count as right from now on)."""
        close = getattr(self._dict, "close", None)
        if close is not None:
            close()

    # -- extra words
    def add_word(self, word: str) -> None:
        """Accept ``word`` from now on (and its capitalised and ALL-CAPS forms, as Hunspell does)."""
        word = unicodedata.normalize("NFC", word.strip())
        if not word:
            return
        with self._lock:
            self._extra.add(word)
            self._extra_upper.add(word.upper())
            self._checked.pop(word, None)
            # A cached "misspelt" for another form of the word (Hauss -> HAUSS) goes stale too.
            for w in [w for w, ok in self._checked.items() if not ok and w.upper() == word.upper()]:
                del self._checked[w]

    @property
    def extra_words(self) -> frozenset[str]:
        return frozenset(self._extra)

    def _is_extra(self, word: str) -> bool:
        if word in self._extra:
            return True
        if word.isupper():
            return word in self._extra_upper
        if word[:1].isupper() and word[1:] == word[1:].lower():
            return word.lower() in self._extra or (word[:1].lower() + word[1:]) in self._extra
        return False

    # -- checking
    def _known(self, words: Iterable[str], wait: bool = True) -> dict[str, bool]:
        """Each (NFC) word's answer: from the cache or the project's words, the rest asked of the
        dictionary in one call (one round trip to a spelling process); without ``wait`` (a
        spelling process only) the rest count as right for now and are asked on another thread."""
        out: dict[str, bool] = {}
        todo: list[str] = []
        with self._lock:
            for word in words:
                if word in out:
                    continue
                hit = self._checked.get(word)
                if hit is not None:
                    self._checked.move_to_end(word)
                    out[word] = hit
                elif self._is_extra(word):
                    out[word] = True
                elif word not in todo:
                    todo.append(word)
        if todo and not wait and hasattr(self._dict, "on_restored"):
            self._ask_later(todo)
            out.update(dict.fromkeys(todo, True))
        elif todo:
            answers = self._dict.lookup_many(todo)
            if answers is None:  # a spelling process that is starting again: no marks meanwhile
                out.update(dict.fromkeys(todo, True))
                return out
            out.update(zip(todo, answers))
            with self._lock:
                self._remember(todo, answers)
        return out

    def check(self, word: str) -> bool:
        """True when ``word`` is spelt right (or is a project word)."""
        word = unicodedata.normalize("NFC", word)
        if not word:
            return True
        return self._known([word])[word]

    def misspellings(self, text: str, *, wait: bool = True) -> list[Misspelling]:
        """The misspelt words of ``text`` (see :func:`iter_words` for what counts as a word).

        A hyphenated word whose parts are right but whose whole is not stays one finding; one
        with misspelt parts gives those parts.  ``wait=False`` (the editor's underlines): words a
        spelling process has not answered yet count as right, :meth:`on_news` says when they are in.
        """
        words = list(iter_words(text))
        parts = {w: [p for p in _parts(w) if not _skip_token(p[2])] if any(h in w for h in _HYPHENS) else []
                 for _, _, w in words}
        asked = [unicodedata.normalize("NFC", w) for _, _, w in words]
        asked += [unicodedata.normalize("NFC", p[2]) for ps in parts.values() for p in ps]
        known = self._known(asked, wait) if asked else {}

        def right(w: str) -> bool:
            return known.get(unicodedata.normalize("NFC", w), True) if w else True

        out: list[Misspelling] = []
        for start, end, word in words:
            if right(word):
                continue
            bad = [(s, e, w) for s, e, w in parts[word] if not right(w)]
            if bad:
                out.extend(Misspelling(start + s, start + e, w) for s, e, w in bad)
            else:
                out.append(Misspelling(start, end, word))
        return out

    # -- suggestions
    def suggest(self, word: str, limit: int = 5, *, time_budget: float | None = SUGGEST_BUDGET_S) -> list[str]:
        """Up to ``limit`` corrections of ``word``, best first; what was found within
        ``time_budget`` seconds (None: no limit).  Results are cached."""
        word = unicodedata.normalize("NFC", word.strip())
        if not word or limit <= 0:
            return []
        budget = float("inf") if time_budget is None else time_budget
        with self._lock:
            hit = self._suggested.get(word)
            if hit is not None and (hit[1] or len(hit[0]) >= limit or hit[2] >= budget):
                self._suggested.move_to_end(word)
                return hit[0][:limit]
        answer = self._dict.suggest(word, limit, time_budget)
        if answer is None:  # a spelling process that is starting again
            return []
        found, complete = answer
        with self._lock:
            self._suggested[word] = (found, complete, budget)
            if len(self._suggested) > 2000:
                self._suggested.popitem(last=False)
        return found[:limit]
