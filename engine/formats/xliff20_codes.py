"""XLIFF 2.0 inline codes: the constraints of specification section 4.7 on a unit.

A unit's source codes (and its targets' codes, taken in ``order``) form one sequence:
``<sc id=X>`` ... ``<ec startRef=X>`` pair in it, start before end, unless the half
whose partner is outside the unit says ``isolated="yes"`` (an ``<ec>`` then has an
``id``, not a ``startRef``); an ``<ec>`` gives the ``_SHARED`` attributes as its
``<sc>`` does; ``dataRef*`` name ``<data>`` of the unit, ``subFlows*`` units of the
file, ``copyOf`` a copyable code of the same side; a ``canReorder="firstNo"`` code
and the ``"no"`` codes after it stay together and in order in the target.
"""
from __future__ import annotations

import re

from lxml import etree

from engine.formats.xliff20_rules import _SHARED, CODES, _fail, _local, q


def codes(chk, els, part_ids, side: str, complete: bool = True) -> None:
    """Ids, pairing and references of the inline codes ``els`` of a unit's source or
    target (``chk``: the unit's ``data_ids``, the file's ``unit_ids``; ``complete``: every
    part has this side, so a marker's end is not in a part still untranslated)."""
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
        if _local(sc) == "sc" and sc.get("isolated") != "yes" and ident not in ended:
            _fail(sc, f"<sc id={ident!r}> has no <ec> in its unit (and is not isolated)")
        if _local(sc) == "sm" and complete and ident not in ended:
            # an <sm> has no isolated form: its <em> is in the same unit (the OASIS TC's answer
            # on the XLIFF2 object model's issue 7, a lone <sm> wrongly accepted)
            _fail(sc, f"<sm id={ident!r}> has no <em> in its unit")
    for c in els:
        name = _local(c)
        for k in ("dataRef", "dataRefStart", "dataRefEnd"):
            if c.get(k) is not None and c.get(k) not in chk.data_ids:
                _fail(c, f"{k}={c.get(k)!r} is no <data> of the unit's <originalData>")
        for k in ("subFlows", "subFlowsStart", "subFlowsEnd"):
            for ref in (c.get(k) or "").split():
                if ref not in chk.unit_ids:
                    _fail(c, f"{k} names {ref!r}, no unit of the file")
        if c.get("copyOf") is not None:
            if any(c.get(k) is not None for k in ("dataRef", "dataRefStart", "dataRefEnd")):
                _fail(c, "a code with copyOf has no dataRef")
            base = ids.get(c.get("copyOf"))
            if base is None or _local(base) not in CODES:
                _fail(c, f"copyOf={c.get('copyOf')!r} is no code of the unit")
            if base.get("canCopy") == "no":
                _fail(c, f"copyOf={c.get('copyOf')!r} names a code with canCopy=\"no\"")


def comments(chk, els, unit) -> None:
    """A comment annotation has ``value`` or a ``ref`` to a note of its unit."""
    for c in els:
        if _local(c) not in ("mrk", "sm") or c.get("type") != "comment":
            continue
        value, ref = c.get("value"), c.get("ref")
        if (value is None) == (ref is None):
            _fail(c, "a comment annotation has either value or ref")
        if ref is not None:
            m = re.match(r"^#(?:/?f=([^/]+)/(?:g=[^/]+/)*u=([^/]+)/)?n=([^/]+)$", ref)
            if not m or m.group(3) not in chk.note_ids \
                    or (m.group(1) and m.group(2) != unit.get("id")):
                _fail(c, f"comment ref {ref!r} is no note of the unit")


def _events(container) -> list[tuple[object, tuple[str, str]]]:
    """The codes of ``container`` in order, a ``<pc>`` as its start and its end
    (``("/pc", id)``): a sequence that moves a ``<pc>``'s end is reordered."""
    out = []
    for ev, el in etree.iterwalk(container, events=("start", "end")):
        if el is container or not isinstance(el.tag, str) or _local(el) not in CODES:
            continue
        name = _local(el)
        if ev == "start":
            ref = el.get("startRef") if name == "ec" else None
            out.append((el, ("ec", ref) if ref is not None else (name, el.get("id"))))
        elif name == "pc":
            out.append((el, ("/pc", el.get("id"))))
    return out


def reorder(sources, targets, parts, unit) -> None:
    """``canReorder`` sequences kept together and in order in the target (``targets`` in
    their ``order``), ``canDelete="no"`` codes present in a segment's target."""
    seqs: list[list] = []
    inseq = False
    src = [e for s in sources for e in _events(s)]
    for el, key in src:
        v = el.get("canReorder") or "yes"
        start = key[0] != "/pc"
        if start and v in ("no", "firstNo") and (el.get("canCopy") != "no"
                                                  or el.get("canDelete") != "no"):
            _fail(el, f"canReorder={v!r} needs canCopy=\"no\" and canDelete=\"no\"")
        if start and v == "no" and not inseq:
            _fail(el, "canReorder=\"no\" without a canReorder=\"firstNo\" code before it")
        if start and v == "firstNo":
            seqs.append([key])
        elif v in ("no", "firstNo") and inseq:
            seqs[-1].append(key)
        inseq = v in ("no", "firstNo") and (start or inseq)
    if not targets:
        return
    tkeys = [k for t in targets for _, k in _events(t)]
    tset = set(tkeys)
    for el, key in src:
        if key[0] != "/pc" and el.get("canDelete") == "no" and key not in tset:
            seg = el.getparent()
            while seg is not None and _local(seg) not in ("segment", "ignorable"):
                seg = seg.getparent()
            if seg is not None and seg.find(q("target")) is not None:
                _fail(el, f"code {key[1]!r} has canDelete=\"no\" but is not in the target")
    if len(targets) < len(parts):
        return  # a partial translation: a sequence may go on in an untranslated part
    for seq in seqs:
        if seq[0] not in tset:
            continue
        i = tkeys.index(seq[0])
        if tkeys[i:i + len(seq)] != seq:
            _fail(unit, f"the codes from {seq[0][1]!r} (canReorder=\"firstNo\") are "
                        "reordered in the target")


#: what a code stands for, by id (spec 4.7.1: a target code with a source code's id is that
#: code): a <pc> is both the start and the end of its id, <sc>/<ec> one each (an <ec> by its
#: startRef, or its id when isolated), likewise <mrk> and <sm>/<em>
_ROLES = {"ph": ("ph",), "cp": ("ph",), "pc": ("start", "end"), "sc": ("start",), "ec": ("end",),
          "mrk": ("mstart", "mend"), "sm": ("mstart",), "em": ("mend",)}


def _roles(els) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for c in els:
        name = _local(c)
        ident = c.get("startRef") if name in ("ec", "em") and c.get("startRef") is not None \
            else c.get("id")
        if ident is not None and name in _ROLES:
            out.setdefault(ident, set()).update(_ROLES[name])
    return out


def correspond(src_els, trg_els) -> None:
    """A target code with the id of a source code is the same kind of code (a ``<ph>`` for
    a ``<ph>``, a start or end for a ``<pc>``/``<sc>``/``<ec>``): the check Okapi's XLIFF 2
    toolkit settled on (tag type only; data and subType may change with the translation)."""
    src = _roles(src_els)
    for c in trg_els:
        name = _local(c)
        ident = c.get("startRef") if name in ("ec", "em") and c.get("startRef") is not None \
            else c.get("id")
        if ident in src and name in _ROLES and not set(_ROLES[name]) <= src[ident]:
            _fail(c, f"<{name}> {ident!r} of the target is another kind of code than the "
                     f"source's {ident!r}")
