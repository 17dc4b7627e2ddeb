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

from xml.sax.saxutils import escape

from engine.inline import Tag, TaggedText, tag_char, tag_number

CTR = "urn:oasis:names:tc:xliff:changetracking:2.0"
NS = "urn:oasis:names:tc:xliff:document:2.0"
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


def received(unit, target):
    """``target`` (read from a unit of one segment) with the unit's Change Tracking shown as received
    tracked changes: the difference from the previous content of its latest ``ctr:revisions
    appliesTo="target"`` as a deletion code (label ``deleted``, the deleted text) and insertion pairs
    (label ``inserted``), as SDL's and memoQ's are read (:mod:`engine.formats.xliff12`); editing the
    segment accepts them.  Without change tracking, or in a unit of several segments (a ``<target>``
    has no ``id`` to say which one changed), ``target`` as it is."""
    from engine.review.diff import diff  # stdlib only: no cycle, no torch

    track = unit.find(f"{{{CTR}}}changeTrack")
    if target is None or not target.text or track is None or len(unit.findall(f"{{{NS}}}segment")) != 1:
        return target
    revs = [r for r in track.findall(f"{{{CTR}}}revisions") if r.get("appliesTo") == "target"]
    items = [(rev, it) for rev in (revs[-1].findall(f"{{{CTR}}}revision") if revs else ())
             if rev.get("version") is None or rev.get("version") != revs[-1].get("currentVersion")
             for it in rev.findall(f"{{{CTR}}}item") if it.get("property") == "content"]
    if not items:
        return target
    rev, item = items[-1]
    who = {"author": rev.get("author", ""), "date": rev.get("datetime", "")}
    tags, out = list(target.tags), []
    n = max((t.n for t in tags), default=0)
    for op in diff(item.text or "", target.text):
        if op.kind == "equal":
            out.append(op.text)
            continue
        text = "".join(ch for ch in op.text if tag_number(ch) is None)
        if op.kind == "delete":
            if text:
                n += 1
                tags.append(Tag(n, "ph", escape(text), "deleted", attrs={"element": "mrk", "mtype": "x-ctr", **who}))
                out.append(tag_char(n))
            continue
        if not text:  # the target's own codes (the previous content holds text only)
            out.append(op.text)
            continue
        pair = f"ctr{n + 1}"
        tags += [Tag(n + 1, "open", "", "inserted", pair, {"element": "mrk", "mtype": "x-ctr", **who}),
                 Tag(n + 2, "close", "", "inserted", pair, {"element": "mrk", "mtype": "x-ctr", **who})]
        out.append(tag_char(n + 1) + op.text + tag_char(n + 2))
        n += 2
    return TaggedText("".join(out), tuple(tags))
