"""XLIFF 1.x segment status in the three conventions a file may use, read and written.

SDL ``<sdl:seg conf origin>`` (Trados SDLXLIFF), memoQ ``mq:status`` on the unit, and plain
XLIFF 1.2 ``approved`` / ``<target state>``, read in that order of precedence and mapped to
Verso's ``new`` / ``draft`` / ``confirmed`` (table in :mod:`engine.formats.xliff12`).  Writing
keeps a raw value that already means the status being written.
"""
from __future__ import annotations


from engine.inline import TaggedText

SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"
MQ_STATUS = f"{{{MQ_NS}}}status"

STATE_STATUS = {
    "new": "new", "needs-translation": "new",
    "needs-adaptation": "draft", "needs-l10n": "draft", "needs-review-adaptation": "draft",
    "needs-review-l10n": "draft", "needs-review-translation": "draft",
    "translated": "confirmed", "signed-off": "confirmed", "final": "confirmed",
}
STATUS_STATE = {"new": "needs-translation", "draft": "needs-review-translation",
                "confirmed": "translated"}
SDL_STATUS = {
    "nottranslated": "new", "unspecified": "new", "draft": "draft", "translated": "confirmed",
    "approvedtranslation": "confirmed", "approvedsignoff": "confirmed",
    "rejectedtranslation": "draft", "rejectedsignoff": "draft",
}
STATUS_SDL = {"new": "", "draft": "Draft", "confirmed": "Translated"}  # "": no conf (Trados: Unspecified)
MQ_STATUSES = {
    "notstarted": "new", "manuallyconfirmed": "confirmed", "reviewer1confirmed": "confirmed",
    "reviewer2confirmed": "confirmed", "proofread": "confirmed",
}
STATUS_MQ = {"new": "NotStarted", "draft": "PartiallyEdited", "confirmed": "ManuallyConfirmed"}


_SEG_DEFS, _SEG = f"{{{SDL_NS}}}seg-defs", f"{{{SDL_NS}}}seg"
_PREV, _REP = f"{{{SDL_NS}}}prev-origin", f"{{{SDL_NS}}}rep"


def sdl_segs(unit) -> dict:
    """The ``<sdl:seg>`` of ``unit``'s ``<sdl:seg-defs>`` by id (the first of a repeated id)."""
    out: dict = {}
    for defs in unit.iterchildren(_SEG_DEFS):
        for s in defs.iterchildren(_SEG):
            out.setdefault(s.get("id"), s)
        break
    return out


def read_status(unit, t_el, seg, target: TaggedText | None) -> tuple[str, dict]:
    """(status, raw values) of one segment: its unit, the unit's ``<target>`` element,
    its ``<sdl:seg>`` (or None) and its target text (None: no target)."""
    meta: dict = {}
    state = t_el.get("state") if t_el is not None else None
    if state:
        meta["state"] = state
    if unit.get("approved"):
        meta["approved"] = unit.get("approved")
    if seg is not None and seg.get("conf"):
        meta["sdl_conf"] = seg.get("conf")
    if unit.get(MQ_STATUS):
        meta["mq_status"] = unit.get(MQ_STATUS)
    if target is None or not target.text:
        return "new", meta
    if "sdl_conf" in meta:
        return SDL_STATUS.get(meta["sdl_conf"].lower(), "draft"), meta
    if "mq_status" in meta:
        return MQ_STATUSES.get(meta["mq_status"].lower(), "draft"), meta
    if meta.get("approved") == "yes":
        return "confirmed", meta
    if state:
        return STATE_STATUS.get(state, "draft"), meta
    return "draft", meta


def variant(root) -> str:
    """``sdlxliff``, ``mqxliff`` or ``xliff``, by the namespaces the root declares."""
    nsvals = set((root.nsmap or {}).values())
    if SDL_NS in nsvals:
        return "sdlxliff"
    if MQ_NS in nsvals:
        return "mqxliff"
    return "xliff"


# What an origin is made of in an <sdl:seg> or <sdl:prev-origin> (Trados' Type_OriginInformation)
_ORIGIN_ATTRS = ("origin", "origin-system", "percent", "struct-match", "text-match")


def set_sdl_status(sp, seg, status: str, edited: bool) -> None:
    """Write ``status`` on an ``<sdl:seg>`` through the splice ``sp``, as Trados does; ``edited``:
    the translator changed the target's text (a confirmation alone keeps the origin)."""
    cur = seg.get("conf")
    if not cur or SDL_STATUS.get(cur.lower(), "draft") != status:
        sp.set(seg, "conf", STATUS_SDL[status]) if STATUS_SDL[status] else sp.delete(seg, "conf")
    origin = seg.get("origin")
    if origin == "not-translated":
        sp.set(seg, "origin", "interactive")
    elif edited and origin and origin != "interactive":
        _keep_prev_origin(sp, seg)


def _keep_prev_origin(sp, seg) -> None:
    """Studio's edit of an MT/TM segment: the segment's origin becomes ``interactive`` and what it
    was (origin attributes, ``rep``, older ``prev-origin`` nested, ``value`` metadata) moves into a
    new ``<sdl:prev-origin>``, placed where the schema's sequence (rep, prev-origin, value) puts it;
    the segment keeps its ``rep`` and ``value`` (Studio clones the origin)."""
    attrib = dict(seg.attrib)  # a dict: lxml's attrib proxy parses the name on each lookup
    prev = seg.makeelement(_PREV, {a: attrib[a] for a in _ORIGIN_ATTRS if a in attrib})
    children = list(seg)
    tags = [c.tag for c in children]
    old_prev = children[tags.index(_PREV)] if _PREV in tags else None
    if old_prev is not None:  # the new one takes its place and whitespace
        index, tail = children.index(old_prev), old_prev.tail
    else:
        index = tags.index(_REP) + 1 if _REP in tags else 0
        before = seg.text if index == 0 else children[index - 1].tail
        tail = before if index < len(children) else None
        if index == len(children) and index > 0:  # after the last child: indented as its siblings
            tail, children[index - 1].tail = children[index - 1].tail, seg.text
    for child in children:
        if child is old_prev:
            seg.remove(child)
            prev.append(child)  # the segment's older history nests one level down
        elif isinstance(child.tag, str):
            prev.append(child.__copy__())  # deep in lxml, a fifth of deepcopy's time
    for child in prev:
        child.tail = None
    seg.insert(index, prev)
    prev.tail = tail
    sp.content(seg)
    sp.set(seg, "origin", "interactive")
    for a in _ORIGIN_ATTRS[1:]:
        if a in attrib:
            sp.delete(seg, a)


def set_unit_state(sp, target, unit, status: str) -> None:
    """Plain XLIFF 1.2: ``<target state>`` and, when no longer confirmed, ``approved="no"``."""
    cur = target.get("state")
    if not cur or STATE_STATUS.get(cur, "draft") != status:
        sp.set(target, "state", STATUS_STATE[status])
    if unit.get("approved") == "yes" and status != "confirmed":
        sp.set(unit, "approved", "no")
