"""A TM unit's row: the metadata columns a unit's meta fills, merged on a duplicate, read back as a
:class:`TMEntry` and written out for TMX (every backend)."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from engine.inline import TaggedText
from engine.tm.model import TMEntry


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


_COLUMN_KEYS = {"origin", "creationdate", "creationdate_iso", "changedate", "changedate_iso",
                "creationid", "changeid", "usagecount", "lastusagedate", "lastusagedate_iso"}


def _meta_columns(meta: dict) -> dict:
    now = _now()
    created = meta.get("creationdate_iso") or meta.get("created") or now
    try:
        usage = int(meta.get("usagecount") or meta.get("usage_count") or 0)
    except (TypeError, ValueError):
        usage = 0
    rest = {k: v for k, v in meta.items()
            if k not in _COLUMN_KEYS and k not in ("created", "changed", "creator", "changer",
                                                   "usage_count", "last_used")}
    return {
        "origin": str(meta.get("origin") or ""), "created": created,
        "changed": meta.get("changedate_iso") or meta.get("changed") or created,
        "creator": str(meta.get("creationid") or meta.get("creator") or ""),
        "changer": str(meta.get("changeid") or meta.get("changer") or ""),
        "usage_count": usage,
        "last_used": meta.get("lastusagedate_iso") or meta.get("last_used"),
        "meta": rest,
    }


def _merge_meta(old: dict, new: dict) -> dict:
    out = dict(old)
    for k, v in new.items():
        if k in ("props", "notes") and isinstance(v, list):
            seen = list(out.get(k) or [])
            for item in v:
                if item not in seen:
                    seen.append(item)
            out[k] = seen
        else:
            out[k] = v
    return out


def _entry(row) -> TMEntry:
    (uid, s, stags, t, ttags, sl, tl, origin, created, changed, creator, changer, usage,
     last_used, meta) = row
    m = {"origin": origin or "", "created": created, "changed": changed,
         "creator": creator or "", "changer": changer or "", "usage_count": usage or 0,
         "last_used": last_used}
    m.update(json.loads(meta or "{}"))
    return TMEntry(uid, TaggedText.from_parts(s, stags), TaggedText.from_parts(t, ttags), sl, tl, m)


def _export_meta(e: TMEntry) -> dict:
    m = {k: v for k, v in e.meta.items()
         if k not in ("origin", "created", "changed", "creator", "changer", "usage_count",
                      "last_used")}
    m["creationdate_iso"] = e.meta.get("created")
    m["changedate_iso"] = e.meta.get("changed")
    if e.meta.get("creator"):
        m["creationid"] = e.meta["creator"]
    if e.meta.get("changer"):
        m["changeid"] = e.meta["changer"]
    if e.meta.get("usage_count"):
        m["usagecount"] = e.meta["usage_count"]
    if e.meta.get("last_used"):
        m["lastusagedate_iso"] = e.meta["last_used"]
    if e.meta.get("origin"):
        m["origin"] = e.meta["origin"]
    return m
