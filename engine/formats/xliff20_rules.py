"""The XLIFF 2.0 core schema as tables, and the helpers the validity checks share.

``ATTRS[name] = (allowed: {attribute: value check}, required, extension attributes allowed)``
``CONTENT[name] = [(child names, min, max)]`` -- the children in order, ``max`` None for
unbounded, ``EXT`` an element of another namespace; both transcribe the element
definitions of the XLIFF 2.0 specification, section 4 (the OASIS XSD is not
available offline, so they are written out here rather than loaded).
"""
from __future__ import annotations

import re

from lxml import etree

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

_MODULE_NAMESPACES = (FS, SLR, MTC, GLS, MDA, RES, CTR, VAL)
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
    "unit": [((EXT,), 0, None), (("notes",), 0, 1), (("originalData",), 0, 1),
             (("segment", "ignorable"), 1, None)],
    "notes": [(("note",), 1, None)],
    "originalData": [(("data",), 1, None)],
    "segment": [(("source",), 1, 1), (("target",), 0, 1)],
    "ignorable": [(("source",), 1, 1), (("target",), 0, 1)],
}


def _core_name(child) -> str:
    return _local(child) if _ns(child) == NS else EXT


def _slot_label(name: str) -> str:
    return etree.QName(name).localname if name.startswith("{") else name


def _sequence(el, slots, name_of=_core_name) -> None:
    """``el``'s element children against ``slots``; ``name_of(child)`` is the name the
    slots use for it."""
    i = 0
    counts = [0] * len(slots)
    first: list = [None] * len(slots)  # the first child in each slot
    for child in _elements(el):
        name = name_of(child)
        if name not in slots[min(i, len(slots) - 1)][0]:
            k = next((k for k in range(min(i, len(slots))) if name in slots[k][0]), None)
            if k is not None:
                later = next(f for f in first[k + 1:] if f is not None)
                _fail(child, f"<{_label(child)}> is out of place in <{_label(el)}>: it "
                             f"belongs before <{_label(later)}>")
        while i < len(slots) and name not in slots[i][0]:
            if counts[i] < slots[i][1]:
                _fail(child, f"<{_label(el)}> needs <{_slot_label(slots[i][0][0])}> before "
                             f"<{_label(child)}>")
            i += 1
        if i == len(slots):
            what = "an extension element" if name == EXT else "an element"
            _fail(child, f"<{_label(child)}> is not allowed here in <{_label(el)}> ({what} "
                         "out of place)")
        counts[i] += 1
        first[i] = first[i] if first[i] is not None else child
        if slots[i][2] is not None and counts[i] > slots[i][2]:
            _fail(child, f"<{_label(el)}> has more than {slots[i][2]} <{_label(child)}>")
    for j in range(i, len(slots)):
        if counts[j] < slots[j][1]:
            _fail(el, f"<{_label(el)}> has no <{_slot_label(slots[j][0][0])}>")


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
            if ns in (FS, SLR):
                continue  # checked with the modules (xliff20_modules.attributes)
            if ns is None or ns == NS or not ext:
                _fail(el, f"<{name}> does not allow the attribute {_attr_label(key)!r}")
            if ns == XML and local == "lang" and not _lang(value):
                _fail(el, f"xml:lang={value!r} is not a well-formed language tag")
            if ns in _MODULE_NAMESPACES:
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
