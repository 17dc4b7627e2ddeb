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

import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, Translation
from engine.formats.strsplice import Parsed, StringsFormat, Unit, key_json, unique_keys
from engine.formats.textutil import codes_checked, render
from engine.formats.xmlstrings import XmlText, encode_xml
from engine.fsutil import atomic_write
from engine.langs import normalize_lang

_TYPE = re.compile(r"""\s+type\s*=\s*(["'])[^"']*\1""")


def _text(el) -> str:
    return "".join(el.itertext()) if el is not None else ""


def escape_ts(s: str) -> str:
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


class TsFormat(StringsFormat):
    name = "qt-ts"
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
                if tr is None:
                    raise FormatError(path, "a <message> without <translation>", f"line {msg.sourceline}")
                unfinished = tr.get("type") == "unfinished"
                a, b = x.outer(tr)
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
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        original = Path(original)
        parsed = self.parse(original)
        by_key = {u.key: u for u in parsed.units}
        unknown = [k for k in translations if k not in by_key]
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
            tag = text[start:end]
            stag = _TYPE.sub("", re.match(r"<translation\b[^>]*?(?=/?>)", tag).group(0))
            stag += ' type="unfinished">' if draft else ">"
            if "plural_index" in units[0].meta:
                indent = _indent(text, start)
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


def _indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[line_start:pos]).group(0)


FORMAT = TsFormat()
