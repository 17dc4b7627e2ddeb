"""Validity of an XLIFF 2.0 / 2.1 document: the core structure and constraints.

:func:`check` refuses (one-line :class:`~engine.errors.FormatError` naming the
file and the line) a parsed ``<xliff>`` tree that breaks the XLIFF 2.0 core
schema or one of the specification's processing constraints, so a broken
file is refused at import instead of being read as something it is not.

The OASIS schemas are not available offline (no public copy was found to
vendor), so the checks are written by hand with lxml over the parsed tree,
from the XLIFF 2.0 specification:

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
* **Modules**: :mod:`engine.formats.xliff20_modules` (their elements, attributes
  and constraints); the tables of the core are in :mod:`engine.formats.xliff20_rules`,
  the inline code constraints in :mod:`engine.formats.xliff20_codes`.

Measured on the OASIS XLIFF 2.0 conformance suite (benchmarks/RESULTS.md, "Issue 36
item 6"): every file of ``invalid/`` refused, every file of ``valid/`` accepted.

What is not checked: the content of extension elements of unknown namespaces.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError
from engine.formats import xliff20_codes, xliff20_modules
from engine.formats.xliff20_rules import (
    _HEX, _SPACE, CONTENT, INLINE, MDA, NS, XML, XML_LANG, XML_SPACE, _check_attrs, _elements,
    _fail, _fragment, _Invalid, _label, _lang_eq, _local, _ns, _sequence, q,
)


def check(path: Path, root) -> None:
    """Refuse ``root`` (an XLIFF 2 ``<xliff>`` element) when it is not valid."""
    try:
        _Checker(root).run()
    except _Invalid as e:
        line = getattr(e.el, "sourceline", None)
        raise FormatError(path, f"not valid XLIFF 2.0: {e.message}",
                          f"line {line}" if line else None) from None


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
        xliff20_modules.attributes(el, name)
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
        if _ns(el) in xliff20_modules.MODULES:
            xliff20_modules.check(self, el, el.getparent())
        for d in el.iter():
            if not isinstance(d.tag, str):
                continue
            if _ns(d) == NS:
                continue
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
        xliff20_codes.codes(self, src, part_ids, "source")
        tgt_els = [t for _, t in sorted(orders.items())]
        trg = [c for t in tgt_els for c in self._inline(t)]
        # (a target's <sm> may wait for its <em> in a target not written yet, as the writer leaves
        # a marker across segments translated one by one)
        xliff20_codes.codes(self, trg, part_ids, "target", complete=False)
        xliff20_codes.correspond(src, trg)
        xliff20_codes.comments(self, src + trg, u)
        xliff20_codes.reorder([p.find(q("source")) for p in parts], tgt_els, parts, u)

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
