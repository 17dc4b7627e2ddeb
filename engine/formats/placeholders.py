"""Placeholders of software strings as protected codes.

Besides what :func:`engine.inline.protect` finds in plain text (HTML tags, entities, printf
``%s``/``%1$s``, ``{0}``), resource files use placeholders of their own platforms:

* Apple/Objective-C ``%@``, ``%1$@``, ``%#@files@`` (a .stringsdict variable), and printf length modifiers ``%ld``, ``%lld``, ``%lu``, ``%zd``;
* Java/Android ``%1$d``, ``%2$.2f``, ``%n``;
* i18next/Handlebars/Mustache ``{{name}}``, ``{{- name}}``, ``{{count, number}}``, and i18next's
  nesting ``$t(key)``;
* ICU/.NET/Qt ``{0}``, ``{name}``, ``%1``, ``%L1``;
* Ruby/Rails ``%{count}``, ``%<total>.2f``; WebExtension ``$COUNT$``.

Each becomes one code (a ``ph`` tag whose original is the placeholder), HTML tags become paired
codes as in :func:`engine.inline.protect`.  ``50% off`` is prose, not the printf ``% o``: a space
flag is not a placeholder here either.
"""
from __future__ import annotations

import re

from engine.formats.textutil import renumber_like
from engine.inline import PLACEHOLDER_PATTERNS, TaggedText, TaggedTextBuilder

_SOFTWARE = (
    ("mustache", r"\{\{-?\s*[^{}\s][^{}]*\}\}"),
    ("nesting", r"\$t\([^()\n]{1,200}\)"),
    ("chrome", r"\$[A-Za-z_]\w*\$"),
    ("ruby", r"%\{[A-Za-z_]\w*\}|%<[A-Za-z_]\w*>[-+#0 ]*\d*(?:\.\d+)?[sdifxXoeEgGbB]"),
    ("apple", r"%#@[A-Za-z_]\w*@|%(?:\d+\$)?[-+#0]*\d*(?:\.\d+)?(?:hh|h|ll|l|q|z|t|j|L)?[@dDiuUxXoOfFeEgGcCsSpaA]|%n|%%"),
)
_INLINE = tuple((n, p) for n, p in PLACEHOLDER_PATTERNS if n != "printf")
_RE = re.compile("|".join(f"(?P<{name}>{pat})" for name, pat in _SOFTWARE + _INLINE + (
    ("qt", r"%L?\d+"),)))
_TAGNAME = re.compile(r"</?\s*([A-Za-z][\w:.-]*)")
_CODE_CHAR = re.compile("[\ue001-\uf8ff]")


def protect_software(text: str, *, markup: bool = True) -> TaggedText:
    """``text`` with its placeholders (and, with ``markup``, its HTML tags and entities) as codes.

    A private-use character of the text itself is kept as a code whose original is that character,
    as the other readers do."""
    if not _RE.search(text) and not _CODE_CHAR.search(text):
        return TaggedText(text)
    b = TaggedTextBuilder()
    stack: list[tuple[str, str]] = []
    pos = pair_seq = 0
    for m in _RE.finditer(text):
        kind, raw = m.lastgroup, m.group(0)
        if kind in ("tag", "entity") and not markup:
            continue
        if raw == "%%":  # a literal percent sign, not a placeholder
            continue
        b.text(text[pos:m.start()])
        if kind == "tag":
            name = _TAGNAME.match(raw).group(1).lower()
            if raw.endswith("/>"):
                b.ph(raw, name)
            elif raw.startswith("</"):
                idx = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)
                if idx is None:
                    b.ph(raw, "/" + name)
                else:
                    b.close(raw, name, pair=stack.pop(idx)[1])
            else:
                pair_seq += 1
                b.open(raw, name, pair=f"p{pair_seq}")
                stack.append((name, f"p{pair_seq}"))
        else:
            b.ph(raw, raw)
        pos = m.end()
    b.text(text[pos:])
    return b.build()


def protect_target(source: TaggedText, text: str, *, markup: bool = True) -> TaggedText:
    """Protect ``text`` (a translation in the file) reusing the numbers of ``source``'s codes
    (:func:`engine.formats.textutil.renumber_like`)."""
    return renumber_like(source, protect_software(text, markup=markup))
