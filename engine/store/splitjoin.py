"""Split a segment in two at a position of its source, and join segments again.

The pieces of a split keep the segment's format key, so the file's writer still finds one
unit or sentence there: :func:`translations` hands it the pieces' targets joined by the
source's white space between them (``meta["split_gap"]``: the white space before a piece),
and the paragraph is rebuilt as the original had it.  A piece without a target is written
as its source, as any untranslated sentence is.  Join merges a segment with the next one when
both are pieces of one key, or the next sentence of the same paragraph (``engine/store/joined.py``:
the writer gets the joined target cut back into one part per sentence); never across paragraphs
or the units of a file (XLIFF trans-units, PO entries).

Rules: a split never falls between a paired code's opening and closing (refused); a locked
segment is neither split nor joined, nor is a segment of joined sentences split (undo the
join); the target goes wholly to the first piece unless a position in the target is given
too.  A target that was confirmed is a draft in the pieces (its TM unit stays as it was; the
pieces reach the TM when confirmed).  Each change is one transaction and returns a
:class:`Restructure` whose :meth:`SplitJoin.undo` puts the rows back exactly (ids, status,
origin, times).
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from engine.errors import ProjectError
from engine.formats.base import Translation
from engine.inline import TaggedText, merge_tags, tag_number
from engine.langs import primary
from engine.store.joined import JOINED, divide, joined_entries, last_key, next_sentence, shift, top_code

GAP = "split_gap"
#: target languages written without a space between sentences
_NO_SPACE = frozenset({"ja", "zh", "th", "lo", "km", "my", "bo"})
_COLUMNS = ("id", "document_id", "idx", "key", "source", "source_tags", "target", "target_tags", "status",
            "origin", "origin_score", "note", "context", "meta", "created_at", "updated_at", "confirmed_at",
            "locked")


class SplitJoinError(ProjectError):
    """A split or join was refused (the message says why, in one line)."""


@dataclass(frozen=True)
class Restructure:
    """What a split or join changed: the document's rows ``before`` and ``after`` (in order,
    at the same place); :meth:`SplitJoin.undo` writes ``before`` back, :meth:`SplitJoin.redo`
    ``after``."""

    kind: str              # "split" or "join"
    before: tuple          # of engine.store.project.Segment
    after: tuple
    moved: tuple = ()      # (comment id, segment id it was on) of comments a joined segment took over

    @property
    def label(self) -> str:
        return f"{self.kind.capitalize()} (segment {self.before[0].idx + 1})"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _piece(tt: TaggedText, text: str) -> TaggedText:
    """``text`` with the codes of ``tt``'s table it holds."""
    present = {tag_number(c) for c in text} - {None}
    return TaggedText(text, tuple(t for t in tt.tags if t.n in present))


def _cut(text: str, at: int) -> tuple[str, str, str]:
    """(left, white space between, right) of ``text`` cut at ``at``."""
    left, right = text[:at], text[at:]
    a, b = left.rstrip(), right.lstrip()
    return a, left[len(a):] + right[:len(right) - len(b)], b


def _inside_pair(tt: TaggedText, at: int) -> bool:
    by_n = {t.n: t for t in tt.tags}
    opened = set()
    for ch in tt.text[:at]:
        t = by_n.get(tag_number(ch) or -1)
        if t is not None and t.kind == "open":
            opened.add(t.pair)
        elif t is not None and t.kind == "close":
            opened.discard(t.pair)
    return bool(opened)


def _words(text: str) -> bool:
    return any(c.isalnum() for c in text)


class SplitJoin:
    """Split and join a project's segments: ``SplitJoin(project).split(segment_id, at)``."""

    def __init__(self, project):
        self._project = project
        self._conn: sqlite3.Connection = project._conn
        self._tx = project._tx

    # ---------------------------------------------------------------- split
    def split(self, segment_id: int, at: int, target_at: int | None = None) -> Restructure:
        """Cut the segment's source at character ``at`` (its target too at ``target_at``, else the
        whole target stays with the first piece) into two segments; one transaction."""
        seg = self._project.segment(segment_id)
        n = seg.idx + 1
        self._refuse_locked(seg)
        if seg.meta.get(JOINED):
            raise SplitJoinError(f"segment {n} holds sentences joined: undo the join to divide them again")
        if not 0 < at < len(seg.source.text):
            raise SplitJoinError(f"segment {n}: put the cursor inside the source text to split it there")
        left, gap, right = _cut(seg.source.text, at)
        if not _words(left) or not _words(right):
            raise SplitJoinError(f"segment {n}: a split needs text on both sides of the cursor")
        if _inside_pair(seg.source, at):
            raise SplitJoinError(f"segment {n}: the cursor is inside a pair of tags; split before or after them")
        self._refuse_owed(seg)
        if target_at is not None and 0 < target_at < len(seg.target.text) \
                and not _inside_pair(seg.target, target_at):
            t1, _, t2 = _cut(seg.target.text, target_at)
        else:
            t1, t2 = seg.target.text, ""
        now = _now()
        src1, src2 = _piece(seg.source, left), _piece(seg.source, right)
        tgt1 = seg.target.with_text(t1) if t1 and t2 == "" else _piece(seg.target, t1)
        tgt2 = _piece(seg.target, t2) if t2 else src2.with_text("")
        first = replace(seg, source=src1, target=tgt1, status="draft" if t1 else "new",
                        origin=seg.origin if t1 else "", origin_score=seg.origin_score if t1 else None,
                        updated_at=now)
        second = replace(seg, id=None, idx=seg.idx + 1, source=src2, target=tgt2,
                         status="draft" if t2 else "new", origin=seg.origin if t2 else "",
                         origin_score=seg.origin_score if t2 else None, meta={**seg.meta, GAP: gap},
                         created_at=now, updated_at=now, confirmed_at=None)
        with self._tx():
            after = self._put(seg.document_id, seg.idx, [seg], [first, second])
        return Restructure("split", (seg,), tuple(after))

    # ----------------------------------------------------------------- join
    def join(self, segment_id: int) -> Restructure:
        """Merge the segment with the next one: the pieces of one split, or the next sentence of
        the same paragraph."""
        a = self._project.segment(segment_id)
        row = self._conn.execute("SELECT id FROM segments WHERE document_id = ? AND idx = ?",
                                 (a.document_id, a.idx + 1)).fetchone()
        if row is None:
            raise SplitJoinError(f"segment {a.idx + 1} is the document's last: there is no next segment to join")
        b = b0 = self._project.segment(row[0])
        pieces = a.key == b.key
        if not pieces and next_sentence(last_key(a), b.key) and not (self._whole(a) and self._whole(b)):
            raise SplitJoinError(f"segments {a.idx + 1} and {b.idx + 1}: a piece of a split joins only its own "
                                 "pieces; join them first")
        if not pieces and not next_sentence(last_key(a), b.key):
            raise SplitJoinError(f"segments {a.idx + 1} and {b.idx + 1} are in different paragraphs or units "
                                 "of the file: they cannot be joined")
        self._refuse_locked(a)
        self._refuse_locked(b)
        self._refuse_owed(a)
        self._refuse_owed(b)
        meta = a.meta
        if pieces:
            gap = b.meta.get(GAP, " ")
        else:  # the next sentence of the paragraph: its codes numbered after this one's
            gap = "" if primary(self._project.src_lang) in _NO_SPACE else " "
            offset = top_code(a.source, a.target)
            b = replace(b, source=shift(b.source, offset), target=shift(b.target, offset))
            meta = {**a.meta, JOINED: joined_entries(a, b, offset, len(a.source.text) + len(gap))}
        source = TaggedText(a.source.text + gap + b.source.text, merge_tags(a.source.tags, b.source.tags))
        space = "" if primary(self._project.tgt_lang) in _NO_SPACE else " "
        texts = [t.text for t in (a.target, b.target) if t.text]
        target = TaggedText(space.join(texts), merge_tags(a.target.tags, b.target.tags, source.tags))
        same = a.origin == b.origin or not b.target.text
        origin = (a.origin if same else "human") if a.target.text else b.origin if texts else ""
        joined = replace(a, source=source, target=target, status="draft" if texts else "new", origin=origin,
                         origin_score=a.origin_score if same and a.target.text else None, meta=meta,
                         updated_at=_now())
        with self._tx():
            moved = tuple((cid, b0.id) for cid in self._comments_of(b0.id))
            after = self._put(a.document_id, a.idx, [a, b0], [joined])
        return Restructure("join", (a, b0), tuple(after), moved)

    # ----------------------------------------------------------------- undo
    def undo(self, change: Restructure) -> list:
        """Put the rows a split or join replaced back, exactly (a joined segment's comments go back
        to the segment they were on); returns them as stored.  Refused when a target or status
        changed since (the translator's work would be lost)."""
        with self._tx():
            rows = self._swap(change.after, change.before, f"undo the {change.kind}")
            self._conn.executemany("UPDATE comments SET segment_id = ? WHERE id = ?",
                                   [(sid, cid) for cid, sid in change.moved])
        return rows

    def redo(self, change: Restructure) -> list:
        return self._swap(change.before, change.after, f"redo the {change.kind}")

    def _swap(self, now: tuple, then: tuple, what: str) -> list:
        with self._tx():
            for s in now:
                row = self._conn.execute("SELECT idx, target, status FROM segments WHERE id = ?",
                                         (s.id,)).fetchone()
                if row is None or tuple(row) != (s.idx, s.target.text, s.status):
                    raise SplitJoinError(f"segment {s.idx + 1} changed since: cannot {what} without losing "
                                         "that change")
            return self._put(now[0].document_id, now[0].idx, list(now), list(then))

    # ------------------------------------------------------------- internal
    def _whole(self, seg) -> bool:
        """Not a piece of a split (no other segment shares its key)."""
        return self._conn.execute("SELECT COUNT(*) FROM segments WHERE document_id = ? AND key = ?",
                                  (seg.document_id, seg.key)).fetchone()[0] == 1

    def _refuse_locked(self, seg) -> None:
        if self._conn.execute("SELECT locked FROM segments WHERE id = ?", (seg.id,)).fetchone()[0]:
            raise SplitJoinError(f"segment {seg.idx + 1} is locked: unlock it to split or join it")

    def _refuse_owed(self, seg) -> None:
        if self._conn.execute("SELECT 1 FROM tm_pending WHERE segment_id = ?", (seg.id,)).fetchone():
            raise SplitJoinError(f"segment {seg.idx + 1}: its confirmation is still on its way to the TM; "
                                 "try again in a moment")

    def _comments_of(self, segment_id: int) -> list[int]:
        return [r[0] for r in self._conn.execute("SELECT id FROM comments WHERE segment_id = ?", (segment_id,))]

    def _put(self, doc_id: int, start: int, old: list, new: list) -> list:
        """Replace the rows ``old`` (at ``start``..) by ``new``, shifting the rows after them; the
        comments of a row that goes go to the first row kept."""
        keep = {s.id for s in new if s.id is not None}
        heir = next((s.id for s in new if s.id is not None), None)
        for sid in [s.id for s in old]:
            if sid in keep:  # out of the way of the shift; written below
                self._conn.execute("UPDATE segments SET idx = ? WHERE id = ?", (-1 - sid, sid))
            else:
                if heir is not None:
                    self._conn.execute("UPDATE comments SET segment_id = ? WHERE segment_id = ?", (heir, sid))
                self._conn.execute("DELETE FROM segments WHERE id = ?", (sid,))
        delta, tail, big = len(new) - len(old), start + len(old), 1_000_000_000
        if delta:
            self._conn.execute("UPDATE segments SET idx = idx + ? WHERE document_id = ? AND idx >= ?",
                               (delta + big, doc_id, tail))
            self._conn.execute("UPDATE segments SET idx = idx - ? WHERE document_id = ? AND idx >= ?",
                               (big, doc_id, big))
        out = []
        for i, s in enumerate(new):
            values = _row(replace(s, idx=start + i, document_id=doc_id))
            taken = s.id is not None and self._conn.execute(
                "SELECT 1 FROM segments WHERE id = ?", (s.id,)).fetchone()
            if taken:
                cols = ", ".join(f"{c} = ?" for c in _COLUMNS[1:])
                self._conn.execute(f"UPDATE segments SET {cols} WHERE id = ?", values[1:] + (s.id,))
                sid = s.id
            else:
                marks = ", ".join("?" for _ in _COLUMNS)
                cur = self._conn.execute(f"INSERT INTO segments ({', '.join(_COLUMNS)}) VALUES ({marks})", values)
                sid = cur.lastrowid
            out.append(self._project.segment(sid))
        return out


def _row(s) -> tuple:
    return (s.id, s.document_id, s.idx, s.key, s.source.text, s.source.tags_json(), s.target.text,
            s.target.tags_json(), s.status, s.origin, s.origin_score, s.note, s.context,
            json.dumps(s.meta, ensure_ascii=False), s.created_at, s.updated_at, s.confirmed_at, int(s.locked))


def translations(conn: sqlite3.Connection, document_id: int) -> dict[str, Translation]:
    """Targets by key for a document's writer (``Project.translations``).

    A key of one segment: its target, when it has one and was touched since the import (an
    untouched segment is left as the original had it).  A key of several pieces (a split
    segment): the pieces' targets -- a piece without one as its source -- joined by the white
    space the source had between them; confirmed when every piece is.
    """
    out = {r[0]: Translation(TaggedText.from_parts(r[1], r[2]), r[3]) for r in conn.execute(
        "SELECT key, target, target_tags, status FROM segments WHERE document_id = ? AND target != ''"
        " AND updated_at != created_at ORDER BY idx", (document_id,))}
    split = [r[0] for r in conn.execute(  # a second piece always says what came before it
        "SELECT DISTINCT key FROM segments WHERE document_id = ? AND meta LIKE ?", (document_id, f'%"{GAP}"%'))]
    for r in conn.execute("SELECT key, target, target_tags, status, meta, length(source), idx FROM segments"
                          " WHERE document_id = ? AND target != '' AND meta LIKE ?", (document_id, f'%"{JOINED}"%')):
        entries = json.loads(r[4] or "{}").get(JOINED) or []
        for key, part in divide(r[0], entries, TaggedText.from_parts(r[1], r[2]), r[5], r[6] + 1):
            out[key] = Translation(part, r[3])
    for key in split:
        group = conn.execute("SELECT source, source_tags, target, target_tags, status, meta FROM segments"
                             " WHERE document_id = ? AND key = ? ORDER BY idx", (document_id, key)).fetchall()
        if len(group) < 2:
            continue
        out.pop(key, None)
        if not any(r[2] for r in group):
            continue
        parts, tables = [], []
        for i, (src, src_tags, text, tags, _, meta) in enumerate(group):
            tt = TaggedText.from_parts(text, tags) if text else TaggedText.from_parts(src, src_tags)
            if i:
                parts.append(json.loads(meta or "{}").get(GAP, " "))
            parts.append(tt.text)
            tables.append(tt.tags)
        status = "confirmed" if all(r[4] == "confirmed" for r in group) else "draft"
        out[key] = Translation(TaggedText("".join(parts), merge_tags(*tables)), status)
    return out


__all__ = ["Restructure", "SplitJoin", "SplitJoinError", "translations"]
