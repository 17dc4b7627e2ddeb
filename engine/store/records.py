"""What the project store hands out: a document's, a segment's and a listed TM's record, and a
confirmation the TM may not have yet (:mod:`engine.store.project`)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from engine.formats.base import SegmentStatus
from engine.inline import TaggedText


@dataclass(frozen=True)
class DocumentInfo:
    id: int
    name: str
    format: str
    original: str
    src_lang: str
    tgt_lang: str
    imported_at: str
    meta: dict = field(default_factory=dict, compare=False)
    segment_count: int = 0
    confirmed_count: int = 0


@dataclass(frozen=True)
class TMRef:
    """A translation memory (setting ``tms``) or glossary (setting ``glossaries``) a project
    reads; paths relative to the project folder or absolute.  Confirmed segments go to the
    first writable TM."""

    path: Path
    writable: bool
    name: str


@dataclass(frozen=True)
class Segment:
    """One segment of a document as stored in the project."""

    id: int
    document_id: int
    idx: int
    key: str
    source: TaggedText
    target: TaggedText
    status: SegmentStatus
    origin: str
    origin_score: float | None
    note: str
    context: str
    meta: dict
    updated_at: str
    confirmed_at: str | None
    created_at: str = ""
    locked: bool = False  # the target may not change (engine/store/locks.py)

    @property
    def as_received(self) -> bool:
        """The target is the one the file came with, untouched in Verso (neither edited
        nor confirmed here): the client's, so a tag difference in it is theirs to answer
        for -- a QA warning, never a reason to refuse the export."""
        return self.origin == "file" and bool(self.target.text) and self.updated_at == self.created_at

    @classmethod
    def from_row(cls, r: dict) -> "Segment":
        source = TaggedText.from_parts(r["source"], r["source_tags"])
        return cls(
            id=r["id"], document_id=r["document_id"], idx=r["idx"], key=r["key"],
            source=source,
            target=TaggedText.from_parts(r["target"], r["target_tags"]),
            status=r["status"], origin=r["origin"], origin_score=r["origin_score"],
            note=r["note"], context=r["context"], meta=json.loads(r["meta"] or "{}"), locked=bool(r.get("locked")),
            updated_at=r["updated_at"], confirmed_at=r["confirmed_at"], created_at=r["created_at"],
        )


@dataclass(frozen=True)
class PendingTMWrite:
    """A confirmed segment the TM may not have yet, the unit metadata it goes with, and the
    target of the unit it corrects (None: a new unit)."""

    segment: Segment
    meta: dict
    replaces: TaggedText | None = None
