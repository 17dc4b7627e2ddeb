"""The plural forms of a PO file whose header gives no rule (a POT's ``nplurals=INTEGER``, an
empty or missing ``Plural-Forms``): they come from the target language.

Read, each plural entry gets the number of forms the language needs
(:func:`engine.formats.plurals.gettext_plural_forms`: msginit's rule, else CLDR's) -- three for
Polish, one for Japanese -- instead of the two ``msgstr[n]`` a template carries.  Written, every
plural entry has exactly that many ``msgstr[n]`` (``msgfmt -c`` refuses any other number: a
missing form is written empty, a template's empty form past them is dropped) and the header
says the rule: the template's ``Plural-Forms`` value is replaced, a header without the field
gets the line, a file without a header gets one.  A file whose header has its own
``nplurals`` keeps it and every byte of it.  (:func:`header_fields` reads the header's fields.)
"""
from __future__ import annotations

import re

from engine.formats import plurals
from engine.langs import normalize_lang

_FIELD = re.compile(r"(Plural-Forms:)[^\"\\]*")


def header_fields(header) -> dict[str, str]:
    """The header's ``Name: value`` fields (``{}`` without a header)."""
    fields: dict[str, str] = {}
    for line in (header.target or "").split("\n") if header is not None else ():
        if ":" in line:
            k, v = line.split(":", 1)
            fields[k.strip()] = v.strip()
    return fields


def use_language(parsed, tgt_lang: str) -> str:
    """Take the plural rule of ``tgt_lang`` (else of the header's ``Language``) when the file's header
    gives none (``parsed.nplurals`` 0) and the file has a plural entry.  Returns that language."""
    lang = tgt_lang or normalize_lang(header_fields(parsed.header).get("Language", ""))
    found = plurals.gettext_plural_forms(lang) if not parsed.nplurals and lang else None
    if found is not None and any(e.unit.hasplural() and not e.unit.obsolete for e in parsed.entries):
        parsed.nplurals, parsed.plural_rule = found
    return lang


def plural_count(u, parsed) -> int:
    """The number of forms (segments) of the plural unit ``u``: the file's ``msgstr[n]`` or the
    header's ``nplurals``, whichever is larger; with the language's rule, only a form that has
    a translation counts beyond it (a template's empty ``msgstr[1]`` is no Japanese form)."""
    from translate.storage.pypo import unquotefrompo

    d = u.msgstr if isinstance(u.msgstr, dict) and u.msgstr else {0: u.msgstr}
    if parsed.plural_rule:
        d = {i: s for i, s in d.items() if i == 0 or unquotefrompo(s)}
    return max(max(d) + 1, parsed.nplurals, 1)


def write_rule(parsed, repl: dict[int, str]) -> None:
    """Record in ``repl`` the header lines that say ``parsed.plural_rule`` (nothing without one)."""
    rule, nl, lines = parsed.plural_rule, parsed.newline, parsed.lines
    if not rule:
        return
    field = f'"Plural-Forms: {rule}\\n"'
    header = next((e for e in parsed.entries if e.unit is parsed.header), None)
    if header is None:
        charset = "UTF-8" if parsed.decoded.encoding.lower().replace("_", "-") in ("utf-8", "utf8") \
            else parsed.decoded.encoding
        repl[0] = (f'msgid ""{nl}msgstr ""{nl}"Content-Type: text/plain; charset={charset}\\n"{nl}'
                   f"{field}{nl}{nl}") + repl.get(0, lines[0])
        return
    in_msgstr, last = False, None
    for i in range(header.first_line, header.end_line):
        s = parsed.parse_lines[i].lstrip()
        if not s.startswith("#") and _FIELD.search(s):
            repl[i] = _FIELD.sub(lambda m: f"{m.group(1)} {rule}", repl.get(i, lines[i]), count=1)
            return
        in_msgstr = s.startswith("msgstr") or (in_msgstr and s.startswith('"'))
        if in_msgstr:
            last = i
    if last is not None:  # pragma: no branch - the parser found the header's msgstr
        text = repl.get(last, lines[last])
        end = text[len(text.rstrip("\r\n")):]
        repl[last] = (text + field + end) if end else (text + nl + field)
