"""Qt Linguist ``.ts`` files (bilingual).

Each ``<message>`` is a segment, a ``numerus="yes"`` message one per ``<numerusform>`` (at least
as many as its translation holds, two otherwise).  Keys: a JSON array of the context name, the
source and the disambiguation ``<comment>`` (with the form's index for a plural); the context
is the ``<context>``'s name; ``<comment>``, ``<extracomment>`` and ``<translatorcomment>`` are
the note.  ``type="unfinished"`` with a translation reads as a draft, without one as new;
``vanished`` and ``obsolete`` messages are not segments.  The ``TS`` root's ``sourcelanguage``
and ``language`` are the languages the file declares.

Export replaces only the ``<translation>`` elements of translated messages: the translation's
other attributes kept, ``type="unfinished"`` dropped when every form is confirmed and set when
one is a draft; text escaped as lupdate escapes it (``&amp; &lt; &gt; &quot; &apos;``), a plural
translation's forms on lines of their own as lupdate writes them.  Everything else is the file's
own text (:mod:`engine.formats.xmlstrings`).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats import plurals
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.strsplice import Parsed, StringsFormat, Unit, key_json, unique_keys
from engine.formats.textutil import codes_checked, render
from engine.formats.xmlstrings import XmlText, encode_xml
from engine.fsutil import atomic_write
from engine.langs import normalize_lang

_TYPE = re.compile(r"""\s+type\s*=\s*(["'])[^"']*\1""")
#: what lupdate writes before a message's <translation> (Qt Linguist's ts.cpp, in this order)
_BEFORE_TRANSLATION = ("source", "oldsource", "comment", "oldcomment", "extracomment", "translatorcomment")


def _text(el) -> str:
    return "".join(el.itertext()) if el is not None else ""


def escape_ts(s: str) -> str:
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


class TsFormat(StringsFormat):
    name = "qt-ts"
    UNITS = b"<message"
    extensions = (".ts",)

    def sniff(self, path: Path, head: bytes) -> bool:
        from engine.formats.xmlroot import xml_root

        root = xml_root(Path(path), head)
        if root is None and Path(path).suffix.lower() == ".ts":  # TypeScript has the same extension
            text = head.lstrip(b"\xef\xbb\xbf").lstrip()
            return text.startswith(b"<?xml") or text.startswith(b"<!DOCTYPE TS") or text.startswith(b"<TS")
        return root is not None and root[0] == "TS"

    def parse(self, path: Path) -> Parsed:
        x = XmlText(path)
        root = x.tree.getroot()
        if root.tag != "TS":
            raise FormatError(path, f"the root element is <{root.tag}>, not <TS>")
        units: list[Unit] = []
        for ctx in root.iter("context"):
            cname = (ctx.findtext("name") or "").strip()
            for msg in ctx.iter("message"):
                tr = msg.find("translation")
                if tr is not None and tr.get("type") in ("vanished", "obsolete"):
                    continue
                source, comment = _text(msg.find("source")), msg.findtext("comment") or ""
                note = "\n".join(t for t in (comment, msg.findtext("extracomment") or "",
                                             msg.findtext("translatorcomment") or "") if t.strip())
                if tr is None:  # Qt's DTD makes it optional: untranslated; lupdate's place for it
                    after = [c for c in msg if c.tag in _BEFORE_TRANSLATION]
                    if msg.find("source") is None:
                        raise FormatError(path, "a <message> without <source>", f"line {msg.sourceline}")
                    a = b = x.outer(after[-1])[1]
                    tr = msg.makeelement("translation")
                unfinished = tr.get("type") == "unfinished"
                a, b = x.outer(tr) if tr.getparent() is not None else (a, b)
                meta = {"message_line": msg.sourceline, "unfinished": unfinished}
                base = [cname, source, comment]
                if msg.get("numerus") == "yes":
                    forms = [_text(f) for f in tr.iter("numerusform")]
                    for i in range(max(len(forms), 2)):
                        units.append(Unit(key=key_json(base + [i]), value=source, start=a, end=b,
                                          line=msg.sourceline or 0, note=note, context=cname,
                                          target=forms[i] if i < len(forms) and forms[i] else None,
                                          meta={**meta, "plural_index": i, "plural_forms": max(len(forms), 2)}))
                else:
                    units.append(Unit(key=key_json(base), value=source, start=a, end=b, line=msg.sourceline or 0,
                                      note=note, context=cname, target=_text(tr) or None, meta=meta))
        problems: list[str] = []
        unique_keys(units, problems)
        return Parsed(x.decoded, units, problems, meta={"language": root.get("language") or "",
                                                       "sourcelanguage": root.get("sourcelanguage") or ""})

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return escape_ts(value)

    def encode(self, parsed: Parsed, text: str, path: Path) -> bytes:
        return encode_xml(parsed.decoded, text)

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        doc = super().read(path, src_lang=src_lang, tgt_lang=tgt_lang)
        doc.tgt_lang = tgt_lang or normalize_lang(doc.meta.pop("language", ""))
        doc.src_lang = src_lang or normalize_lang(doc.meta.pop("sourcelanguage", ""))
        for s in doc.segments:
            if s.target is not None and s.meta.get("unfinished"):
                s.status = "draft"
        _target_forms(doc, plurals.gettext_forms(doc.tgt_lang), doc.tgt_lang)
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        parsed = self.parse(original)
        by_key = {u.key: u for u in parsed.units}
        translations = self.html_as_values(translations, by_key, original, src_lang)
        added = _added_forms(parsed.units)
        may_add = {k for keys in added.values() for k in keys}
        unknown = [k for k in translations if k not in by_key and k not in may_add]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for messages the file does not have "
                                        f"(first: {unknown[0]!r})")
        groups: dict[int, list[Unit]] = {}
        for u in parsed.units:
            groups.setdefault(u.start, []).append(u)
        text = parsed.decoded.text
        nl = "\r\n" if "\r\n" in text else "\n"
        edits = []
        for start, units in groups.items():
            more = [k for k in added.get(units[0].key, []) if k in translations]
            if more:  # forms the target language needs beyond the file's: up to the last translated
                units = units + [Unit(key=k, value=units[0].value, start=start, end=units[0].end,
                                      line=units[0].line, meta=units[0].meta)
                                 for k in added[units[0].key][:added[units[0].key].index(more[-1]) + 1]]
            if not any(u.key in translations for u in units):
                continue
            forms, draft = [], False
            for u in units:
                tr = translations.get(u.key)
                with codes_checked(original, f"line {u.line}"):
                    src = self.source(u, original)
                new = render(tr.target, src) if tr is not None and tr.target else None
                if new is not None:
                    draft |= tr.status != "confirmed"
                    forms.append(new)
                else:
                    forms.append(u.target or "")
                    draft |= bool(u.meta["unfinished"])
            draft |= not all(forms)
            old = [u.target or "" for u in units]
            if forms == old and draft == units[0].meta["unfinished"]:
                continue
            end = units[0].end
            tag = text[start:end] or "<translation>"  # none in the file: one where lupdate puts it
            stag = _TYPE.sub("", re.match(r"<translation\b[^>]*?(?=/?>)", tag).group(0))
            stag += ' type="unfinished">' if draft else ">"
            if start == end:
                stag = nl + _indent(text, text.rfind("<", 0, start)) + stag
            if "plural_index" in units[0].meta:
                indent = _indent(text, text.rfind("<", 0, start)) if start == end else _indent(text, start)
                inner = "".join(f"{nl}{indent}    <numerusform>{escape_ts(f)}</numerusform>" for f in forms)
                body = inner + nl + indent
            else:
                body = escape_ts(forms[0])
            edits.append((start, end, stag + body + "</translation>"))
        edits.sort()
        parts, pos = [], 0
        for a, b, s in edits:
            parts += [text[pos:a], s]
            pos = b
        parts.append(text[pos:])
        data = self.encode(parsed, "".join(parts), original)
        with atomic_write(out, "wb") as fh:
            fh.write(data)


def _added_forms(units: list[Unit]) -> dict[str, list[str]]:
    """For each plural message (by its first form's key), the keys of the forms it may gain:
    up to six, the most a language has (Arabic)."""
    out: dict[str, list[str]] = {}
    firsts = [u for u in units if u.meta.get("plural_index") == 0 and u.key.endswith("0]")]
    for u in firsts:
        base = json.loads(u.key)[:-1]
        n = u.meta["plural_forms"]
        out[u.key] = [key_json(base + [i]) for i in range(n, 6)]
    return out


def _target_forms(doc: ParsedDocument, forms: tuple[str, ...], lang: str) -> None:
    """A plural message gets a segment for each form ``lang`` has beyond the file's, and each form
    a note naming its CLDR category and example numbers; a form beyond the language's is marked."""
    if not forms:
        return
    out: list[ParsedSegment] = []
    for s in doc.segments:
        i = s.meta.get("plural_index")
        if i is None:
            out.append(s)
            continue
        n, own = s.meta["plural_forms"], s.note
        s.note = "\n".join(p for p in (own, _form_note(i, forms, lang)) if p)
        out.append(s)
        if i == n - 1 and n < len(forms) and s.key.endswith(f"{i}]"):
            base = json.loads(s.key)[:-1]
            out += [ParsedSegment(key=key_json(base + [j]), source=s.source, context=s.context,
                                  note="\n".join(p for p in (own, _form_note(j, forms, lang)) if p),
                                  meta={**s.meta, "plural_index": j, "plural_forms": len(forms),
                                        "plural_added": True})
                    for j in range(n, len(forms))]
    doc.segments = out


def _form_note(i: int, forms: tuple[str, ...], lang: str) -> str:
    if i >= len(forms):
        return f"form {i + 1}: {lang} has {len(forms)} plural form(s), this one is not used (kept as the file has it)"
    return f"form {i + 1} of {len(forms)}: {plurals.note(lang, forms[i])}"


def _indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[line_start:pos]).group(0)


FORMAT = TsFormat()
