"""Language codes: one normal form for every spelling.

``EN-US``, ``en_us``, ``en-US`` and ``en-us`` all become ``en-US`` (BCP 47
case conventions: language lower, script title, region upper).
"""
from __future__ import annotations

import re

_SEP = re.compile(r"[-_]")


def normalize_lang(code: str | None) -> str:
    """Return the BCP-47-cased form of ``code`` (``""`` for empty input).

    >>> normalize_lang("EN_us"), normalize_lang("zh-hant-tw"), normalize_lang("*all*")
    ('en-US', 'zh-Hant-TW', '*all*')
    """
    if not code:
        return ""
    code = code.strip()
    if code == "*all*":
        return code
    parts = [p for p in _SEP.split(code) if p]
    if not parts:
        return ""
    out = [parts[0].lower()]
    for p in parts[1:]:
        if len(p) == 4 and p.isalpha():
            out.append(p.title())
        elif len(p) in (2, 3) and (p.isalpha() or p.isdigit()):
            out.append(p.upper())
        else:
            out.append(p.lower())
    return "-".join(out)


def primary(code: str | None) -> str:
    """Primary language subtag: ``en-US`` -> ``en``."""
    return normalize_lang(code).split("-")[0]


def same_language(a: str | None, b: str | None, *, loose: bool = True) -> bool:
    """True when ``a`` and ``b`` name one language.

    With ``loose`` (the default) a bare ``en`` matches ``en-US``: a TM in
    ``en-GB`` should still serve an ``en`` project.
    """
    na, nb = normalize_lang(a), normalize_lang(b)
    if na == nb:
        return True
    return loose and primary(na) == primary(nb) and ("-" not in na or "-" not in nb)
