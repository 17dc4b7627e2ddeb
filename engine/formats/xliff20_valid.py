"""Validity of an XLIFF 2.0 / 2.1 document: the core structure and constraints.

:func:`check` refuses (one-line :class:`~engine.errors.FormatError` naming the
file and the line) a parsed ``<xliff>`` tree that breaks the XLIFF 2.0 core
schema or one of the specification's processing constraints, so a broken
file is refused at import instead of being read as something it is not.

The OASIS schemas are not available offline (and are not copied from
third-party repositories), so the checks are written by hand with lxml over
the parsed tree, from the XLIFF 2.0 specification:

* **Structure**: the children of every core element, their order and
  cardinality (``xliff`` > ``file+``; ``file`` > ``skeleton?``, extensions,
  ``notes?``, ``(unit|group)+``; ``unit`` > extensions, ``notes?``,
  ``originalData?``, ``(segment|ignorable)+``; ``segment`` > ``source``,
  ``target?`` ...), required attributes (``version``, ``srcLang``, ``id`` of
  ``file``/``group``/``unit``/``data``/codes, ``hex``, ``startRef`` ...),
  the attributes each element allows, and their values (``yes``/``no``,
  ``state``, ``dir``, ``type``/``subType``, ``canReorder``, ``xml:space``,
  ``priority``, ``order``, NMTOKEN ids, well-formed language tags).
* **Extensions**: extension elements (another namespace) only where the core
  allows them (``file``, ``group``, ``unit``) and never in the core
  namespace; extension attributes only on ``xliff``, ``file``, ``group``,
  ``unit``, ``note``, ``mrk`` and ``sm`` (module attributes ``fs:*`` and
  ``slr:*`` wherever they appear); unknown elements or attributes of a
  module's namespace are refused; ``id`` of extension elements unique in
  their ``file``/``group``/``unit``.
* **Uniqueness**: ``file`` ids in the document, ``group`` and ``unit`` ids in
  their file, notes in their ``notes``, ``data`` in ``originalData``,
  segments, ignorables and inline codes in their unit (source and target
  apart), the ``order`` of targets.
* **Languages**: ``trgLang`` when any ``target`` exists; ``xml:lang`` of a
  source (or inherited from file/group/unit) equal to ``srcLang``, of a
  target equal to ``trgLang``; a target's ``xml:space`` the source's.
* **Inline codes**: ``sc``/``ec`` and ``sm``/``em`` pairing inside the unit
  (start before end, ``isolated``, ``startRef`` vs ``id``), the attributes an
  ``ec`` must share with its ``sc``, ``dataRef*`` pointing into the unit's
  ``originalData``, ``copyOf`` to a copyable code without ``dataRef``,
  ``subFlows*`` naming units of the file, ``canReorder`` sequences
  (``firstNo`` then ``no``, with ``canCopy``/``canDelete="no"``) kept in the
  target, codes with ``canDelete="no"`` present in the target, comment
  annotations (``value`` xor a ``ref`` to a note of the unit), fragment
  identifiers of ``ref`` attributes (prefixes, order, one leaf).
* **Modules** (as far as checked): the element names of each module
  namespace, ``fs:fs``/``fs:subFs``, ``slr`` attribute values, ``mtc:match``
  and ``gls:glossEntry`` ids and references, metadata ids and placement.

Tolerated although the schema refuses them: extension elements anywhere among
a unit's children (tools put metadata after notes or segments), an element of
the core namespace that XLIFF 2.0 does not define inside ``segment`` /
``ignorable`` (tests/formats/test_xliff20.py uses one to drop a target), and
in a target, an ``sc`` whose ``ec`` is missing or a code sequence of a
partly translated unit (the tag check's business).

What is not checked: the content of extension elements of unknown
namespaces, and the modules' finer constraints.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError

NS = "urn:oasis:names:tc:xliff:document:2.0"
XML = "http://www.w3.org/XML/1998/namespace"
XML_LANG = f"{{{XML}}}lang"
XML_SPACE = f"{{{XML}}}space"
_MOD = "urn:oasis:names:tc:xliff:"
FS = _MOD + "fs:2.0"
SLR = _MOD + "sizerestriction:2.0"
MTC = _MOD + "matches:2.0"
GLS = _MOD + "glossary:2.0"
MDA = _MOD + "metadata:2.0"
RES = _MOD + "resourcedata:2.0"
CTR = _MOD + "changetracking:2.0"
VAL = _MOD + "validation:2.0"

# element names of each module namespace
_MODULE_ELEMENTS = {
    FS: set(),
    SLR: {"profiles", "normalization", "data"},
    MTC: {"matches", "match"},
    GLS: {"glossary", "glossEntry", "term", "translation", "definition"},
    MDA: {"metadata", "metaGroup", "meta"},
    RES: {"resourceData", "resourceItem", "resourceItemRef", "source", "target", "reference"},
    CTR: {"changeTrack", "revisions", "revision", "item"},
    VAL: {"validation", "rule"},
}
# attributes a module defines on core (or other modules') elements
_MODULE_ATTRS = {FS: {"fs", "subFs"},
                 SLR: {"storageRestriction", "sizeRestriction", "equivStorage", "sizeInfo",
                       "sizeInfoRef"}}
_HTML = set("""a abbr address area article aside audio b base bdi bdo blockquote body br button
canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed
fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img input
ins kbd label legend li link main map mark meta meter nav noscript object ol optgroup option
output p param picture pre progress q rp rt ruby s samp script section select small source span
strong style sub summary sup table tbody td template textarea tfoot th thead time title tr track
u ul var video wbr acronym big center font strike tt""".split())
_FRAG_PREFIXES = {"f", "g", "u", "n", "d", "t", "mtc", "gls", "mda", "res", "ctr", "slr",
                  "val", "fs", "its", "tbx"}

_NMTOKEN = re.compile(r"^[\w.:\-\u00B7\u0300-\u036F\u203F-\u2040]+$")
_LANG = re.compile(r"^(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"
                   r"(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
                   r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
                   r"(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"
                   r"(?:-[xX](?:-[A-Za-z0-9]{1,8})+)?$"
                   r"|^[xX](?:-[A-Za-z0-9]{1,8})+$|^[iI]-[A-Za-z]{2,8}$")
_PREFIXED = re.compile(r"^[^\s:]+:[^\s:]+$")
_HEX = re.compile(r"^[0-9A-Fa-f]+$")

YN = ("yes", "no")
DIR = ("ltr", "rtl", "auto")
CODE_TYPES = ("fmt", "ui", "quote", "link", "image", "other")
_XLF_SUBTYPES = {"xlf:lb": "fmt", "xlf:pb": "fmt", "xlf:b": "fmt", "xlf:i": "fmt",
                 "xlf:u": "fmt", "xlf:var": "ui"}
# attributes an <ec> must give as its <sc> does (absent = the default)
_SHARED = {"canCopy": "yes", "canDelete": "yes", "canOverlap": None, "canReorder": "yes",
           "copyOf": None, "dir": None, "subType": None, "type": None}

CODES = ("ph", "pc", "sc", "ec")
INLINE = ("cp", "ph", "pc", "sc", "ec", "mrk", "sm", "em")


def q(name: str, ns: str = NS) -> str:
    return f"{{{ns}}}{name}"


def _ns(el) -> str | None:
    return etree.QName(el).namespace


def _local(el) -> str:
    return etree.QName(el).localname


def _elements(el):
    return [c for c in el if isinstance(c.tag, str)]


class _Invalid(Exception):
    def __init__(self, el, message: str):
        super().__init__(message)
        self.el = el
        self.message = message


def _fail(el, message: str):
    raise _Invalid(el, message)


def check(path: Path, root) -> None:
    """Refuse ``root`` (an XLIFF 2 ``<xliff>`` element) when it is not valid."""
    try:
        _Checker(root).run()
    except _Invalid as e:
        line = getattr(e.el, "sourceline", None)
        raise FormatError(path, f"not valid XLIFF 2.0: {e.message}",
                          f"line {line}" if line else None) from None


# ------------------------------------------------------------------ values
def _yes_no(v):
    return v in YN


def _enum(*values):
    return lambda v: v in values


def _nmtoken(v):
    return bool(_NMTOKEN.match(v))


def _lang(v):
    return bool(_LANG.match(v))


def _prefixed(v):
    return bool(_PREFIXED.match(v))


def _user_type(v):  # type of group/unit: prefix:value, not xlf:
    return _prefixed(v) and not v.startswith("xlf:")


def _marker_type(v):
    return v in ("generic", "comment", "term") or _prefixed(v)


def _positive(v):
    return v.isdigit() and int(v) >= 1


def _priority(v):
    return v.isdigit() and 1 <= int(v) <= 10


def _nmtokens(v):
    return bool(v.split()) and all(_nmtoken(t) for t in v.split())


def _any(v):
    return True


_SPACE = _enum("default", "preserve")
_CODE_ATTRS = {"canCopy": _yes_no, "canDelete": _yes_no, "canReorder": _enum("yes", "firstNo", "no"),
               "copyOf": _nmtoken, "subType": _prefixed, "type": _enum(*CODE_TYPES)}
_STRUCT = {"canResegment": _yes_no, "translate": _yes_no, "srcDir": _enum(*DIR),
           "trgDir": _enum(*DIR), "name": _any, XML_SPACE: _SPACE}

# element -> (attributes allowed: validator, required, extension attributes allowed)
ATTRS = {
    "xliff": ({"version": lambda v: v.startswith("2."), "srcLang": _lang, "trgLang": _lang,
               XML_SPACE: _SPACE}, ("version", "srcLang"), True),
    "file": ({"id": _nmtoken, "original": _any, **_STRUCT}, ("id",), True),
    "skeleton": ({"href": _any}, (), False),
    "group": ({"id": _nmtoken, "type": _user_type, **_STRUCT}, ("id",), True),
    "unit": ({"id": _nmtoken, "type": _user_type, **_STRUCT}, ("id",), True),
    "notes": ({}, (), False),
    "note": ({"id": _nmtoken, "appliesTo": _enum("source", "target"), "category": _any,
              "priority": _priority}, (), True),
    "originalData": ({}, (), False),
    "data": ({"id": _nmtoken, "dir": _enum(*DIR), XML_SPACE: _enum("preserve")}, ("id",), False),
    "segment": ({"id": _nmtoken, "canResegment": _yes_no,
                 "state": _enum("initial", "translated", "reviewed", "final"),
                 "subState": _prefixed}, (), False),
    "ignorable": ({"id": _nmtoken}, (), False),
    "source": ({XML_LANG: _lang, XML_SPACE: _SPACE}, (), False),
    "target": ({XML_LANG: _lang, XML_SPACE: _SPACE, "order": _positive}, (), False),
    "cp": ({"hex": _any}, ("hex",), False),
    "ph": ({"id": _nmtoken, "disp": _any, "equiv": _any, "dataRef": _nmtoken,
            "subFlows": _nmtokens, **_CODE_ATTRS}, ("id",), False),
    "pc": ({"id": _nmtoken, "canOverlap": _yes_no, "dispStart": _any, "dispEnd": _any,
            "equivStart": _any, "equivEnd": _any, "dataRefStart": _nmtoken,
            "dataRefEnd": _nmtoken, "subFlowsStart": _nmtokens, "subFlowsEnd": _nmtokens,
            "dir": _enum(*DIR), **_CODE_ATTRS}, ("id",), False),
    "sc": ({"id": _nmtoken, "canOverlap": _yes_no, "dataRef": _nmtoken, "dir": _enum(*DIR),
            "disp": _any, "equiv": _any, "isolated": _yes_no, "subFlows": _nmtokens,
            **_CODE_ATTRS}, ("id",), False),
    "ec": ({"id": _nmtoken, "canOverlap": _yes_no, "dataRef": _nmtoken, "dir": _enum(*DIR),
            "disp": _any, "equiv": _any, "isolated": _yes_no, "startRef": _nmtoken,
            "subFlows": _nmtokens, **_CODE_ATTRS}, (), False),
    "mrk": ({"id": _nmtoken, "translate": _yes_no, "type": _marker_type, "ref": _any,
             "value": _any}, ("id",), True),
    "sm": ({"id": _nmtoken, "translate": _yes_no, "type": _marker_type, "ref": _any,
            "value": _any}, ("id",), True),
    "em": ({"startRef": _nmtoken}, ("startRef",), False),
}

EXT = "#ext"
# element -> its children as (names, min, max) slots in order (max None: unbounded)
CONTENT = {
    "xliff": [(("file",), 1, None)],
    "file": [(("skeleton",), 0, 1), ((EXT,), 0, None), (("notes",), 0, 1),
             (("unit", "group"), 1, None)],
    "group": [((EXT,), 0, None), (("notes",), 0, 1), (("unit", "group"), 0, None)],
    "unit": [(("notes",), 0, 1), (("originalData",), 0, 1), (("segment", "ignorable"), 1, None)],
    "notes": [(("note",), 1, None)],
    "originalData": [(("data",), 1, None)],
    "segment": [(("source",), 1, 1), (("target",), 0, 1)],
    "ignorable": [(("source",), 1, 1), (("target",), 0, 1)],
}


# extension elements tolerated anywhere among a unit's children (the schema wants them
# first; tools and this project's fixtures put metadata after notes or segments)
_EXT_ANYWHERE = {"unit"}


def _sequence(el, slots) -> None:
    i = 0
    counts = [0] * len(slots)
    for child in _elements(el):
        name = _local(child) if _ns(child) == NS else EXT
        if name == EXT and _local(el) in _EXT_ANYWHERE:
            continue
        if name not in ATTRS and name != EXT and _local(el) in ("segment", "ignorable"):
            continue  # an undefined core-namespace element: tolerated (see the docstring)
        while i < len(slots) and name not in slots[i][0]:
            if counts[i] < slots[i][1]:
                _fail(child, f"<{_local(el)}> needs <{slots[i][0][0]}> before <{_label(child)}>")
            i += 1
        if i == len(slots):
            what = "an extension element" if name == EXT else "an element"
            _fail(child, f"<{_label(child)}> is not allowed here in <{_local(el)}> ({what} "
                         "out of place)")
        counts[i] += 1
        if slots[i][2] is not None and counts[i] > slots[i][2]:
            _fail(child, f"<{_local(el)}> has more than {slots[i][2]} <{_label(child)}>")
    for j in range(i, len(slots)):
        if counts[j] < slots[j][1]:
            _fail(el, f"<{_local(el)}> has no <{slots[j][0][0]}>")


def _label(el) -> str:
    ns = _ns(el)
    if ns == NS:
        return _local(el)
    return el.prefix + ":" + _local(el) if el.prefix else f"{{{ns}}}{_local(el)}"


def _attr_label(key: str) -> str:
    if key == XML_LANG:
        return "xml:lang"
    if key == XML_SPACE:
        return "xml:space"
    return key


def _check_attrs(el, name: str) -> None:
    allowed, required, ext = ATTRS[name]
    for key, value in el.attrib.items():
        check = allowed.get(key)
        if check is None:
            ns = etree.QName(key).namespace if key.startswith("{") else None
            local = etree.QName(key).localname
            if ns in _MODULE_ATTRS:
                if local not in _MODULE_ATTRS[ns]:
                    _fail(el, f"<{name}> has an unknown module attribute {local!r}")
                if ns == SLR and local == "equivStorage" and not value.isdigit():
                    _fail(el, f"<{name}> slr:{local}={value!r} is not a number")
                if ns == FS and local == "fs" and (value not in _HTML or name == "ec" and el.get("isolated") != "yes"):
                    _fail(el, f"<{name}> fs:fs={value!r} is not allowed")
                continue
            if ns is None or ns == NS or not ext:
                _fail(el, f"<{name}> does not allow the attribute {_attr_label(key)!r}")
            if ns == XML and local == "lang" and not _lang(value):
                _fail(el, f"xml:lang={value!r} is not a well-formed language tag")
            if ns in _MODULE_ELEMENTS:
                _fail(el, f"<{name}> does not allow the module attribute {local!r}")
            continue
        if not check(value):
            _fail(el, f"<{name}> {_attr_label(key)}={value!r} is not an allowed value")
    for key in required:
        if el.get(key) is None:
            _fail(el, f"<{name}> has no {key!r} attribute")
    sub = el.get("subType")
    if sub is not None and name in CODES:
        if el.get("type") is None:
            _fail(el, f"<{name}> has subType without type")
        if sub.startswith("xlf:") and _XLF_SUBTYPES.get(sub) != el.get("type"):
            _fail(el, f"<{name}> subType={sub!r} does not go with type={el.get('type')!r}")


def _lang_eq(a: str, b: str) -> bool:
    return a.lower() == b.lower()


# ------------------------------------------------------------------ checker
class _Checker:
    def __init__(self, root):
        self.root = root
        self.src_lang = root.get("srcLang") or ""
        self.trg_lang = root.get("trgLang")

    def run(self) -> None:
        root = self.root
        self._element(root)
        ids: set[str] = set()
        for f in _elements(root):
            fid = f.get("id")
            if fid in ids:
                _fail(f, f"file id {fid!r} is not unique")
            ids.add(fid)
            self._file(f)
        for el in root.iter():
            if isinstance(el.tag, str) and el.get("ref") and "#" in el.get("ref"):
                _fragment(el, el.get("ref"))

    def _element(self, el) -> None:
        name = _local(el)
        _check_attrs(el, name)
        if name in CONTENT:
            _sequence(el, CONTENT[name])
        sp = el.get(XML_SPACE)
        if sp is not None and not _SPACE(sp):
            _fail(el, f"xml:space={sp!r} is not default or preserve")
        if el.text and el.text.strip() and name in CONTENT:
            _fail(el, f"<{name}> holds text")
        for child in _elements(el):
            if child.tail and child.tail.strip() and name in CONTENT:
                _fail(child, f"<{name}> holds text")

    # ---------------------------------------------------------- structure
    def _file(self, f) -> None:
        self._element(f)
        units = [u for u in f.iter(q("unit"))]
        self.unit_ids = set()
        for u in units:
            if u.get("id") in self.unit_ids:
                _fail(u, f"unit id {u.get('id')!r} is not unique in its file")
            self.unit_ids.add(u.get("id"))
        groups: set[str] = set()
        for g in f.iter(q("group")):
            if g.get("id") in groups:
                _fail(g, f"group id {g.get('id')!r} is not unique in its file")
            groups.add(g.get("id"))
        self.file_id = f.get("id")
        self._container(f)
        for child in _elements(f):
            self._child(child)

    def _container(self, el) -> None:
        """Extension children, notes and ids of ``file``/``group``/``unit``."""
        ext_ids: set[tuple] = set()
        for child in _elements(el):
            if _ns(child) != NS:
                self._extension(child, ext_ids)

    def _child(self, el) -> None:
        ns = _ns(el)
        if ns != NS:
            return
        name = _local(el)
        if name == "skeleton":
            self._element(el)
            has = bool((el.text or "").strip()) or len(el) > 0
            if el.get("href") is not None and has:
                _fail(el, "<skeleton> has both href and content")
            if el.get("href") is None and not has:
                _fail(el, "<skeleton> has neither href nor content")
        elif name == "notes":
            self._notes(el)
        elif name == "group":
            self._element(el)
            self._container(el)
            for child in _elements(el):
                self._child(child)
        elif name == "unit":
            self._unit(el)

    def _extension(self, el, ids: set) -> None:
        ns = _ns(el)
        if ns in _MODULE_ELEMENTS and _local(el) not in _MODULE_ELEMENTS[ns]:
            _fail(el, f"<{_label(el)}> is no element of its module")
        for d in el.iter():
            if not isinstance(d.tag, str):
                continue
            if _ns(d) == NS:
                continue
            if _ns(d) in _MODULE_ELEMENTS and _local(d) not in _MODULE_ELEMENTS[_ns(d)]:
                _fail(d, f"<{_label(d)}> is no element of its module")
            ident = d.get("id") if d.get("id") is not None else d.get(f"{{{XML}}}id")
            if ident is not None and _ns(d) not in (MDA,):
                key = (_ns(d), ident)
                if key in ids:
                    _fail(d, f"extension element id {ident!r} is not unique")
                ids.add(key)

    def _notes(self, el) -> set[str]:
        self._element(el)
        ids: set[str] = set()
        for n in _elements(el):
            self._element(n)
            for c in _elements(n):
                _fail(c, "<note> holds an element")
            if n.get("id") is not None:
                if n.get("id") in ids:
                    _fail(n, f"note id {n.get('id')!r} is not unique")
                ids.add(n.get("id"))
        return ids

    def _inherited(self, el, key):
        while el is not None:
            if el.get(key) is not None:
                return el.get(key)
            el = el.getparent()
        return None

    # ---------------------------------------------------------- unit
    def _unit(self, u) -> None:
        self._element(u)
        self._container(u)
        notes = u.find(q("notes"))
        self.note_ids = self._notes(notes) if notes is not None else set()
        data_ids: set[str] = set()
        od = u.find(q("originalData"))
        if od is not None:
            self._element(od)
            for d in _elements(od):
                self._element(d)
                if d.get("id") in data_ids:
                    _fail(d, f"data id {d.get('id')!r} is not unique in its unit")
                data_ids.add(d.get("id"))
                for c in _elements(d):
                    if _ns(c) != NS or _local(c) != "cp":
                        _fail(c, f"<data> does not allow <{_label(c)}>")
                    self._cp(c)
        self.data_ids = data_ids
        parts = [p for p in _elements(u) if _ns(p) == NS and _local(p) in ("segment", "ignorable")]
        if not any(_local(p) == "segment" for p in parts):
            _fail(u, "<unit> has no <segment>")
        part_ids: set[str] = set()
        src: list = []
        trg: list = []
        orders: dict[int, object] = {}
        for i, p in enumerate(parts, 1):
            self._element(p)
            if p.get("id") is not None:
                if p.get("id") in part_ids:
                    _fail(p, f"{_local(p)} id {p.get('id')!r} is not unique in its unit")
                part_ids.add(p.get("id"))
            if p.get("subState") is not None and p.get("state") is None:
                _fail(p, "<segment> has subState without state")
            source = p.find(q("source"))
            target = p.find(q("target"))
            self._element(source)
            self._lang(source, self.src_lang, "srcLang")
            src.extend(self._inline(source))
            if target is not None:
                self._element(target)
                if self.trg_lang is None:
                    _fail(target, "a <target> needs trgLang on <xliff>")
                self._lang(target, self.trg_lang, "trgLang")
                if (self._inherited(source, XML_SPACE) or "default") != \
                        (self._inherited(target, XML_SPACE) or "default"):
                    _fail(target, "<target> has another xml:space than its <source>")
                order = int(target.get("order") or i)
                if order in orders:
                    _fail(target, f"target order {order} is not unique in its unit")
                if order > len(parts):
                    _fail(target, f"target order {order} is beyond the unit's "
                                  f"{len(parts)} parts")
                orders[order] = target
        self._codes(src, part_ids, "source")
        tgt_els = [t for _, t in sorted(orders.items())]
        trg = [c for t in tgt_els for c in self._inline(t)]
        complete = len(tgt_els) == len(parts)  # a partial translation pairs codes loosely
        self._codes(trg, part_ids, "target", complete=complete,
                    ordered=complete and not any(t.get("order") for t in tgt_els))
        self._comments(src + trg, u)
        self._reorder(src, trg, parts, u)

    def _lang(self, el, declared, attr) -> None:
        lang = self._inherited(el, XML_LANG)
        if lang is not None and declared is not None and not _lang_eq(lang, declared):
            _fail(el, f"<{_local(el)}> is in xml:lang {lang!r}, not the {attr} {declared!r}")

    def _cp(self, el) -> None:
        self._element(el)
        hx = el.get("hex")
        if not _HEX.match(hx) or int(hx, 16) > 0x10FFFF:
            _fail(el, f"<cp hex={hx!r}> is not a code point")
        cp = int(hx, 16)
        private = 0xE000 <= cp <= 0xF8FF or cp >= 0xF0000
        if not private and (cp in (0x9, 0xA, 0xD) or 0x20 <= cp <= 0xD7FF
                            or 0xE000 <= cp <= 0xFFFD or cp >= 0x10000):
            _fail(el, f"<cp hex={hx!r}> is a character XML can hold: write it as text")

    def _inline(self, el) -> list:
        out = []
        for c in el.iterdescendants():
            if not isinstance(c.tag, str):
                continue
            if _ns(c) != NS or _local(c) not in INLINE:
                _fail(c, f"<{_label(c)}> is not allowed in <{_local(el)}>")
            name = _local(c)
            self._element(c)
            if name == "cp":
                self._cp(c)
                continue
            if name in ("ph", "sc", "ec", "cp", "em") and len(c):
                _fail(c, f"<{name}> must be empty")
            if name in ("ph", "sc", "ec", "em", "cp") and (c.text or "").strip():
                _fail(c, f"<{name}> must be empty")
            out.append(c)
        return out

    def _codes(self, els, part_ids, side, complete=True, ordered=True) -> None:
        ids: dict[str, object] = {}
        starts: dict[str, object] = {}
        ended: set[str] = set()
        for c in els:
            name = _local(c)
            ident = c.get("id")
            if name == "ec":
                iso = c.get("isolated") == "yes"
                if iso and c.get("startRef") is not None:
                    _fail(c, "an isolated <ec> has an id, not a startRef")
                if iso and ident is None:
                    _fail(c, "an isolated <ec> needs an id")
                if not iso and ident is not None:
                    _fail(c, "an <ec> with an id must be isolated=\"yes\"")
                if not iso and c.get("startRef") is None:
                    _fail(c, "an <ec> needs a startRef (or isolated=\"yes\" and an id)")
            if ident is not None:
                if ident in ids or (side == "source" and ident in part_ids):
                    _fail(c, f"id {ident!r} is not unique in the unit's {side}")
                ids[ident] = c
            if name in ("sc", "sm"):
                starts[ident] = c
            elif name in ("ec", "em") and c.get("startRef") is not None:
                ref = c.get("startRef")
                opener = "sc" if name == "ec" else "sm"
                sc = starts.get(ref)
                if sc is None or _local(sc) != opener:
                    if not complete:
                        continue
                    if not ordered and any(_local(x) == opener and x.get("id") == ref
                                           for x in els):
                        continue
                    _fail(c, f"<{name} startRef={ref!r}> has no <{opener}> before it")
                if ref in ended:
                    _fail(c, f"<{opener} id={ref!r}> is ended twice")
                ended.add(ref)
                if name == "ec":
                    if sc.get("isolated") == "yes":
                        _fail(c, f"<sc id={ref!r}> is isolated but has an <ec>")
                    for k, default in _SHARED.items():
                        if (c.get(k) or default) != (sc.get(k) or default):
                            _fail(c, f"<ec> has another {k} than its <sc>")
        for ident, sc in starts.items():
            if _local(sc) == "sc" and sc.get("isolated") != "yes" and ident not in ended \
                    and side == "source":  # a target's codes are the tag check's business
                _fail(sc, f"<sc id={ident!r}> has no <ec> in its unit (and is not isolated)")
        for c in els:
            name = _local(c)
            for k in ("dataRef", "dataRefStart", "dataRefEnd"):
                if c.get(k) is not None and c.get(k) not in self.data_ids:
                    _fail(c, f"{k}={c.get(k)!r} is no <data> of the unit's <originalData>")
            for k in ("subFlows", "subFlowsStart", "subFlowsEnd"):
                for ref in (c.get(k) or "").split():
                    if ref not in self.unit_ids:
                        _fail(c, f"{k} names {ref!r}, no unit of the file")
            if c.get("copyOf") is not None:
                if any(c.get(k) is not None for k in ("dataRef", "dataRefStart", "dataRefEnd")):
                    _fail(c, "a code with copyOf has no dataRef")
                base = ids.get(c.get("copyOf"))
                if base is None or _local(base) not in CODES:
                    _fail(c, f"copyOf={c.get('copyOf')!r} is no code of the unit")
                if base.get("canCopy") == "no":
                    _fail(c, f"copyOf={c.get('copyOf')!r} names a code with canCopy=\"no\"")
            if name == "subFs" or c.get(q("subFs", FS)) is not None:
                if c.get(q("fs", FS)) is None:
                    _fail(c, "fs:subFs needs fs:fs")

    def _comments(self, els, unit) -> None:
        for c in els:
            if _local(c) not in ("mrk", "sm") or c.get("type") != "comment":
                continue
            value, ref = c.get("value"), c.get("ref")
            if (value is None) == (ref is None):
                _fail(c, "a comment annotation has either value or ref")
            if ref is not None:
                m = re.match(r"^#(?:/?f=([^/]+)/(?:g=[^/]+/)*u=([^/]+)/)?n=([^/]+)$", ref)
                if not m or m.group(3) not in self.note_ids \
                        or (m.group(1) and m.group(2) != unit.get("id")):
                    _fail(c, f"comment ref {ref!r} is no note of the unit")

    def _reorder(self, src, trg, parts, unit) -> None:
        def key(c):
            name = _local(c)
            if name == "ec" and c.get("startRef") is not None:
                return ("ec", c.get("startRef"))
            return (name, c.get("id"))

        seqs: list[list] = []
        inseq = False
        for c in src:
            if _local(c) not in CODES:
                continue
            v = c.get("canReorder") or "yes"
            if v in ("no", "firstNo"):
                if c.get("canCopy") != "no" or c.get("canDelete") != "no":
                    _fail(c, f"canReorder={v!r} needs canCopy=\"no\" and canDelete=\"no\"")
            if v == "no" and not inseq:
                _fail(c, "canReorder=\"no\" without a canReorder=\"firstNo\" code before it")
            if v == "firstNo":
                seqs.append([key(c)])
            elif v == "no":
                seqs[-1].append(key(c))
            inseq = v in ("no", "firstNo")
        if not any(p.find(q("target")) is not None for p in parts):
            return
        tkeys = [key(c) for c in trg if _local(c) in CODES]
        tset = set(tkeys)
        for c in src:
            if _local(c) in CODES and c.get("canDelete") == "no" and key(c) not in tset:
                seg = c.getparent()
                while seg is not None and _local(seg) not in ("segment", "ignorable"):
                    seg = seg.getparent()
                if seg is not None and seg.find(q("target")) is not None:
                    _fail(c, f"code {key(c)[1]!r} has canDelete=\"no\" but is not in the target")
        if not all(p.find(q("target")) is not None for p in parts):
            return  # a partial translation: the sequences may span untranslated parts
        for seq in seqs:
            if seq[0] not in tset:
                continue
            i = tkeys.index(seq[0])
            if tkeys[i:i + len(seq)] != seq:
                _fail(unit, f"the codes from {seq[0][1]!r} (canReorder=\"firstNo\") are "
                            "reordered in the target")


# ------------------------------------------------------------------ fragment ids
def _fragment(el, ref: str) -> None:
    frag = ref.split("#", 1)[1]
    if frag.startswith("/"):
        frag = frag[1:]
    parts = frag.split("/")
    seen: set[str] = set()
    rank = {"f": 0, "g": 1, "u": 2}
    last = -1
    for i, part in enumerate(parts):
        leaf = i == len(parts) - 1
        if "=" not in part:
            if not leaf or not _nmtoken(part):
                _fail(el, f"ref {ref!r}: {part!r} is not a fragment part")
            continue
        prefix, _, ident = part.partition("=")
        if not re.match(r"^[\w.\-]+$", prefix):
            _fail(el, f"ref {ref!r}: prefix {prefix!r} is not an NMTOKEN")
        if prefix not in _FRAG_PREFIXES:
            _fail(el, f"ref {ref!r}: unknown prefix {prefix!r}")
        if prefix in seen:
            _fail(el, f"ref {ref!r}: prefix {prefix!r} twice")
        seen.add(prefix)
        if not ident:
            _fail(el, f"ref {ref!r}: {prefix}= without an id")
        r = rank.get(prefix)
        if r is None:
            if not leaf:
                _fail(el, f"ref {ref!r}: {prefix}= must be last")
        else:
            if r < last or (r == last and prefix != "g"):
                _fail(el, f"ref {ref!r}: {prefix}= is out of order")
            last = r
