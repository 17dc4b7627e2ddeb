"""gettext PO/POT files, read with translate-toolkit, written by splicing lines.

* Each entry's msgid is a segment; an entry with ``msgid_plural`` gives one
  segment per plural form (form 0's source is msgid, the others'
  msgid_plural; the number of forms is the header's ``nplurals`` or the
  number of ``msgstr[n]`` present, whichever is larger; a header without
  ``nplurals``, as a template's, takes the target language's:
  :mod:`engine.formats.po_plurals`).
* Keys are JSON: ``[msgctxt, msgid]`` or ``[msgctxt, msgid, plural_index]``
  (msgctxt ``null`` when absent), prefixed with ``domain=NAME|`` after a
  ``domain`` directive; a duplicate entry gets ``#2``, ``#3``...
* msgctxt -> context; translator (``#``) and extracted (``#.``) comments ->
  note; ``#, fuzzy`` -> status ``draft`` (and ``meta["fuzzy"]``); a
  translated entry without fuzzy -> ``confirmed``.  The header and obsolete
  (``#~``) entries are not segments.
* Placeholders (printf, ``%(name)s``, ``{0}``, HTML tags) are protected.
* Encoding: a BOM, else the header's charset, else UTF-8.  A header that
  declares a legacy charset over a body that is valid UTF-8 (a common
  editor mistake) is read as UTF-8 and reported in ``problems``.

What ``msgfmt -c`` accepts is read: a keyword whose string starts on the
next line (``msgstr[0]`` then ``"..."``), and lines ending in ``\r\r\n``
(gettext reads a CR as white space).

A line over 1 MiB, or one string (a keyword line and its ``"..."`` lines)
over 1 MiB, is refused with the file and the line before the file is read
whole (:func:`engine.formats.textutil.check_lines`).

Export is a line splice, not a re-serialisation.  For each entry whose
translation differs from the file, only its ``msgstr``/``msgstr[n]`` lines
are replaced (a plural form that did not change keeps its lines), and only
where the status demands it its ``fuzzy`` flag: cleared when confirmed --
with the ``#|`` previous-msgid lines that only a fuzzy entry carries -- and
set for a draft (``#, fuzzy`` added to the flag line, or a flag line of its
own before the msgid).  Every other byte -- header, comments, obsolete
``#~`` entries, ``domain`` lines, wrapping, line ends, encoding, BOM -- is
copied as it was, so an export without translations gives the same file.
translate-toolkit (like polib) is used to *read* entries, never to write
them: its serialiser re-wraps strings, normalises comments, drops blank
lines between a comment block and its entry and knows nothing of
``domain`` lines, and any of that would touch lines the translator never
changed.  When a translation does not fit the file's legacy charset the
file is written in UTF-8 and the header's charset says so.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from engine.errors import FormatError
from engine.formats import po_plurals
from engine.formats.po_lines import check_msgstr, flag_list, line_end, msgstr_lines, stamp_header
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.textutil import (Decoded, check_lines, decode_bytes, protect_like, protect_text, render,
                                     sniff_bom, text_codec, codes_checked)
from engine.fsutil import atomic_write
from engine.identity import user_name
from engine.inline import TaggedText

_CHARSET = re.compile(rb"Content-Type:[^\n\\]*?charset=\s*([-\w.:]+)", re.I)
_NPLURALS = re.compile(r"nplurals\s*=\s*(\d+)")
_MSGID_LINE = re.compile(r"^\s*(?:#~\s*)?msgid\s+\"", re.M)
_DOMAIN = re.compile(r'^domain\s+"?(.+?)"?\s*$')
#: ``json.dumps(obj, ensure_ascii=False)`` with one encoder (json.dumps builds one per call)
_json = json.JSONEncoder(ensure_ascii=False).encode
_LEGACY_OK = ("utf-8", "utf8", "utf-16", "utf-32", "ascii", "us-ascii")


# ------------------------------------------------------------------- decoding
def _declared_charset(raw: bytes) -> tuple[str | None, int]:
    """The header's charset (``None`` if absent or the ``CHARSET`` template) and its line."""
    second = re.search(rb"[\r\n]msgid\s", raw[raw.find(b"msgid") + 5:]) if b"msgid" in raw else None
    head = raw[: raw.find(b"msgid") + 5 + second.start()] if second else raw
    m = _CHARSET.search(head)
    if not m or m.group(1).upper() == b"CHARSET":
        return None, 0
    return m.group(1).decode("ascii", "replace"), raw[: m.start()].count(b"\n") + 1


def _decode(path: Path, raw: bytes, problems: list[str]) -> Decoded:
    if not raw.strip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe"):
        raise FormatError(path, "the file is empty (no PO header or entry)")
    enc, _ = sniff_bom(raw)
    if enc is not None:
        return decode_bytes(path, raw)
    charset, line = _declared_charset(raw)
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


def _split_lines(text: str) -> tuple[list[str], str]:
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


def _parse_line(line: str) -> str:
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
class _Entry:
    """A parsed unit, where it lies in the file, and the keys of its segments."""

    unit: object
    first_line: int           # 0-based index into lines
    end_line: int             # exclusive
    domain: str = ""          # the last ``domain NAME`` directive before it
    keys: list[str] = field(default_factory=list)
    sources: list[TaggedText] = field(default_factory=list)


@dataclass
class _Parsed:
    decoded: Decoded
    lines: list[str]          # as in the file
    parse_lines: list[str]    # as translate-toolkit reads them (see _parse_line), ``domain`` lines blank
    newline: str
    header: object | None
    entries: list[_Entry]
    nplurals: int
    problems: list[str]
    path: Path | None = None
    plural_rule: str = ""     # the target language's Plural-Forms, where the header has none (po_plurals)


def _parse(path: Path) -> _Parsed:
    from translate.storage import poparser, pypo

    check_lines(path, po_strings=True)  # before reading it whole: a 200 MB string is refused at once
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    problems: list[str] = []
    dec = _decode(path, raw, problems)
    lines, nl = _split_lines(dec.text)
    domains: list[tuple[int, str]] = []
    parse_lines = [_parse_line(line) for line in lines]
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
    entries = [_Entry(u, s, e, next((d for at, d in reversed(domains) if at < s), ""))
               for u, s, e in zip(units, starts, ends)]
    return _Parsed(dec, lines, parse_lines, nl, header, entries, nplurals, problems, path)


def _near(state) -> str:
    return (state.next_line or "").strip()[:60]


def _is_segment_unit(u) -> bool:
    return not (u.isheader() or u.obsolete or u.isblank())


def _forms(u, count: int) -> list[str]:
    """The msgstr[n] strings of a plural unit, padded to ``count``."""
    from translate.storage.pypo import unquotefrompo

    d = u.msgstr if isinstance(u.msgstr, dict) else {0: u.msgstr}
    return [unquotefrompo(d[i]) if i in d else "" for i in range(max(count, max(d, default=0) + 1))]


def _context(u) -> str | None:
    from translate.storage.pypo import unquotefrompo

    return unquotefrompo(u.msgctxt) if u.msgctxt else None


def _msgid(u) -> tuple[str, str]:
    from translate.storage.pypo import unquotefrompo

    return unquotefrompo(u.msgid), unquotefrompo(u.msgid_plural)


def _note(u) -> str:
    out = []
    for c in u.othercomments:
        c = c.rstrip("\r\n")[1:]
        out.append(c[1:] if c.startswith(" ") else c)
    for c in u.automaticcomments:
        c = c.rstrip("\r\n")[2:]
        out.append(c[1:] if c.startswith(" ") else c)
    return "\n".join(out).strip("\n")


def _flags(u) -> list[str]:
    return [f.strip() for tc in u.typecomments for f in tc.strip().lstrip("#,").split(",") if f.strip()]


def _assign_keys(parsed: _Parsed) -> None:
    """Fill each entry's keys and protected sources (shared by reader and writer)."""
    seen: dict[str, int] = {}
    for e in parsed.entries:
        u = e.unit
        if not _is_segment_unit(u):
            continue
        ctx = _context(u)
        msgid, msgid_plural = _msgid(u)
        base = [ctx, msgid]
        prefix = f"domain={e.domain}|" if e.domain else ""
        key = prefix + _json(base)
        n = seen[key] = seen.get(key, 0) + 1
        suffix = f"#{n}" if n > 1 else ""
        with codes_checked(parsed.path, f"line {e.first_line + 1}"):
            if u.hasplural():
                for i in range(po_plurals.plural_count(u, parsed)):
                    e.keys.append(prefix + _json(base + [i]) + suffix)
                    e.sources.append(protect_text(msgid if i == 0 else msgid_plural))
            else:
                e.keys.append(key + suffix)
                e.sources.append(protect_text(msgid))
        if n > 1:
            parsed.problems.append(f"line {e.first_line + 1}: duplicate entry {msgid[:40]!r} "
                                   f"(kept as a separate segment)")


# --------------------------------------------------------------------- format
class PoFormat:
    """Reader/writer for gettext PO and POT files."""

    name = "po"
    extensions = (".po", ".pot")

    def sniff(self, path: Path, head: bytes) -> bool:
        if Path(path).suffix.lower() in self.extensions:
            return True
        enc, bom = sniff_bom(head)
        text = head[len(bom):].decode(enc or "utf-8", errors="ignore")
        return bool(_MSGID_LINE.search(text)) and 'msgstr' in text

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        parsed = _parse(path)
        header_fields = po_plurals.header_fields(parsed.header)
        tgt_lang = po_plurals.use_language(parsed, tgt_lang)
        _assign_keys(parsed)
        doc = ParsedDocument(
            path=str(path), format=self.name, src_lang=src_lang, tgt_lang=tgt_lang,
            meta={"encoding": parsed.decoded.encoding, "bom": bool(parsed.decoded.bom),
                  "newline": parsed.newline, "nplurals": parsed.nplurals, "header": header_fields},
            problems=parsed.problems,
        )
        for e in parsed.entries:
            if not e.keys:
                continue
            u = e.unit
            fuzzy = u.isfuzzy()
            plural = u.hasplural()
            targets = _forms(u, len(e.keys)) if plural else [_forms(u, 1)[0]]
            common = {"fuzzy": fuzzy, "flags": _flags(u), "locations": u.getlocations(),
                      "line": e.first_line + 1}
            note, context = _note(u), _context(u) or ""
            for i, (key, src) in enumerate(zip(e.keys, e.sources)):
                tgt_text = targets[i] if i < len(targets) else ""
                target = None
                if tgt_text:
                    with codes_checked(path, f"line {e.first_line + 1}"):
                        target = protect_like(src, tgt_text)
                status = "new" if target is None else ("draft" if fuzzy else "confirmed")
                meta = dict(common)
                if plural:
                    meta.update(plural_index=i, plural_forms=len(e.keys))
                doc.segments.append(ParsedSegment(
                    key=key, source=src, target=target, status=status, note=note,
                    context=context, meta=meta))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        original = Path(original)
        parsed = _parse(original)
        po_plurals.use_language(parsed, tgt_lang)
        _assign_keys(parsed)
        known = {k for e in parsed.entries for k in e.keys}
        unknown = [k for k in translations if k not in known]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for entries the file does not "
                                        f"have (first: {unknown[0]!r})")
        edited = any(_changes(e, translations) for e in parsed.entries if e.keys)
        if parsed.header is None and not edited:
            parsed.plural_rule = ""  # nothing edited: the file as it came, byte for byte (no header added)
        repl: dict[int, str] = {}
        for e in parsed.entries:
            if any(k in translations for k in e.keys) or (parsed.plural_rule and e.keys and e.unit.hasplural()):
                _splice_entry(parsed, e, translations, repl)
        if edited:  # the header says when and by whom (an untouched file stays as it came)
            stamp_header(parsed, repl, user_name(), datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M+0000"))
        po_plurals.write_rule(parsed, repl)
        data = _encode(parsed, repl)
        with atomic_write(out, "wb") as fh:
            fh.write(data)


# --------------------------------------------------------------------- export
def _new_forms(e: _Entry, translations: dict[str, Translation]) -> tuple[list[str], list[str], bool, bool]:
    """(forms in the file, forms to write, fuzzy in the file, fuzzy to write)."""
    u = e.unit
    was_fuzzy = u.isfuzzy()
    before = _forms(u, len(e.keys)) if u.hasplural() else [_forms(u, 1)[0]]
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


def _changes(e: _Entry, translations: dict[str, Translation]) -> bool:
    before, forms, was_fuzzy, fuzzy = _new_forms(e, translations)
    return forms != before or fuzzy != was_fuzzy


def _splice_entry(parsed: _Parsed, e: _Entry, translations: dict[str, Translation],
                  repl: dict[int, str]) -> None:
    """Record in ``repl`` (line index -> new text for that line) the msgstr
    and flag lines of ``e`` that its translations change; nothing if none."""
    from translate.storage.pypo import PoWrapper, quoteforpo

    before, forms, was_fuzzy, fuzzy = _new_forms(e, translations)
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


def _encode(parsed: _Parsed, repl: dict[int, str]) -> bytes:
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
            if not line.lstrip().startswith("#") and _CHARSET.search(line.encode("utf-8")):
                repl[i] = re.sub(r"(charset=\s*)[-\w.:]+", r"\1UTF-8", line, count=1)
                break
    return joined().encode("utf-8")


FORMAT = PoFormat()
