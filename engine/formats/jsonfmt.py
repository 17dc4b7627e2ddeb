"""JSON string resources: flat (``{"key": "text"}``) and nested (i18next, ngx-translate,
Chrome-style objects), strings inside arrays too.

Every non-empty string *value* is a segment keyed by its path (a JSON array of the object keys
and array indexes that lead to it); its context is the dotted path.  Keys, numbers, booleans
and null are not text.  i18next plural keys (``item_one``, ``item_other``, ``item_plural``)
are segments of their own whose note names the plural form, so the translator
writes each form the target language needs next to the others.  In a Chrome/WebExtension
``messages.json`` a message's ``description`` is its note, not a segment.

The file is checked with the standard library's :func:`json.loads` (its messages give line and
column), then walked by a small scanner that knows, for each string, where its literal stands
in the text -- :mod:`json` gives no positions, and the writer needs them to splice: an edited
export changes only the translated literals, written with :func:`json.dumps` (``\\uXXXX`` for
non-ASCII when the file itself is ASCII with escapes), and keeps indentation, key order,
duplicate keys and line ends.

Bounds: a file over :data:`engine.formats.textutil.MAX_DOCUMENT_BYTES` is refused before it
is read, nesting deeper than :data:`MAX_DEPTH` and more than ``MAX_SEGMENTS`` strings while
it is walked.
"""
from __future__ import annotations

import json
import re
from json.decoder import scanstring
from pathlib import Path

from engine.errors import FormatError
from engine.formats import textutil
from engine.formats.plurals import Group, PluralGaps
from engine.formats.strsplice import Parsed, StringsFormat, Unit, key_json, unique_keys

#: nesting no resource file comes near (i18next files nest 3-6 levels)
MAX_DEPTH = 100
_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")
_PLURAL = re.compile(r"_(zero|one|two|few|many|other|plural)$")


def _dotted(path: list) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


class _Walker:
    def __init__(self, path: Path, text: str):
        self.path, self.text = path, text
        self.units: list[Unit] = []
        self._at, self._line = 0, 1

    def line(self, i: int) -> int:
        """The line of offset ``i``, counted on from the last one asked (the walk goes forward:
        counting from the start each time took 158 s for 300,000 strings on one line)."""
        self._line += self.text.count("\n", self._at, i)
        self._at = i
        return self._line

    def ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()

    def value(self, i: int, keys: list, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise FormatError(self.path, f"nested deeper than {MAX_DEPTH} levels: not a resource file",
                              f"line {self.line(i)}")
        c = self.text[i]
        if c == '"':
            s, end = scanstring(self.text, i + 1)
            self.units.append(self._unit(s, i, end, keys))
            if len(self.units) > textutil.MAX_SEGMENTS:
                raise FormatError(self.path, f"more than {textutil.MAX_SEGMENTS:,} strings: more than Verso imports "
                                             "as one document; split it", f"line {self.line(i)}")
            return end
        if c == "{":
            i = self.ws(i + 1)
            while self.text[i] != "}":
                name, i = scanstring(self.text, i + 1)
                i = self.ws(self.ws(i) + 1)  # the ':'
                i = self.ws(self.value(i, keys + [name], depth + 1))
                if self.text[i] == ",":
                    i = self.ws(i + 1)
            return i + 1
        if c == "[":
            i = self.ws(i + 1)
            n = 0
            while self.text[i] != "]":
                i = self.ws(self.value(i, keys + [n], depth + 1))
                n += 1
                if self.text[i] == ",":
                    i = self.ws(i + 1)
            return i + 1
        return _SCALAR.match(self.text, i).end()

    def _unit(self, s: str, start: int, end: int, keys: list) -> Unit:
        note, meta = "", {}
        last = keys[-1] if keys else None
        m = _PLURAL.search(last) if isinstance(last, str) else None
        if m:
            form = "other" if m.group(1) == "plural" else m.group(1)
            meta["plural_form"] = form
            note = f"plural form {form!r} of {last[:m.start()]!r}"
        return Unit(key=key_json(keys), value=s, start=start, end=end, line=self.line(start),
                    note=note, context=_dotted(keys), meta=meta)


def _chrome_messages(units: list[Unit]) -> list[Unit]:
    """Chrome/WebExtension ``messages.json`` (``{"key": {"message": ..., "description": ...}}``):
    the description is the message's note, not a segment, and a placeholder's ``content``
    (``$1``) is not text."""
    paths = {u.key: json.loads(u.key) for u in units}
    descriptions = {tuple(p[:-1]): u for u in units if (p := paths[u.key]) and p[-1] == "description"}
    messages = {tuple(p[:-1]) for u in units if (p := paths[u.key]) and p[-1] == "message"}
    keep = []
    for u in units:
        p = paths[u.key]
        parent = tuple(p[:-1])
        if p and p[-1] == "description" and parent in messages:
            continue
        if len(p) >= 3 and p[-1] == "content" and p[-3] == "placeholders" and tuple(p[:-3]) in messages:
            continue
        if p and p[-1] == "message" and parent in descriptions:
            u.note = "\n".join(n for n in (descriptions[parent].value, u.note) if n)
        keep.append(u)
    return keep


def _back_ws(text: str, i: int) -> int:
    """``i`` moved back over the white space before it."""
    while i > 0 and text[i - 1] in " \t\r\n":
        i -= 1
    return i


def _key_start(text: str, value_start: int) -> int:
    """Where the member's key literal starts, going back from its value's opening quote."""
    j = _back_ws(text, _back_ws(text, value_start) - 1) - 1  # the key's closing quote
    while True:
        j = text.rindex('"', 0, j)
        slashes = j
        while text[slashes - 1] == "\\":
            slashes -= 1
        if (j - slashes) % 2 == 0:
            return j


def _plural_groups(text: str, units: list[Unit]) -> list[Group]:
    """i18next plural keys (``item_one``, ``item_other``) of one object: each set a group whose
    new forms go after its last member, written as that member is (indent, ``": "``)."""
    sets: dict[tuple, list[Unit]] = {}
    for u in units:
        if not u.meta.get("plural_form") or not u.key.endswith("]"):
            continue  # not a plural key, or a duplicate ("#2")
        path = json.loads(u.key)
        if not path[-1].endswith("_plural"):
            base = path[-1][:path[-1].rindex("_")]
            sets.setdefault((json.dumps(path[:-1]), base), []).append(u)
    groups = []
    for (parent, base), members in sets.items():
        last = max(members, key=lambda u: u.start)
        k = _key_start(text, last.start)
        ws = _back_ws(text, k)
        key_end = scanstring(text, k + 1)[1]
        path = json.loads(parent)
        groups.append(Group(forms={u.meta["plural_form"]: u.key for u in members},
                            key=key_json(path + [base + "_\0"]).replace("\\u0000", "{form}"), at=last.end,
                            layout={"before": text[ws:k], "colon": text[key_end:last.start], "base": base},
                            context=_dotted(path + [base + "_{form}"])))
    return groups


class JsonFormat(PluralGaps, StringsFormat):
    name = "json"
    #: a string token; one followed by ``:`` (group 1: a key) is not counted
    UNITS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?')
    extensions = (".json",)
    markup = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return Path(path).suffix.lower() in self.extensions

    def parse(self, path: Path) -> Parsed:
        textutil.check_size(path)  # one-line (minified) files are usual: no line limit here
        try:
            raw = Path(path).read_bytes()
        except OSError as e:
            raise FormatError(path, f"cannot read: {e.strerror or e}") from None
        dec = textutil.decode_bytes(path, raw)
        text = dec.text
        if not text.strip():
            raise FormatError(path, "the file is empty (no JSON value)")
        try:
            json.loads(text)
        except json.JSONDecodeError as e:
            raise FormatError(path, f"not valid JSON: {e.msg}", f"line {e.lineno}, column {e.colno}") from None
        except RecursionError:
            raise FormatError(path, "nested too deeply: not a resource file") from None
        w = _Walker(path, text)
        w.value(w.ws(0), [], 0)
        problems: list[str] = []
        w.units = _chrome_messages(w.units)
        unique_keys(w.units, problems)
        style_ascii = text.isascii() and "\\u" in text
        return Parsed(dec, w.units, problems, meta={"ascii": style_ascii,
                                                    "plural_groups": _plural_groups(text, w.units)})

    def plural_item(self, group: Group, cat: str, escaped: str, parsed: Parsed) -> str:
        key = json.dumps(f"{group.layout['base']}_{cat}", ensure_ascii=bool(parsed.meta.get("ascii")))
        return f",{group.layout['before']}{key}{group.layout['colon']}{escaped}"

    def escape(self, value: str, unit: Unit, parsed: Parsed) -> str:
        return json.dumps(value, ensure_ascii=bool(parsed.meta.get("ascii")))


FORMAT = JsonFormat()
