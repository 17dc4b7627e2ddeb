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


def _language_and_script(code: str | None) -> tuple[str, str]:
    parts = normalize_lang(code).split("-")
    script = next((p for p in parts[1:] if len(p) == 4 and p.isalpha()), "")
    return parts[0], script


def same_pair(src_a: str | None, tgt_a: str | None, src_b: str | None, tgt_b: str | None) -> bool:
    """True when the pairs ``src_a -> tgt_a`` and ``src_b -> tgt_b`` translate between the same two
    languages: regional variants are one language (``en-GB -> fr-CA`` is the pair ``en -> fr``), a
    script is not (``zh-Hans`` and ``zh-Hant`` differ); an empty side matches any language."""
    def same(a, b) -> bool:
        if not normalize_lang(a) or not normalize_lang(b):
            return True
        la, sa = _language_and_script(a)
        lb, sb = _language_and_script(b)
        return la == lb and (sa == sb or not sa or not sb)

    return same(src_a, src_b) and same(tgt_a, tgt_b)


def pair_text(src: str | None, tgt: str | None) -> str:
    """``en-US -> ja-JP`` (``?`` for a side not known)."""
    return f"{normalize_lang(src) or '?'} -> {normalize_lang(tgt) or '?'}"
