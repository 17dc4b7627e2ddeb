"""A reviewer's tracked changes in XLIFF 2.0: the Change Tracking module (``ctr:``, XLIFF 2.0 section
5.6).  A unit whose target is handed over with revision tags (:mod:`engine.review.export`) gets,
first in the unit (or in the ``<ctr:changeTrack>`` it already has), for each such segment::

    <ctr:changeTrack xmlns:ctr="urn:oasis:names:tc:xliff:changetracking:2.0">
      <ctr:revisions appliesTo="target">
        <ctr:revision author="REVIEWER" datetime="2026-11-28T19:30:41Z">
          <ctr:item property="content">the target before the review</ctr:item>
        </ctr:revision>
      </ctr:revisions>
    </ctr:changeTrack>

-- the previous content, who replaced it and when -- while the ``<target>`` holds the reviewed text
(a ``ctr:item`` holds text only: the previous content's codes are left out).  A ``<target>`` has
no ``id``, so no ``ref`` is written: there is nothing to name.
"""
from __future__ import annotations

from engine.inline import tag_number

CTR = "urn:oasis:names:tc:xliff:changetracking:2.0"
REV = "verso-rev"


def previous(target) -> tuple[str, str, str] | None:
    """(the text before the review, author, date) of a target with revision tags; None without."""
    revs = {t.n: t for t in target.tags if t.attrs.get(REV)}
    if not revs:
        return None
    out, inside = [], False
    for ch in target.text:
        n = tag_number(ch)
        t = revs.get(n) if n is not None else None
        if t is None:
            if not inside and n is None:
                out.append(ch)
        elif t.attrs[REV] == "del":
            out.append(t.attrs["text"])
        else:
            inside = t.kind == "open"
    first = revs[min(revs)]
    return "".join(out), first.attrs["author"], first.attrs["date"]


def add_change_track(unit, sites, translations, sp) -> None:
    """The ``ctr:revisions`` of ``unit``'s reviewed segments (see the module doc)."""
    found = [p for p in (previous(translations[s.key].target) for s in sites if s.key in translations) if p]
    if not found:
        return
    q = f"{{{CTR}}}"
    track = unit.find(q + "changeTrack")
    new = track is None
    if new:
        track = unit.makeelement(q + "changeTrack", {}, nsmap={"ctr": CTR})
    for text, author, date in found:
        revs = track.makeelement(q + "revisions", {"appliesTo": "target"})
        rev = revs.makeelement(q + "revision", {"author": author, "datetime": date.replace("+00:00", "Z")})
        item = rev.makeelement(q + "item", {"property": "content"})
        item.text = text
        rev.append(item)
        revs.append(rev)
        track.append(revs)
    if new:
        track.tail = unit.text
        unit.insert(0, track)
        sp.prepended(unit, track)
    else:
        sp.content(track)
