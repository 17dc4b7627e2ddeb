"""XLIFF 2.0 modules: their elements, attributes and constraints (specification section 5).

``SCHEMA[(namespace, name)] = (attributes: {name: value check}, required, extension
attributes allowed, children)`` where ``children`` is a list of ``(names, min, max)``
slots in order (a name ``"{ns}local"``, ``EXT`` an element of another namespace) or
``None`` for text only.  Transcribed from the module definitions of XLIFF 2.0
(Translation Candidates ``mtc``, Glossary ``gls``, Format Style ``fs``, Metadata
``mda``, Resource Data ``res``, Change Tracking ``ctr``, Size and Length Restriction
``slr``, Validation ``val``); the OASIS module XSDs are not available offline.

Constraints checked beyond the tables (section numbers of the specification):

* ``mtc``: ``<match>`` ids unique in ``<matches>`` (5.1.6.1), ``subType`` only with
  ``type`` (5.1.6.8), ``ref`` a fragment naming a segment or inline element of the
  enclosing unit (5.1.6.5), ``<matches>`` only in a ``<unit>``.
* ``gls``: ``<glossEntry>`` ids and ``<translation>`` ids unique in the glossary
  (5.2.5.1), a ``<glossEntry>`` with a ``<translation>`` or a ``<definition>``.
* ``fs``: ``fs:fs`` an HTML element name, ``fs:subFs`` only with ``fs:fs``, neither
  on an ``<ec>`` that is not isolated (5.3.5).
* ``mda``: ids of ``<metadata>``/``<metaGroup>`` unique in their ``<metadata>``.
* ``res``: ``<resourceItem>``/``<resourceItemRef>`` ids unique in the enclosing
  file or unit (5.5.4.3-4), ``href`` on ``<source>``/``<target>`` if and only if
  they are empty, their ``xml:lang`` the document's ``srcLang``/``trgLang`` (5.5.4.5-6).
* ``ctr``: ``ref`` of ``<revisions>`` the id of an ``appliesTo`` element of the
  enclosing element, required when there are several (5.6.4.3, 5.6.5.5); an
  ``<item property>`` ``content`` or an attribute of that element, once per
  ``<revision>`` (5.6.5.6).
* ``slr``: under a standard profile (``xliff:*``) or none declared,
  ``sizeRestriction``/``storageRestriction`` ``*``, ``n``, ``n,m`` or ``n,*``; under a
  standard profile ``equivStorage``/``sizeInfo`` integers -- under none declared a
  number that is not an integer is refused, other text is taken as profile data (the suite's
  ``core/valid/withModulesAttributesInEc.xlf`` has ``sizeInfo="some info"``,
  ``modules/invalid/Bad-slr_sizeInfo-not-integer.xlf`` is refused for ``25.5``); ``sizeInfo`` xor
  ``sizeInfoRef``; none of them on an ``<ec>`` that is not isolated; ``sizeInfoRef``
  naming an element inside an ``<slr:data>`` beside the element or an ancestor (5.7).
* ``val``: a ``<rule>`` has exactly one of ``isPresent``, ``isNotPresent``,
  ``startsWith``, ``endsWith`` or custom (other-namespace) attributes;
  ``existsInSource`` only with ``isPresent``/``startsWith``/``endsWith`` (5.8.5).

Not checked: the ITS module of XLIFF 2.1 (the conformance suite has no case of it).
"""
from __future__ import annotations

import re

from lxml import etree

from engine.formats.xliff20_rules import (
    CTR, EXT, FS, GLS, MDA, MTC, NS, RES, SLR, VAL, XML, XML_LANG, _HTML, _any, _elements,
    _enum, _fail, _label, _lang, _lang_eq, _local, _nmtoken, _ns, _positive, _prefixed,
    _sequence, _yes_no, q,
)

MODULES = (FS, SLR, MTC, GLS, MDA, RES, CTR, VAL)


def _decimal100(v):
    return bool(re.match(r"^[+-]?(\d+(\.\d*)?|\.\d+)$", v)) and 0 <= float(v) <= 100


def _int(v):
    return bool(re.match(r"^\d+$", v))


_RESTRICTION = re.compile(r"^(\*|\d+|\d+,(\d+|\*))$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)$")
_NORM = _enum("none", "nfc", "nfd")


def _c(ns, *names):
    return tuple(q(n, ns) for n in names)


SCHEMA = {
    (MDA, "metadata"): ({"id": _nmtoken}, (), False, [(_c(MDA, "metaGroup"), 1, None)]),
    (MDA, "metaGroup"): ({"id": _nmtoken, "category": _any,
                          "appliesTo": _enum("source", "target", "ignorable")}, (), False,
                         [(_c(MDA, "meta", "metaGroup"), 1, None)]),
    (MDA, "meta"): ({"type": _any}, ("type",), False, None),
    (MTC, "matches"): ({}, (), False, [(_c(MTC, "match"), 1, None)]),
    (MTC, "match"): ({"id": _nmtoken, "matchQuality": _decimal100,
                      "matchSuitability": _decimal100, "origin": _any, "ref": _any,
                      "reference": _yes_no, "similarity": _decimal100, "subType": _prefixed,
                      "type": _enum("am", "mt", "icm", "idm", "tb", "tm", "other")},
                     ("ref",), True,
                     [(_c(MDA, "metadata"), 0, 1), (_c(NS, "originalData"), 0, 1),
                      (_c(NS, "source"), 1, 1), (_c(NS, "target"), 1, 1), ((EXT,), 0, None)]),
    (GLS, "glossary"): ({}, (), False, [(_c(GLS, "glossEntry"), 1, None)]),
    (GLS, "glossEntry"): ({"id": _nmtoken, "ref": _any}, (), True,
                          [(_c(GLS, "term"), 1, 1), (_c(GLS, "translation"), 0, None),
                           (_c(GLS, "definition"), 0, 1), ((EXT,), 0, None)]),
    (GLS, "term"): ({"source": _any}, (), True, None),
    (GLS, "translation"): ({"id": _nmtoken, "ref": _any, "source": _any}, (), True, None),
    (GLS, "definition"): ({"source": _any}, (), True, None),
    (RES, "resourceData"): ({"id": _nmtoken}, (), False,
                            [(_c(RES, "resourceItemRef"), 0, None),
                             (_c(RES, "resourceItem"), 0, None)]),
    (RES, "resourceItemRef"): ({"id": _nmtoken, "ref": _nmtoken}, ("ref",), True, []),
    (RES, "resourceItem"): ({"id": _nmtoken, "mimeType": _any, "context": _yes_no}, (), True,
                            [(_c(RES, "source"), 0, 1), (_c(RES, "target"), 0, 1),
                             (_c(RES, "reference"), 0, None)]),
    (RES, "source"): ({"href": _any, XML_LANG: _lang}, (), True, [((EXT,), 0, None)]),
    (RES, "target"): ({"href": _any, XML_LANG: _lang}, (), True, [((EXT,), 0, None)]),
    (RES, "reference"): ({"href": _any, XML_LANG: _lang}, ("href",), True, []),
    (CTR, "changeTrack"): ({}, (), False, [(_c(CTR, "revisions"), 1, None)]),
    (CTR, "revisions"): ({"appliesTo": _any, "ref": _nmtoken, "currentVersion": _nmtoken},
                         ("appliesTo",), True, [(_c(CTR, "revision"), 1, None)]),
    (CTR, "revision"): ({"author": _any, "datetime": _any, "version": _nmtoken}, (), True,
                        [(_c(CTR, "item"), 1, None)]),
    (CTR, "item"): ({"property": _any}, ("property",), True, None),
    (SLR, "profiles"): ({"generalProfile": _any, "storageProfile": _any}, (), False,
                        [(_c(SLR, "normalization"), 0, 1), ((EXT,), 0, None)]),
    (SLR, "normalization"): ({"general": _NORM, "storage": _NORM}, (), False, []),
    (SLR, "data"): ({"profile": _any}, ("profile",), False, [((EXT,), 0, None)]),
    (VAL, "validation"): ({}, (), False, [(_c(VAL, "rule"), 1, None)]),
    (VAL, "rule"): ({"isPresent": _any, "occurs": _positive, "isNotPresent": _any,
                     "startsWith": _any, "endsWith": _any, "existsInSource": _yes_no,
                     "caseSensitive": _yes_no, "normalization": _NORM, "disabled": _yes_no},
                    (), True, []),
}
# where a module's top element may be (the others: file, group or unit)
_ONLY_IN_UNIT = {(MTC, "matches"), (GLS, "glossary")}
# attributes a module defines on core elements
_MODULE_ATTRS = {FS: {"fs", "subFs"},
                 SLR: {"storageRestriction", "sizeRestriction", "equivStorage", "sizeInfo",
                       "sizeInfoRef"}}
_RULES = ("isPresent", "isNotPresent", "startsWith", "endsWith")


# ------------------------------------------------------------------ attributes
def attributes(el, name: str) -> None:
    """The ``fs:*`` and ``slr:*`` attributes of ``el`` (any element)."""
    got = {etree.QName(k).localname: v for k, v in el.attrib.items()
           if k.startswith("{") and etree.QName(k).namespace in (FS, SLR)}
    for k in el.attrib:
        ns = etree.QName(k).namespace if k.startswith("{") else None
        if ns in _MODULE_ATTRS and etree.QName(k).localname not in _MODULE_ATTRS[ns]:
            _fail(el, f"<{name}> has an unknown module attribute {etree.QName(k).localname!r}")
    if not got:
        return
    loose_ec = name == "ec" and _ns(el) == NS and el.get("isolated") != "yes"
    for k, v in got.items():
        if loose_ec and k != "sizeRestriction" and k != "storageRestriction":
            _fail(el, f"{k} on an <ec> that is not isolated (it belongs on the <sc>)")
        profile = _profile(el, "storageProfile" if k in ("storageRestriction", "equivStorage")
                           else "generalProfile")
        standard = profile.startswith("xliff:")
        if k in ("sizeRestriction", "storageRestriction") and (standard or not profile) \
                and not _RESTRICTION.match(v):
            _fail(el, f"slr:{k}={v!r} is not *, n, n,m or n,*")
        if k in ("equivStorage", "sizeInfo") and not _int(v) and (standard or _NUMBER.match(v)):
            _fail(el, f"slr:{k}={v!r} is not an integer")
    if "fs" in got and got["fs"] not in _HTML:
        _fail(el, f"<{name}> fs:fs={got['fs']!r} is not an HTML element")
    if "subFs" in got and "fs" not in got:
        _fail(el, "fs:subFs needs fs:fs")
    if "sizeInfo" in got and "sizeInfoRef" in got:
        _fail(el, "slr:sizeInfo and slr:sizeInfoRef together")
    if "sizeInfoRef" in got and not _size_data(el, got["sizeInfoRef"]):
        _fail(el, f"slr:sizeInfoRef={got['sizeInfoRef']!r} names nothing in an <slr:data> "
                  "beside the element or an ancestor")


def _profile(el, attr: str) -> str:
    """The profile the enclosing file's ``<slr:profiles>`` names ("" when none)."""
    node = el
    while node is not None and not (node.tag == q("file") or node.getparent() is None):
        node = node.getparent()
    prof = node.find(q("profiles", SLR)) if node is not None else None
    return (prof.get(attr) if prof is not None else None) or ""


def _size_data(el, ident: str) -> bool:
    node = el
    while node is not None and node.getparent() is not None:
        for sib in node.getparent():
            if isinstance(sib.tag, str) and sib.tag == q("data", SLR):
                if any(d.get("id") == ident for d in sib.iter() if isinstance(d.tag, str)):
                    return True
        node = node.getparent()
    return False


# ------------------------------------------------------------------ elements
def check(chk, top, parent) -> None:
    """``top``, an element of a module namespace among the children of ``parent`` (a
    ``file``, ``group`` or ``unit``): its tree against ``SCHEMA`` and the module's
    constraints (``chk``: the document's ``src_lang``/``trg_lang``)."""
    key = (_ns(top), _local(top))
    if key in _ONLY_IN_UNIT and _local(parent) != "unit":
        _fail(top, f"<{_label(top)}> belongs in a <unit>")
    _tree(top)
    {MTC: _mtc, GLS: _gls, MDA: _mda, RES: _res, CTR: _ctr, VAL: _val}.get(
        key[0], lambda *a: None)(chk, top, parent)


def _tree(top) -> None:
    for el in top.iter(etree.Element):
        ns = _ns(el)
        if ns not in MODULES:
            continue
        spec = SCHEMA.get((ns, _local(el)))
        if spec is None:
            _fail(el, f"<{_label(el)}> is no element of its module")
        allowed, required, ext, children = spec
        for k in el.attrib:
            kns = etree.QName(k).namespace if k.startswith("{") else None
            if k in allowed:
                if not allowed[k](el.get(k)):
                    _fail(el, f"<{_label(el)}> {_attr(k)}={el.get(k)!r} is not an allowed value")
            elif kns is None or kns == ns or kns == XML or (kns not in (FS, SLR) and not ext):
                _fail(el, f"<{_label(el)}> does not allow the attribute {_attr(k)!r}")
        for k in required:
            if el.get(k) is None:
                _fail(el, f"<{_label(el)}> has no {k!r} attribute")
        if children is None:
            for c in _elements(el):
                _fail(c, f"<{_label(el)}> holds text only, not <{_label(c)}>")
            continue
        named = {n for names, _, _ in children for n in names}
        _sequence(el, children, name_of=lambda c, own=ns, named=named:
                  c.tag if c.tag in named or _ns(c) in (own, NS) else EXT)
        if ns != RES and ((el.text or "").strip() or any((c.tail or "").strip()
                                                         for c in _elements(el))):
            _fail(el, f"<{_label(el)}> holds text")


def _attr(k: str) -> str:
    return "xml:lang" if k == XML_LANG else etree.QName(k).localname


def _unique(els, what: str) -> None:
    seen: set[str] = set()
    for el in els:
        ident = el.get("id")
        if ident is None:
            continue
        if ident in seen:
            _fail(el, f"{what} id {ident!r} is not unique")
        seen.add(ident)


# ------------------------------------------------------------------ constraints
def _mtc(chk, top, unit) -> None:
    matches = [m for m in top if isinstance(m.tag, str) and m.tag == q("match", MTC)]
    _unique(matches, "<mtc:match>")
    ids = {p.get("id") for p in unit.iter(q("segment"), q("ignorable"))} | {
        c.get("id") for s in unit.iter(q("source")) for c in s.iter() if c is not s}
    tids = {c.get("id") for t in unit.iter(q("target")) for c in t.iter() if c is not t}
    for m in matches:
        if m.get("subType") is not None and m.get("type") is None:
            _fail(m, "<mtc:match> has subType without type")
        ref = m.get("ref")
        r = re.match(r"^#(?:/?f=[^/]+/(?:g=[^/]+/)*u=([^/]+)/)?(t=)?([^/=]+)$", ref)
        if not r or (r.group(1) and r.group(1) != unit.get("id")) \
                or r.group(3) not in (tids if r.group(2) else ids - {None}):
            _fail(m, f"<mtc:match ref={ref!r}> names no segment or code of its unit")


def _gls(chk, top, parent) -> None:
    entries = [e for e in top if isinstance(e.tag, str) and e.tag == q("glossEntry", GLS)]
    _unique(entries, "<gls:glossEntry>")
    _unique(top.iter(q("translation", GLS)), "<gls:translation>")
    for e in entries:
        if e.find(q("translation", GLS)) is None and e.find(q("definition", GLS)) is None:
            _fail(e, "<gls:glossEntry> has neither a <translation> nor a <definition>")


def _mda(chk, top, parent) -> None:
    _unique([top, *top.iter(q("metaGroup", MDA))], "<mda:metadata>/<mda:metaGroup>")


def _res(chk, top, parent) -> None:
    items = [i for d in parent if isinstance(d.tag, str) and d.tag == q("resourceData", RES)
             for i in d if isinstance(i.tag, str)]
    _unique(items, "<res:resourceItem>/<res:resourceItemRef>")
    if not any(isinstance(c.tag, str) for c in top):
        _fail(top, "<res:resourceData> has no <resourceItem> or <resourceItemRef>")
    for side, lang, attr in (("source", chk.src_lang, "srcLang"),
                             ("target", chk.trg_lang, "trgLang")):
        for el in top.iter(q(side, RES)):
            empty = not (el.text or "").strip() and not len(_elements(el))
            if (el.get("href") is not None) != empty:
                _fail(el, f"<res:{side}> has href if and only if it is empty")
            given = el.get(XML_LANG)
            if given is not None and (lang is None or not _lang_eq(given, lang)):
                _fail(el, f"<res:{side}> is in xml:lang {given!r}, not the {attr} {lang!r}")


def _ctr(chk, top, parent) -> None:
    for revs in top.iter(q("revisions", CTR)):
        name = revs.get("appliesTo")
        cands = [e for e in parent.iter(q(name)) if not _inside(e, top)]
        ref = revs.get("ref")
        if ref is not None:
            found = [e for e in cands if e.get("id") == ref]
            if len(found) != 1:
                _fail(revs, f"<ctr:revisions ref={ref!r}> names no <{name}> of the "
                            f"enclosing <{_local(parent)}>")
            target = found[0]
        elif len([e for e in cands if e.get("id") is not None]) > 1:
            _fail(revs, f"<ctr:revisions appliesTo={name!r}> needs a ref: there are "
                        f"{len(cands)} <{name}>")
        else:
            target = cands[0] if len(cands) == 1 else None
        for rev in revs.iter(q("revision", CTR)):
            seen: set[str] = set()
            for item in rev.iter(q("item", CTR)):
                prop = item.get("property")
                if prop in seen:
                    _fail(item, f"<ctr:item property={prop!r}> twice in its revision")
                seen.add(prop)
                if prop != "content" and target is not None and target.get(prop) is None:
                    _fail(item, f"<ctr:item property={prop!r}> is neither content nor an "
                                f"attribute of the <{name}>")


def _inside(el, top) -> bool:
    while el is not None:
        if el is top:
            return True
        el = el.getparent()
    return False


def _val(chk, top, parent) -> None:
    for rule in top.iter(q("rule", VAL)):
        kinds = [k for k in _RULES if rule.get(k) is not None]
        if any(k.startswith("{") and etree.QName(k).namespace not in (FS, SLR)
               for k in rule.attrib):
            kinds.append("custom")
        if len(kinds) != 1:
            _fail(rule, "<val:rule> needs exactly one of isPresent, isNotPresent, startsWith, "
                        f"endsWith or a custom attribute, not {len(kinds)}")
        if rule.get("existsInSource") is not None and kinds[0] not in (
                "isPresent", "startsWith", "endsWith"):
            _fail(rule, "existsInSource goes with isPresent, startsWith or endsWith")
