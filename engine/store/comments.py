"""Comments on segments: written by the translator, kept in the project, exported where the file has a place.

A comment has an author, a text, when it was written and last edited, and may be resolved (and
reopened).  Open comments go into the exported file where its format keeps comments (XLIFF
``<note>``, a PO translator comment, a Word comment: :mod:`engine.formats.comments_export`);
resolved ones stay in the project only, and so do all comments of a format with no such place.
Comments the file came with are not here: the reader puts them in the segment's ``note`` and the
editor shows them, read-only, as the file's.  Adding, editing or resolving a comment is not an
edit of the segment (``updated_at`` stays), and a document without open comments exports as it
did without this module.  A segment's comments go with the segment (``ON DELETE CASCADE``).
Table ``comments`` (:mod:`engine.store.migrations`): ``Comments(project)``.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from engine.errors import ProjectError
from engine.identity import user_name

#: The longest comment kept (a pasted document is not a comment).
MAX_CHARS = 10_000


@dataclass(frozen=True)
class Comment:
    id: int
    segment_id: int
    author: str
    text: str
    created_at: str
    updated_at: str
    resolved_at: str | None = None

    @property
    def resolved(self) -> bool:
        return self.resolved_at is not None


class Comments:
    """A project's comments: :meth:`add`, :meth:`edit`, :meth:`resolve`, :meth:`reopen`, :meth:`delete`."""

    def __init__(self, project):
        # the project's own connection and transactions (one writer at a time, as every store write)
        self._conn = project._conn
        self._tx = project._tx

    def add(self, segment_id: int, text: str, author: str = "") -> Comment:
        """A comment signed ``author`` (none given: :func:`engine.identity.user_name`; the editor
        passes its Settings ▸ Your name)."""
        text = _checked(text)
        now = _now()
        try:
            with self._tx():
                cur = self._conn.execute(
                    "INSERT INTO comments (segment_id, author, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    (segment_id, (author.strip() or user_name()), text, now, now))
        except sqlite3.IntegrityError:
            raise ProjectError(f"comment: segment {segment_id} is not in the project") from None
        return self.get(int(cur.lastrowid))

    def edit(self, comment_id: int, text: str) -> Comment:
        self._update(comment_id, "text = ?, updated_at = ?", (_checked(text), _now()))
        return self.get(comment_id)

    def resolve(self, comment_id: int) -> Comment:
        self._update(comment_id, "resolved_at = COALESCE(resolved_at, ?)", (_now(),))
        return self.get(comment_id)

    def reopen(self, comment_id: int) -> Comment:
        self._update(comment_id, "resolved_at = NULL", ())
        return self.get(comment_id)

    def delete(self, comment_id: int) -> None:
        with self._tx():
            self._conn.execute("DELETE FROM comments WHERE id = ?", (comment_id,))

    def get(self, comment_id: int) -> Comment:
        r = self._conn.execute(f"SELECT {_COLS} FROM comments WHERE id = ?", (comment_id,)).fetchone()
        if r is None:
            raise ProjectError(f"comment {comment_id} is not in the project (deleted?)")
        return Comment(*r)

    def for_segment(self, segment_id: int) -> list[Comment]:
        """The segment's comments, oldest first, resolved ones included."""
        return [Comment(*r) for r in self._conn.execute(
            f"SELECT {_COLS} FROM comments WHERE segment_id = ? ORDER BY created_at, id", (segment_id,))]

    def open_segments(self, document_id: int) -> set[int]:
        """The ids of the document's segments with an open (unresolved) comment."""
        return {r[0] for r in self._conn.execute(
            "SELECT DISTINCT c.segment_id FROM comments c JOIN segments s ON s.id = c.segment_id"
            " WHERE s.document_id = ? AND c.resolved_at IS NULL", (document_id,))}

    def open_by_key(self, document_id: int) -> dict[str, list[Comment]]:
        """The document's open comments by segment key (what a writer places), in document order."""
        out: dict[str, list[Comment]] = {}
        for r in self._conn.execute(
                "SELECT s.key, " + ", ".join(f"c.{c}" for c in _COLS.split(", ")) +
                " FROM comments c JOIN segments s ON s.id = c.segment_id"
                " WHERE s.document_id = ? AND c.resolved_at IS NULL ORDER BY s.idx, c.created_at, c.id",
                (document_id,)):
            out.setdefault(r[0], []).append(Comment(*r[1:]))
        return out

    def _update(self, comment_id: int, assignments: str, values: tuple) -> None:
        with self._tx():
            cur = self._conn.execute(f"UPDATE comments SET {assignments} WHERE id = ?", (*values, comment_id))
        if cur.rowcount != 1:
            raise ProjectError(f"comment {comment_id} is not in the project (deleted?)")


def write_with_comments(project, info, original: Path, out: Path, translations: dict) -> None:
    """Export ``info`` (a ``DocumentInfo``) with its writer, then put its open comments in the file
    where the format has a place for them (none open, or no place: the writer's file as it is)."""
    from engine.formats import write_document
    from engine.formats.comments_export import ExportComment, has_place
    from engine.review.export import with_changes
    from engine.store.segrules import exporting

    with exporting(project, info.meta):  # a writer segments the original again: with the import's rules
        write_document(original, out, with_changes(project, info, translations), format=info.format, tgt_lang=info.tgt_lang,
                       src_lang=info.src_lang)
    by_key = Comments(project).open_by_key(info.id) if has_place(info.format) else {}
    if not by_key:
        return
    comments = {k: [ExportComment(c.author, c.text, c.created_at) for c in cs] for k, cs in by_key.items()}
    if info.format in ("xliff12", "xliff20"):
        from engine.formats.comments_xliff import write_notes

        write_notes(out, info.format, comments)
    elif info.format == "po":
        from engine.formats.comments_po import write_po_comments

        write_po_comments(out, comments)
    else:
        from engine.formats.comments_docx import write_docx_comments

        write_docx_comments(out, comments)


_COLS = "id, segment_id, author, text, created_at, updated_at, resolved_at"


def _checked(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ProjectError("comment: the comment is empty")
    if len(text) > MAX_CHARS:
        raise ProjectError(f"comment: {len(text):,} characters (at most {MAX_CHARS:,})")
    return text


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


__all__ = ["Comment", "Comments", "write_with_comments"]
