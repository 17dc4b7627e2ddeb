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
* Placeholders (printf, ``%(name)s``, ``{0}``, HTML tags) are protected.  A msgid that is an
  article (``<p>...</p>``) gives one segment a sentence (:mod:`engine.formats.po_html`).
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

import re
from datetime import datetime, timezone
from pathlib import Path

from engine.errors import FormatError
from engine.formats import po_html, po_plurals
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.po_lines import stamp_header
from engine.formats.po_read import parse
from engine.formats.po_units import assign_keys, msgstr_forms, unit_context, unit_flags, unit_note
from engine.formats.po_write import changes, encode, splice_entry
from engine.formats.textutil import codes_checked, protect_like, sniff_bom
from engine.fsutil import atomic_write
from engine.identity import user_name

_MSGID_LINE = re.compile(r"^\s*(?:#~\s*)?msgid\s+\"", re.M)


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
        parsed = parse(path)
        header_fields = po_plurals.header_fields(parsed.header)
        tgt_lang = po_plurals.use_language(parsed, tgt_lang)
        assign_keys(parsed)
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
            targets = msgstr_forms(u, len(e.keys)) if plural else [msgstr_forms(u, 1)[0]]
            common = {"fuzzy": fuzzy, "flags": unit_flags(u), "locations": u.getlocations(),
                      "line": e.first_line + 1}
            note, context = unit_note(u), unit_context(u) or ""
            if e.html:  # an article: its sentences
                doc.segments.extend(po_html.segments(e, path, src_lang, note, context, common))
                continue
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
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        parsed = parse(original)
        po_plurals.use_language(parsed, tgt_lang)
        assign_keys(parsed)
        translations = po_html.whole_translations(parsed, translations, src_lang, original)
        known = {k for e in parsed.entries for k in e.keys}
        unknown = [k for k in translations if k not in known]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for entries the file does not "
                                        f"have (first: {unknown[0]!r})")
        edited = any(changes(e, translations) for e in parsed.entries if e.keys)
        if parsed.header is None and not edited:
            parsed.plural_rule = ""  # nothing edited: the file as it came, byte for byte (no header added)
        repl: dict[int, str] = {}
        for e in parsed.entries:
            if any(k in translations for k in e.keys) or (parsed.plural_rule and e.keys and e.unit.hasplural()):
                splice_entry(parsed, e, translations, repl)
        if edited:  # the header says when and by whom (an untouched file stays as it came)
            stamp_header(parsed, repl, user_name(), datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M+0000"))
        po_plurals.write_rule(parsed, repl)
        data = encode(parsed, repl)
        with atomic_write(out, "wb") as fh:
            fh.write(data)


FORMAT = PoFormat()
