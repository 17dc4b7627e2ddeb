"""Reading a gettext PO file for :mod:`engine.formats.po`: its encoding (BOM, header charset, a legacy
charset declared over UTF-8), its lines as the file has them and as translate-toolkit's parser can
take them, and its entries with the lines each spans (what the export splices)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import FormatError
from engine.formats.po_lines import check_msgstr
from engine.formats.textutil import Decoded, check_lines, decode_bytes, sniff_bom, text_codec
from engine.inline import TaggedText

CHARSET = re.compile(rb"Content-Type:[^\n\\]*?charset=\s*([-\w.:]+)", re.I)
_NPLURALS = re.compile(r"nplurals\s*=\s*(\d+)")
_DOMAIN = re.compile(r'^domain\s+"?(.+?)"?\s*$')
_LEGACY_OK = ("utf-8", "utf8", "utf-16", "utf-32", "ascii", "us-ascii")


# ------------------------------------------------------------------- decoding
def declared_charset(raw: bytes) -> tuple[str | None, int]:
    """The header's charset (``None`` if absent or the ``CHARSET`` template) and its line."""
    second = re.search(rb"[\r\n]msgid\s", raw[raw.find(b"msgid") + 5:]) if b"msgid" in raw else None
    head = raw[: raw.find(b"msgid") + 5 + second.start()] if second else raw
    m = CHARSET.search(head)
    if not m or m.group(1).upper() == b"CHARSET":
        return None, 0
    return m.group(1).decode("ascii", "replace"), raw[: m.start()].count(b"\n") + 1


def decode(path: Path, raw: bytes, problems: list[str]) -> Decoded:
    if not raw.strip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe"):
        raise FormatError(path, "the file is empty (no PO header or entry)")
    enc, _ = sniff_bom(raw)
    if enc is not None:
        return decode_bytes(path, raw)
    charset, line = declared_charset(raw)
    if charset:
        text_codec(path, charset, f"line {line}", "header charset")
    if charset and charset.lower().replace("_", "-") not in _LEGACY_OK and not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            problems.append(f"line {line}: the header declares charset {charset} but the file "
                            "is UTF-8; read (and written back) as UTF-8")
            return decode_bytes(path, raw, "utf-8")
    return decode_bytes(path, raw, charset)


def split_lines(text: str) -> tuple[list[str], str]:
    """Lines with their ends, split on the line end that follows the first
    msgid (as gettext tools do: comments may hold stray line breaks).  That
    end may be ``\r\r\n``: gettext reads the extra CRs as white space."""
    m = re.search(r"msgid[^\r\n]*(\r*\n|\r)", text)
    nl = m.group(1) if m else "\n"
    parts = text.split(nl)
    lines = [p + nl for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines, nl


_BARE_KEYWORD = re.compile(r"^(\s*(?:#~\s*)?(?:msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?))\s*$")


_OBSOLETE_NO_SPACE = re.compile(r'^(\s*#~)(?=msg|")')


def parse_line(line: str) -> str:
    """``line`` as translate-toolkit's parser can take it, meaning the same to
    gettext: a "\n" end; a keyword whose string starts on the next line
    given an empty string of its own (the next line continues it); a space
    after an obsolete entry's ``#~`` (without it the parser takes
    ``#~msgstr[1]`` for a comment of the next entry and fails on its flags)."""
    if line[-1:] == "\n" and line[-2:-1] != "\r" and (line[-2:-1] == '"' or line[:1] == "#") \
            and not line.lstrip().startswith("#~"):
        return line  # as it stands: most lines of a file (100,000 entries: 0.5 s of regular expressions)
    body = _OBSOLETE_NO_SPACE.sub(r"\1 ", line.rstrip("\r\n"))
    m = _BARE_KEYWORD.match(body)
    if m:
        body = m.group(1) + ' ""'
    return body + "\n" if len(body) < len(line) or m else body


# -------------------------------------------------------------------- parsing
@dataclass
class Entry:
    """A parsed unit, where it lies in the file, and the keys of its segments."""

    unit: object
    first_line: int           # 0-based index into lines
    end_line: int             # exclusive
    domain: str = ""          # the last ``domain NAME`` directive before it
    keys: list[str] = field(default_factory=list)
    sources: list[TaggedText] = field(default_factory=list)
    html: bool = False        # its msgid is an article, read sentence by sentence (po_html)


@dataclass
class Parsed:
    decoded: Decoded
    lines: list[str]          # as in the file
    parse_lines: list[str]    # as translate-toolkit reads them (see parse_line), ``domain`` lines blank
    newline: str
    header: object | None
    entries: list[Entry]
    nplurals: int
    problems: list[str]
    path: Path | None = None
    plural_rule: str = ""     # the target language's Plural-Forms, where the header has none (po_plurals)


def parse(path: Path) -> Parsed:
    from translate.storage import poparser, pypo

    check_lines(path, po_strings=True)  # before reading it whole: a 200 MB string is refused at once
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    problems: list[str] = []
    dec = decode(path, raw, problems)
    lines, nl = split_lines(dec.text)
    domains: list[tuple[int, str]] = []
    parse_lines = [parse_line(line) for line in lines]
    for i, line in enumerate(lines):
        if line.startswith("domain"):
            m = _DOMAIN.match(line.rstrip("\r\n"))
            if m:
                domains.append((i, m.group(1)))
                parse_lines[i] = "\n"
    store = pypo.pofile()
    store.newline = "\n"
    store.units = []
    state = poparser.PoParseState(parse_lines, store.create_unit)
    try:
        poparser.parse_units(state, store)
    except poparser.PoParseError as e:
        msg = str(e).split(" on line ")[0] or "syntax error"
        raise FormatError(path, f"PO syntax error: {msg} near {_near(state)!r}", f"line {state.lineno}") from None
    except (ValueError, IndexError, KeyError, TypeError, AttributeError) as e:
        raise FormatError(path, f"PO syntax error ({type(e).__name__}: {e}) near {_near(state)!r}",
                          f"line {state.lineno}") from None
    check_msgstr(path, dec.text)  # after the parser's own syntax errors, which name their line
    units = list(store.units)
    if not units:
        raise FormatError(path, "no PO entry found (is this a PO file?)")
    header = next((u for u in units if u.isheader()), None)
    nplurals = 0
    if header is not None:
        m = _NPLURALS.search(header.target or "")
        nplurals = int(m.group(1)) if m else 0
    starts = [max(int(getattr(u, "_line_number", 0) or 0) - 1, 0) for u in units]
    if any(b <= a for a, b in zip(starts, starts[1:])):  # pragma: no cover - library contract
        raise RuntimeError("translate-toolkit did not report entry line numbers; "
                           "PO export needs them to keep untouched entries")
    ends = starts[1:] + [len(lines)]
    entries = [Entry(u, s, e, next((d for at, d in reversed(domains) if at < s), ""))
               for u, s, e in zip(units, starts, ends)]
    return Parsed(dec, lines, parse_lines, nl, header, entries, nplurals, problems, path)


def _near(state) -> str:
    return (state.next_line or "").strip()[:60]
