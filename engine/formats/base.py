"""The document model every reader produces and every writer consumes.

A reader turns a file into a :class:`ParsedDocument`: an ordered list of
:class:`ParsedSegment`, each with a ``key`` that is stable for that file
(unit id + segment index, PO msgctxt/msgid/plural index, paragraph/sentence
index).  A writer takes the **original file** plus translations by key and
writes the translated file, so everything the reader did not turn into a
segment (skeleton, notes, headers, states of untouched units) survives.

Readers never import torch or Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Literal, Protocol

from engine.formats.readprogress import created
from engine.inline import TaggedText

SegmentStatus = Literal["new", "draft", "confirmed"]


@dataclass
class ParsedSegment:
    """One translatable segment as found in a file.

    ``key``: stable id of the segment within its file (writers look it up).
    ``source`` / ``target``: text with protected inline codes.
    ``status``: what the file says of the target (``new`` when there is none).
    ``note``: translator/developer comments, joined.
    ``context``: PO msgctxt, XLIFF resname, CSV key -- shown to the translator.
    ``meta``: format-specific data kept for export (``fuzzy``, ``plural_index``,
    ``state`` attribute value, ...).  JSON-serialisable.
    ``locked``: the file says the segment is not to be translated or changed (XLIFF
    ``translate="no"``, SDL ``locked``, memoQ ``mq:locked``); the project keeps it locked.
    """

    key: str
    source: TaggedText
    target: TaggedText | None = None
    status: SegmentStatus = "new"
    note: str = ""
    context: str = ""
    meta: dict = field(default_factory=dict)
    locked: bool = False


@dataclass
class ParsedDocument:
    """A whole file as segments.  ``problems`` lists what was skipped and why."""

    path: str
    format: str
    src_lang: str = ""
    tgt_lang: str = ""
    segments: list[ParsedSegment] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        created(self)  # a long import's progress line counts its segments (engine/formats/readprogress.py)


@dataclass
class Translation:
    """What a writer puts back for one segment key."""

    target: TaggedText
    status: SegmentStatus = "confirmed"


class DocumentFormat(Protocol):
    """A reader/writer pair for one file format (see ``engine.formats.registry``)."""

    name: str            # "xliff12", "po", ...
    extensions: tuple[str, ...]

    def sniff(self, path: Path, head: bytes) -> bool:
        """True when this format can read ``path`` (``head``: its first 4 KiB)."""

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        """Parse ``path``; raise :class:`engine.errors.FormatError` naming file and place."""

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        """Write ``original`` with ``translations`` applied to ``out`` (atomically)."""


@dataclass
class TMUnit:
    """One translation unit of a TM file (TMX, bilingual CSV/TSV, PO/XLIFF with targets).

    ``variants`` maps normalised language code -> text with protected codes.
    ``meta``: creationdate, changedate, creationid, changeid, usagecount,
    lastusagedate, tuid, and ``props`` (list of [type, value]) and ``notes``.
    ``line``: where the unit starts in its file, for error messages.
    """

    variants: dict[str, TaggedText]
    meta: dict = field(default_factory=dict)
    line: int | None = None


class TMReader(Protocol):
    def __call__(self, path: Path, *, src_lang: str = "", tgt_lang: str = "",
                 problems: list[str] | None = None) -> Iterator[TMUnit]:
        """Yield units one at a time (memory stays bounded); append skip reasons to ``problems``."""
