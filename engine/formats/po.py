"""gettext PO/POT files, parsed with translate-toolkit.

* Each entry's msgid is a segment; an entry with ``msgid_plural`` gives one
  segment per plural form (form 0's source is msgid, the others'
  msgid_plural; the number of forms is the header's ``nplurals`` or the
  number of ``msgstr[n]`` present, whichever is larger).
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

Export rewrites only the entries that receive a translation (their msgstr,
and the ``fuzzy`` flag: cleared when confirmed -- with the ``#|`` previous
msgid that only a fuzzy entry carries -- and set for a draft); every other
byte of the file -- header, comments, obsolete entries, line wrapping,
newlines, encoding, BOM -- is copied as it was.  When a translation does not
fit the file's legacy charset the file is written in UTF-8 and its header
says so.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.textutil import Decoded, decode_bytes, protect_like, protect_text, render, sniff_bom
from engine.fsutil import atomic_write
from engine.inline import TaggedText
from engine.langs import normalize_lang

_CHARSET = re.compile(rb"Content-Type:[^\n\\]*?charset=\s*([-\w.:]+)", re.I)
_NPLURALS = re.compile(r"nplurals\s*=\s*(\d+)")
_MSGID_LINE = re.compile(r"^\s*(?:#~\s*)?msgid\s+\"", re.M)
_DOMAIN = re.compile(r'^domain\s+"?(.+?)"?\s*$')
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
    if charset and charset.lower().replace("_", "-") not in _LEGACY_OK and not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            problems.append(f"line {line}: the header declares charset {charset} but the file "
                            "is UTF-8; read (and written back) as UTF-8")
            return decode_bytes(path, raw, "utf-8")
    try:
        return decode_bytes(path, raw, charset)
    except FormatError as e:
        if charset and "unknown character encoding" in e.message:
            raise FormatError(path, f"the header declares an unknown charset {charset!r}", f"line {line}") from None
        raise


def _split_lines(text: str) -> tuple[list[str], str]:
    """Lines with their ends, split on the newline that follows the first msgid
    (as gettext tools do: comments may hold stray line breaks)."""
    m = re.search(r"msgid[^\r\n]*(\r\n|\r|\n)", text)
    nl = m.group(1) if m else "\n"
    parts = text.split(nl)
    lines = [p + nl for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines, nl


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
    parse_lines: list[str]    # ``domain`` directives blanked (translate-toolkit lacks them)
    newline: str
    header: object | None
    entries: list[_Entry]
    nplurals: int
    problems: list[str]


def _parse(path: Path) -> _Parsed:
    from translate.storage import poparser, pypo

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    problems: list[str] = []
    dec = _decode(path, raw, problems)
    lines, nl = _split_lines(dec.text)
    domains: list[tuple[int, str]] = []
    parse_lines = list(lines)
    for i, line in enumerate(lines):
        if line.startswith("domain"):
            m = _DOMAIN.match(line.rstrip("\r\n"))
            if m:
                domains.append((i, m.group(1)))
                parse_lines[i] = nl
    store = pypo.pofile()
    store.newline = nl
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
    return _Parsed(dec, lines, parse_lines, nl, header, entries, nplurals, problems)


def _near(state) -> str:
    return (state.next_line or "").strip()[:60]


def _is_segment_unit(u) -> bool:
    return not (u.isheader() or u.obsolete or u.isblank())


def _plural_count(u, nplurals: int) -> int:
    present = max(u.msgstr.keys()) + 1 if isinstance(u.msgstr, dict) and u.msgstr else 1
    return max(present, nplurals, 1)


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
        n = seen[prefix + json.dumps(base)] = seen.get(prefix + json.dumps(base), 0) + 1
        suffix = f"#{n}" if n > 1 else ""
        if u.hasplural():
            for i in range(_plural_count(u, parsed.nplurals)):
                e.keys.append(prefix + json.dumps(base + [i], ensure_ascii=False) + suffix)
                e.sources.append(protect_text(msgid if i == 0 else msgid_plural))
        else:
            e.keys.append(prefix + json.dumps(base, ensure_ascii=False) + suffix)
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
        _assign_keys(parsed)
        header_fields = _header_fields(parsed.header)
        doc = ParsedDocument(
            path=str(path), format=self.name, src_lang=src_lang,
            tgt_lang=tgt_lang or normalize_lang(header_fields.get("Language", "")),
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
            for i, (key, src) in enumerate(zip(e.keys, e.sources)):
                tgt_text = targets[i] if i < len(targets) else ""
                target = protect_like(src, tgt_text) if tgt_text else None
                status = "new" if target is None else ("draft" if fuzzy else "confirmed")
                meta = dict(common)
                if plural:
                    meta.update(plural_index=i, plural_forms=len(e.keys))
                doc.segments.append(ParsedSegment(
                    key=key, source=src, target=target, status=status, note=_note(u),
                    context=_context(u) or "", meta=meta))
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        original = Path(original)
        parsed = _parse(original)
        _assign_keys(parsed)
        known = {k for e in parsed.entries for k in e.keys}
        unknown = [k for k in translations if k not in known]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for entries the file does not "
                                        f"have (first: {unknown[0]!r})")
        chunks: list[str] = ["".join(parsed.lines[: parsed.entries[0].first_line])]
        changed: dict[int, str] = {}
        for idx, e in enumerate(parsed.entries):
            if any(k in translations for k in e.keys) and _apply(e, translations):
                changed[idx] = _replace_chunk(parsed, e, e.unit._getoutput())
            chunks.append(changed[idx] if idx in changed else "".join(parsed.lines[e.first_line:e.end_line]))
        text = "".join(chunks)
        data = _encode(parsed, text, changed)
        with atomic_write(out, "wb") as fh:
            fh.write(data)


def _apply(e: _Entry, translations: dict[str, Translation]) -> bool:
    """Put the translations of ``e``'s keys into its unit and set its fuzzy
    flag; False (unit untouched) when that changes nothing."""
    u = e.unit
    was_fuzzy = u.isfuzzy()
    plural = u.hasplural()
    forms = _forms(u, len(e.keys)) if plural else [_forms(u, 1)[0]]
    before = list(forms)
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
    if forms == before and fuzzy == was_fuzzy:
        return False
    u.target = forms if plural else forms[0]
    if fuzzy != was_fuzzy:
        u.settypecomment("fuzzy", fuzzy)
    if was_fuzzy and not fuzzy:  # "#| previous msgid" only means something on a fuzzy entry
        u.prev_msgctxt, u.prev_msgid, u.prev_msgid_plural = [], [], []
    return True


def _replace_chunk(parsed: _Parsed, e: _Entry, new_text: str) -> str:
    """``new_text`` followed by what ended the entry's old chunk (blank lines,
    a ``domain`` directive); no final line break if the old chunk (the file's
    end) had none."""
    old_lines = parsed.lines[e.first_line:e.end_line]
    keep = 0
    for line in reversed(parsed.parse_lines[e.first_line:e.end_line]):
        if line.strip():
            break
        keep += 1
    out = new_text + "".join(old_lines[len(old_lines) - keep:] if keep else [])
    if old_lines and not old_lines[-1].endswith(("\n", "\r")) and old_lines[-1].strip():
        out = out.rstrip("\r\n")
    return out


def _encode(parsed: _Parsed, text: str, changed: dict[int, str]) -> bytes:
    dec = parsed.decoded
    try:
        return dec.encode(text)
    except UnicodeEncodeError:
        pass
    # A translation does not fit the legacy charset: write UTF-8 and say so in the header.
    h_idx = next((i for i, e in enumerate(parsed.entries) if e.unit is parsed.header), None)
    if h_idx is not None:
        h = parsed.header
        h.target = re.sub(r"(charset=\s*)[-\w.:]+", r"\1UTF-8", h.target, count=1)
        changed[h_idx] = _replace_chunk(parsed, parsed.entries[h_idx], h._getoutput())
    chunks = ["".join(parsed.lines[: parsed.entries[0].first_line])]
    for idx, e in enumerate(parsed.entries):
        chunks.append(changed[idx] if idx in changed else "".join(parsed.lines[e.first_line:e.end_line]))
    return "".join(chunks).encode("utf-8")


def _header_fields(header) -> dict[str, str]:
    if header is None:
        return {}
    fields: dict[str, str] = {}
    for line in (header.target or "").split("\n"):
        if ":" in line:
            k, v = line.split(":", 1)
            fields[k.strip()] = v.strip()
    return fields


FORMAT = PoFormat()
