"""Writing a PO file for :mod:`engine.formats.po`: the splice of one entry's changed ``msgstr`` lines
and ``fuzzy`` flag (every other line as it was), and the file's encoding back (UTF-8, said in the
header, when a translation does not fit its legacy charset)."""
from __future__ import annotations

import re

from engine.formats.base import Translation
from engine.formats.po_lines import flag_list, line_end, msgstr_lines
from engine.formats.po_read import CHARSET, Entry, Parsed
from engine.formats.po_units import msgstr_forms
from engine.formats.textutil import render


def new_forms(e: Entry, translations: dict[str, Translation]) -> tuple[list[str], list[str], bool, bool]:
    """(forms in the file, forms to write, fuzzy in the file, fuzzy to write)."""
    u = e.unit
    was_fuzzy = u.isfuzzy()
    before = msgstr_forms(u, len(e.keys)) if u.hasplural() else [msgstr_forms(u, 1)[0]]
    forms = list(before)
    confirmed: set[int] = set()
    draft = False
    for i, (key, src) in enumerate(zip(e.keys, e.sources)):
        tr = translations.get(key)
        if tr is None:
            continue
        forms[i] = render(tr.target, src) if tr.target else ""
        if forms[i] and tr.status == "confirmed":
            confirmed.add(i)
        elif forms[i]:
            draft = True
    fuzzy = draft or (was_fuzzy and any(f and i not in confirmed for i, f in enumerate(forms)))
    return before, forms, was_fuzzy, fuzzy


def changes(e: Entry, translations: dict[str, Translation]) -> bool:
    before, forms, was_fuzzy, fuzzy = new_forms(e, translations)
    return forms != before or fuzzy != was_fuzzy


def splice_entry(parsed: Parsed, e: Entry, translations: dict[str, Translation],
                  repl: dict[int, str]) -> None:
    """Record in ``repl`` (line index -> new text for that line) the msgstr
    and flag lines of ``e`` that its translations change; nothing if none."""
    from translate.storage.pypo import PoWrapper, quoteforpo

    before, forms, was_fuzzy, fuzzy = new_forms(e, translations)
    if forms == before and fuzzy == was_fuzzy and not parsed.plural_rule:
        return
    lines, plines, nl = parsed.lines, parsed.parse_lines, parsed.newline
    blocks: dict[int | None, tuple[int, int]] = {}   # msgstr index -> [first, end) lines
    flag_lines: list[int] = []
    prev_lines: list[int] = []
    first_keyword = None
    i = e.first_line
    while i < e.end_line:
        s = plines[i].lstrip()
        if s.startswith("msgstr"):
            m = re.match(r"msgstr\s*\[\s*(\d+)\s*\]", s)
            j = i + 1
            while j < e.end_line and plines[j].lstrip().startswith('"'):
                j += 1
            blocks[int(m.group(1)) if m else None] = (i, j)
            i = j
            continue
        if s.startswith("#,"):
            flag_lines.append(i)
        elif s.startswith("#|"):
            prev_lines.append(i)
        elif first_keyword is None and s.startswith(("msgctxt", "msgid")):
            first_keyword = i
        i += 1
    if first_keyword is None or not blocks:  # pragma: no cover - the parser accepted the entry
        raise RuntimeError(f"PO entry at line {e.first_line + 1}: no msgid/msgstr lines found")

    plural = e.unit.hasplural()
    changed = [i for i, (old, new) in enumerate(zip(before, forms)) if old != new]
    for idx, (old, new) in enumerate(zip(before, forms)):
        # a plural form the file lacks is written (empty if need be) when a later one is:
        # msgfmt wants msgstr[0..n] without gaps
        missing = plural and idx not in blocks and (changed and idx < changed[-1] or parsed.plural_rule)
        if parsed.plural_rule and plural and idx >= len(e.keys):  # a template's empty form the language lacks
            repl.update((k, "") for k in range(*blocks[idx]))
            continue
        if old == new and not missing:
            continue
        name = f"msgstr[{idx}]" if plural else "msgstr"
        span = blocks.get(idx if plural else None) or (blocks.get(0) if not plural else None)
        if span is None:  # a plural form the file lacks: after the last one present
            first, last = max(blocks.values(), key=lambda ab: ab[1])
            last -= 1
            indent = re.match(r"\s*", lines[first]).group(0)
            text = msgstr_lines(indent, name, quoteforpo(new, PoWrapper()), line_end(lines[first], nl))
            if not lines[last].endswith(("\n", "\r")):  # the file's last line
                text = line_end(lines[first], nl) + text.rstrip("\r\n")
            repl[last] = repl.get(last, lines[last]) + text
            continue
        a, b = span
        end = line_end(lines[a], nl)
        indent = re.match(r"\s*", lines[a]).group(0)
        text = msgstr_lines(indent, name, quoteforpo(new, PoWrapper()), end)
        if not lines[b - 1].endswith(("\n", "\r")):  # the file's last line
            text = text.rstrip("\r\n")
        repl[a] = text
        for k in range(a + 1, b):
            repl[k] = ""

    if fuzzy and not was_fuzzy:
        if flag_lines:
            k = flag_lines[0]
            flags = flag_list(lines[k])
            repl[k] = "#, " + ", ".join(["fuzzy"] + flags) + line_end(lines[k], nl)
        else:
            at = prev_lines[0] if prev_lines else first_keyword
            repl[at] = "#, fuzzy" + line_end(lines[at], nl) + repl.get(at, lines[at])
    elif was_fuzzy and not fuzzy:
        for k in flag_lines:
            flags = flag_list(lines[k])
            if "fuzzy" in flags:
                rest = [f for f in flags if f != "fuzzy"]
                repl[k] = "#, " + ", ".join(rest) + line_end(lines[k], nl) if rest else ""
        for k in prev_lines:  # "#| previous msgid" only means something on a fuzzy entry
            repl[k] = ""


def encode(parsed: Parsed, repl: dict[int, str]) -> bytes:
    def joined() -> str:
        return "".join(repl.get(i, line) for i, line in enumerate(parsed.lines))

    try:
        return parsed.decoded.encode(joined())
    except UnicodeEncodeError:
        pass
    # A translation does not fit the legacy charset: write UTF-8 and say so in the header.
    header = next((e for e in parsed.entries if e.unit is parsed.header), None)
    if header is not None:
        for i in range(header.first_line, header.end_line):
            line = repl.get(i, parsed.lines[i])
            if not line.lstrip().startswith("#") and CHARSET.search(line.encode("utf-8")):
                repl[i] = re.sub(r"(charset=\s*)[-\w.:]+", r"\1UTF-8", line, count=1)
                break
    return joined().encode("utf-8")
