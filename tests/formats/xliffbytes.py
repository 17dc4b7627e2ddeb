"""Where an exported XLIFF file differs from its original, checked on the bytes.

Independent of the writer's own splicing: units are found by regular
expressions over the decoded text (comments and CDATA blanked first, so a
commented-out unit is not taken for one), and everything outside the edited
units must be the same characters.  Inside an edited unit its ``<target>``
elements (with the whitespace before them, so an inserted target counts) and
its status attributes -- XLIFF 1.2 ``state`` / ``approved``, memoQ
``mq:status``, SDL ``<sdl:seg conf origin>`` and its origin history (the other origin
attributes and ``<sdl:prev-origin>``: Trados keeps an edited MT/TM segment's origin there), 2.0 ``state`` / ``subState``
-- may change; anything else in the unit may not.  An ``<alt-trans>``'s
target is not the unit's: it must stay as it was.

A ``target-language`` (1.2 ``<file>``) or ``trgLang`` (2.0 root) that the
original lacks may be added: XLIFF 2.0 requires ``trgLang`` once a target
exists.
"""
from __future__ import annotations

import codecs
import hashlib
import re

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))
_DECL_ENC = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_HIDDEN = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>", re.S)
_LANG_ATTR = re.compile(r"""\s+(?:target-language|trgLang)\s*=\s*(["'])[^"']*\1""")
# memoQ's who-changed-it-when of an edited unit is updated too (issue 45: engine/formats/xliff_revisions.py)
_STATUS_ATTR = re.compile(r"""\s+(?:state|approved|mq:status|subState|mq:lastchangedtimestamp|mq:lastchanginguser)"""
                          r"""\s*=\s*(["'])[^"']*\1""")
_SDL_SEG = re.compile(r"<sdl:seg\b[^>]*>")
_SDL_STATUS = re.compile(r"""\s+(?:conf|origin|origin-system|percent|struct-match|text-match)\s*=\s*(["'])[^"']*\1""")
_SDL_SEG_BLOCK = re.compile(r"<sdl:seg(?=[\s/>])(?:[^>]*/>|.*?</sdl:seg\s*>)", re.S)
_SDL_PREV = re.compile(r"\s*<sdl:prev-origin\b(?:[^>]*/>|.*</sdl:prev-origin\s*>)", re.S)
_ALT = re.compile(r"<(?:[\w.-]+:)?alt-trans\b.*?</(?:[\w.-]+:)?alt-trans\s*>", re.S)
_TARGET = re.compile(r"\s*<(?:[\w.-]+:)?target\b(?:[^>]*/>|.*?</(?:[\w.-]+:)?target\s*>)", re.S)


def decode(raw: bytes) -> tuple[bytes, str]:
    """(BOM, text) of an XML file."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return bom, raw[len(bom):].decode(codec)
    if len(raw) > 1 and raw[0] == 0:
        return b"", raw.decode("utf-16-be")
    if len(raw) > 1 and raw[1] == 0:
        return b"", raw.decode("utf-16-le")
    m = _DECL_ENC.match(raw)
    return b"", raw.decode(m.group(1).decode("ascii") if m else "utf-8")


def unit_spans(text: str, element: str) -> list[tuple[int, int]]:
    """(start, end) of every ``<trans-unit>`` / ``<unit>`` in ``text``, in order."""
    blank = _HIDDEN.sub(lambda m: " " * len(m.group(0)), text)
    start = re.compile(rf"<(?:[\w.-]+:)?{element}[\s/>]")
    out = []
    for m in start.finditer(blank):
        gt = blank.find(">", m.start())
        if blank[gt - 1] == "/":  # <unit .../>
            out.append((m.start(), gt + 1))
        else:
            end = re.compile(rf"</(?:[\w.-]+:)?{element}\s*>").search(blank, gt)
            out.append((m.start(), end.end()))
    return out


def _mask_unit(s: str) -> str:
    s = _ALT.sub(lambda m: f"\x00alt-trans {hashlib.sha1(m.group(0).encode()).hexdigest()}\x00", s)
    s = _TARGET.sub("", s)
    s = _STATUS_ATTR.sub("", s)
    s = _SDL_SEG_BLOCK.sub(lambda m: _SDL_PREV.sub("", m.group(0)), s)
    return _SDL_SEG.sub(lambda m: _SDL_STATUS.sub("", m.group(0)), s)


def changes_outside_edited_units(original: bytes, exported: bytes, element: str,
                                 edited: set[int]) -> list[str]:
    """What differs outside the edited units (``edited``: their ordinals,
    0-based, among the file's ``element`` units), as readable lines; empty
    when the export changed only what it may."""
    bom_a, a = decode(original)
    bom_b, b = decode(exported)
    problems = []
    if bom_a != bom_b:
        problems.append(f"BOM {bom_a!r} became {bom_b!r}")
    if len(_LANG_ATTR.findall(a)) != len(_LANG_ATTR.findall(b)):  # one was added
        a, b = _LANG_ATTR.sub("", a), _LANG_ATTR.sub("", b)
    ua, ub = unit_spans(a, element), unit_spans(b, element)
    if len(ua) != len(ub):
        return problems + [f"{len(ua)} units became {len(ub)}"]
    pa = pb = 0
    for i, ((sa, ea), (sb, eb)) in enumerate(zip(ua, ub)):
        if i not in edited:
            continue
        if a[pa:sa] != b[pb:sb]:
            problems.append(f"bytes before unit {i} changed: {_first_difference(a[pa:sa], b[pb:sb])}")
        if _mask_unit(a[sa:ea]) != _mask_unit(b[sb:eb]):
            problems.append(f"unit {i} changed outside its target and status: "
                            f"{_first_difference(_mask_unit(a[sa:ea]), _mask_unit(b[sb:eb]))}")
        pa, pb = ea, eb
    if a[pa:] != b[pb:]:
        problems.append(f"bytes after the last edited unit changed: {_first_difference(a[pa:], b[pb:])}")
    return problems


def _first_difference(x: str, y: str) -> str:
    i = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
    return f"at {i}: {x[max(0, i - 40):i + 40]!r} -> {y[max(0, i - 40):i + 40]!r}"
