"""The units of one TM one by one, as the TM editor shows them: pages of the units a
:class:`UnitFilter` lets through, and an edit or a delete that :func:`undo` takes back.

Either backend: a local TM (:class:`~engine.tm.memory.TranslationMemory`) or a shared TM
on PostgreSQL.  Writes go through the TM's own ``update`` / ``delete`` / ``add``, so a
local TM's search index follows them (journal and overlay), and a shared TM's go to the
server under the user's role (a reader role is refused in one line by the TM itself), and
reach every client's replica through the change feed.  Pages of a shared TM are read
from its local replica once that is ready (no round trip; the writer's own change is in it
when the write returns), else from the server.

Pages are read by id, ``scan`` units at most per call: a filter that matches few units of
a large TM returns short pages quickly, and the caller asks for the next one from
:attr:`UnitPage.after` until :attr:`UnitPage.done`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Callable

from engine.errors import TMError
from engine.inline import TaggedText
from engine.tm.memory import _COLS, TranslationMemory, _entry, _export_meta
from engine.tm.limits import FITS
from engine.tm.model import TMEntry

SIDES = ("both", "source", "target")


@dataclass(frozen=True)
class UnitFilter:
    """Which units a page holds.  ``text``: in the source and/or target (``side``), as a
    phrase (any case unless ``case``) or a Python regular expression (``regex``), read
    without inline codes; ``author``: part of the name of who made or last changed the unit
    (any case); ``since`` / ``until``: the unit was last changed on or after / on or before
    that day (``YYYY-MM-DD``).  Empty fields filter nothing."""

    text: str = ""
    side: str = "both"
    regex: bool = False
    case: bool = False
    author: str = ""
    since: str = ""
    until: str = ""

    def matcher(self) -> Callable[[TMEntry], bool]:
        """The test a unit passes; a bad expression or date raises a one-line :class:`TMError`."""
        if self.side not in SIDES:
            raise TMError(f"side must be one of {', '.join(SIDES)}, not {self.side!r}")
        find = _text_test(self.text, self.regex, self.case)
        author = self.author.strip().casefold()
        since, until = _day_arg(self.since, "since"), _day_arg(self.until, "until")
        sides = ("source", "target") if self.side == "both" else (self.side,)

        def test(e: TMEntry) -> bool:
            if author and not any(author in str(e.meta.get(k) or "").casefold() for k in ("creator", "changer")):
                return False
            if since or until:
                day = _day(e.meta.get("changed") or e.meta.get("created") or "")
                if not day or (since and day < since) or (until and day > until):
                    return False
            return find is None or any(find(getattr(e, s).plain()) for s in sides)
        return test

    @property
    def empty(self) -> bool:
        return not (self.text or self.author.strip() or self.since.strip() or self.until.strip())


@dataclass(frozen=True)
class UnitPage:
    """``entries``: the units that passed, by id; ``after``: the last id read (the next page
    starts after it); ``done``: no unit is left after it."""

    entries: list[TMEntry]
    after: int
    done: bool


@dataclass(frozen=True)
class UnitChange:
    """An edit or a delete, with the unit as it was (``before``); ``after_id``: the unit that
    holds the edited pair (another unit when the edit made it the duplicate of one), None
    after a delete."""

    kind: str
    before: TMEntry
    after_id: int | None = None


#: where :func:`page` puts a shared TM's review note in a unit's ``meta`` (read it with :func:`revision`)
REVISION = "revision"


def page(tm, flt: UnitFilter | None = None, after: int = 0, limit: int = 100, scan: int = 5000) -> UnitPage:
    """Up to ``limit`` units with ids above ``after`` that pass ``flt``, reading at most
    ``scan`` units (fewer entries, not ``done``: ask again from ``after``).  A shared TM's
    reviewed units carry their review note (:func:`revision`; engine.tm.pg_review)."""
    got = _page(tm, flt, after, limit, scan)
    notes = getattr(tm, "revision_notes", None)
    if notes is not None and got.entries:
        try:
            found = notes([e.id for e in got.entries])
        except TMError:  # offline or refused: the page without its notes
            found = {}
        for e in got.entries:
            if e.id in found:
                e.meta[REVISION] = found[e.id]
    return got


def _page(tm, flt: UnitFilter | None, after: int, limit: int, scan: int) -> UnitPage:
    test = (flt or UnitFilter()).matcher()
    out: list[TMEntry] = []
    last, read = after, 0
    while len(out) < limit and read < scan:
        chunk = min(max(limit - len(out), 200), scan - read)
        rows = _rows(tm, last, chunk)
        for i, e in enumerate(rows):
            last = e.id
            if test(e):
                out.append(e)
                if len(out) >= limit:  # done when this was the TM's last unit (else: maybe more)
                    return UnitPage(out, last, i == len(rows) - 1 and len(rows) < chunk)
        read += len(rows)
        if len(rows) < chunk:
            return UnitPage(out, last, True)
    return UnitPage(out, last, False)


def edit_unit(tm, uid: int, *, editor: str, source: str | TaggedText | None = None,
              target: str | TaggedText | None = None) -> UnitChange | None:
    """Give unit ``uid`` a new source and/or target, recording ``editor`` and now as its last
    change; None when the texts are as they were."""
    before = tm.get(uid)
    s = _with_tags(source, before.source)
    t = _with_tags(target, before.target)
    if s.text == before.source.text and t.text == before.target.text:
        return None
    if not s.text.strip() or not t.text.strip():
        raise TMError("a TM unit needs a source and a target text (Delete removes the unit)")
    new_id = tm.update(uid, source=s, target=t, meta={"changeid": editor})
    return UnitChange("edit", before, new_id)


def delete_unit(tm, uid: int) -> UnitChange:
    """Delete unit ``uid`` (kept in the returned change, for :func:`undo`)."""
    before = tm.get(uid)
    if not tm.delete(uid):
        raise TMError(f"{tm.folder}: no unit {uid}")
    return UnitChange("delete", before)


def undo(tm, change: UnitChange) -> TMEntry:
    """Take ``change`` back: the unit as it was, with its author and dates, returned as
    stored now (a deleted unit comes back under a new id)."""
    b = change.before
    if change.kind not in ("edit", "delete"):
        raise TMError(f"not a change to undo: {change.kind!r}")
    if change.kind == "edit" and change.after_id == b.id:
        # texts and metadata in one write: a shared TM's other clients follow it write by write
        return tm.get(tm.update(b.id, source=b.source, target=b.target, meta=_export_meta(b), stamp=False))
    # the unit as it was, under a new id (an exact duplicate of the pair takes its metadata back)
    uid = tm.add(b.source, b.target, src_lang=b.src_lang, tgt_lang=b.tgt_lang, origin=b.meta.get("origin", ""),
                 creator=b.meta.get("creator", ""), meta=_export_meta(b))
    return tm.get(uid)


def author(e: TMEntry) -> str:
    """Who last changed the unit, else who made it."""
    return str(e.meta.get("changer") or e.meta.get("creator") or "")


def changed(e: TMEntry) -> str:
    """When the unit was last changed (ISO 8601), else made."""
    return str(e.meta.get("changed") or e.meta.get("created") or "")


def revision(e: TMEntry) -> str:
    """A shared TM's reviewed unit, as :func:`page` reads it: "revised by X, was: ..."; "" for another."""
    return str(e.meta.get(REVISION) or "")


# ------------------------------------------------------------ reading rows
def _rows(tm, after: int, n: int) -> list[TMEntry]:
    """``n`` units with ids above ``after``, by id: a local TM's SQLite, a shared TM's ready
    replica, else its server."""
    if isinstance(tm, TranslationMemory):
        return _local_rows(tm, after, n)
    replica = getattr(tm, "replica", None)
    if replica is not None and replica.ready:
        with replica.lock:
            return _local_rows(replica.tm, after, n)
    return [_entry(r) for r in tm._read(tm._q(f"SELECT {_COLS} FROM {{s}}.units WHERE id > %s ORDER BY id LIMIT %s"),
                                        (after, n))]


def _local_rows(tm: TranslationMemory, after: int, n: int) -> list[TMEntry]:
    rows = tm.conn.execute(f"SELECT {_COLS} FROM units WHERE {FITS} AND id > ? ORDER BY id LIMIT ?",
                           (after, n)).fetchall()  # a unit over the size limit is never read (engine.tm.limits)
    return [_entry(r) for r in rows]


# ------------------------------------------------------------ filters
def _text_test(text: str, regex: bool, case: bool) -> Callable[[str], bool] | None:
    if not text:
        return None
    if regex:
        try:
            rx = re.compile(text, 0 if case else re.IGNORECASE)
        except re.error as e:
            raise TMError(f"not a regular expression: {text!r} ({e})") from None
        return lambda s: rx.search(s) is not None
    if case:
        return lambda s: text in s
    folded = text.casefold()
    return lambda s: folded in s.casefold()


def _day_arg(text: str, name: str) -> str:
    text = text.strip()
    if not text:
        return ""
    try:
        return date.fromisoformat(text).strftime("%Y%m%d")
    except ValueError:
        raise TMError(f"{name}: {text!r} is not a day (YYYY-MM-DD)") from None


def _day(stamp: str) -> str:
    """The day of an ISO 8601 stamp as YYYYMMDD (either ``2026-11-27T...`` or ``20261127T...``)."""
    digits = str(stamp).replace("-", "")[:8]
    return digits if len(digits) == 8 and digits.isdigit() else ""


def _with_tags(new: str | TaggedText | None, old: TaggedText) -> TaggedText:
    if new is None:
        return old
    return new if isinstance(new, TaggedText) else old.with_text(str(new))


__all__ = ["UnitFilter", "UnitPage", "UnitChange", "page", "edit_unit", "delete_unit", "undo", "author",
           "changed", "SIDES"]
