"""Line-level helpers of the PO reader and writer (:mod:`engine.formats.po`): the line ends and
msgstr/flag lines a splice writes, and the check that every msgid has its msgstr.

translate-toolkit's parser drops a last ``msgid`` without ``msgstr`` without a word and
keeps one that has a comment, an entry the writer then finds no ``msgstr`` line to replace;
gettext's ``msgfmt`` refuses both ("missing 'msgstr' section"), so the reader refuses them too,
naming the line, before the parser sees the file.
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.errors import FormatError

_KEYWORD = re.compile(r"^[ \t]*(msgid|msgstr)\b[ \t]*(\"(?:[^\"\\\n]|\\.)*\")?", re.M)


def check_msgstr(path: Path, text: str) -> None:
    """Refuse ``text`` (a decoded PO file) where a ``msgid`` has no ``msgstr`` before the next
    ``msgid`` or the end of the file (obsolete ``#~`` entries are not checked)."""
    pending = None
    for m in _KEYWORD.finditer(text):
        if m.group(1) == "msgstr":
            pending = None
            continue
        if pending is not None:
            break
        pending = m
    if pending is not None:
        line = text.count("\n", 0, pending.start()) + 1
        shown = (pending.group(2) or '""')[:60]
        raise FormatError(path, f"msgid {shown} has no msgstr (gettext's msgfmt refuses the file too)",
                          f"line {line}")


def line_end(line: str, default: str) -> str:
    body = line.rstrip("\r\n")
    return line[len(body):] or default


def flag_list(line: str) -> list[str]:
    return [f.strip() for f in line.strip().lstrip("#,").split(",") if f.strip()]


def msgstr_lines(indent: str, name: str, quoted: list[str], end: str) -> str:
    """``name`` and its quoted string lines (``quoteforpo`` wraps as gettext does)."""
    quoted = quoted or ['""']
    return indent + name + " " + quoted[0] + end + "".join(q + end for q in quoted[1:])


_STAMPED = re.compile(r'((?:PO-Revision-Date|Last-Translator):)[^"\\]*')


def stamp_header(parsed, repl: dict[int, str], translator: str, when: str) -> None:
    """Record in ``repl`` the header's ``PO-Revision-Date`` (``when``, gettext's
    ``YEAR-MO-DA HO:MI+ZONE``) and ``Last-Translator`` (``translator``) as an edited file says
    them: only fields the header has are set, so a file without them gains no line."""
    header = next((e for e in parsed.entries if e.unit is parsed.header), None)
    if header is None:
        return
    value = {"PO-Revision-Date:": when, "Last-Translator:": translator.replace('"', "'").replace("\\", "/")}
    for i in range(header.first_line, header.end_line):
        line = repl.get(i, parsed.lines[i])
        if not line.lstrip().startswith("#") and _STAMPED.search(line):
            repl[i] = _STAMPED.sub(lambda m: f"{m.group(1)} {value[m.group(1)]}", line)
