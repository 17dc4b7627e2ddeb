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


def sdl_seg(unit, mid: str | None):
    """The ``<sdl:seg>`` of segment ``mid`` in ``unit``'s ``<sdl:seg-defs>``, or None."""
    if mid is None:
        return None
    defs = unit.find(f"{{{SDL_NS}}}seg-defs")
    if defs is None:
        return None
    return next((s for s in defs.findall(f"{{{SDL_NS}}}seg") if s.get("id") == mid), None)


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


def set_sdl_status(sp, seg, status: str) -> None:
    """Write ``status`` on an ``<sdl:seg>`` through the splice ``sp``, as Trados does."""
    cur = seg.get("conf")
    if not cur or SDL_STATUS.get(cur.lower(), "draft") != status:
        sp.set(seg, "conf", STATUS_SDL[status]) if STATUS_SDL[status] else sp.delete(seg, "conf")
    if seg.get("origin") == "not-translated":
        sp.set(seg, "origin", "interactive")


def set_unit_state(sp, target, unit, status: str) -> None:
    """Plain XLIFF 1.2: ``<target state>`` and, when no longer confirmed, ``approved="no"``."""
    cur = target.get("state")
    if not cur or STATE_STATUS.get(cur, "draft") != status:
        sp.set(target, "state", STATUS_STATE[status])
    if unit.get("approved") == "yes" and status != "confirmed":
        sp.set(unit, "approved", "no")
