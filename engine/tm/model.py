"""What the TM hands out: entries, matches, concordance hits, import results."""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import TMError
from engine.inline import TaggedText
from engine.tm.scoring import EditOp


@dataclass
class TMEntry:
    """One stored translation unit.

    ``meta`` holds ``origin``, ``created``/``changed`` (ISO 8601),
    ``creator``/``changer``, ``usage_count``, ``last_used`` and whatever the
    source file carried (``props``, ``notes``, ``tuid``, ...).
    """

    id: int
    source: TaggedText
    target: TaggedText
    src_lang: str
    tgt_lang: str
    meta: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"id": self.id, "source": self.source.text, "target": self.target.text,
                "source_display": self.source.display(), "target_display": self.target.display(),
                "src_lang": self.src_lang, "tgt_lang": self.tgt_lang, "meta": self.meta}


@dataclass
class Match:
    """A fuzzy match for a query.

    ``score``: the token score (Eq. 3 with small case/punctuation penalties,
    in [0, 1]); the editor shows it as the match percentage.
    ``char_score``: the character-level CAT similarity, for information.
    ``ops``: token edit operations from the query to ``entry.source``.
    """

    entry: TMEntry
    score: float
    char_score: float
    ops: list[EditOp]

    @property
    def source(self) -> TaggedText:
        return self.entry.source

    @property
    def target(self) -> TaggedText:
        return self.entry.target

    @property
    def meta(self) -> dict:
        return self.entry.meta

    def covered_query_tokens(self) -> set[int]:
        """Indices of the query's core tokens that this match source contains
        in place (``equal`` operations)."""
        out: set[int] = set()
        for op in self.ops:
            if op.op == "equal":
                out.update(range(*op.query_tokens))
        return out

    def to_json(self) -> dict:
        return {"score": round(self.score, 4), "char_score": round(self.char_score, 4),
                "source": self.source.text, "target": self.target.text,
                "source_display": self.source.display(), "target_display": self.target.display(),
                "id": self.entry.id, "meta": self.entry.meta,
                "ops": [op.to_json() for op in self.ops]}


@dataclass
class ConcordanceHit:
    """A unit whose source or target contains the phrase; ``spans`` are the
    character ranges of each occurrence in ``text`` of ``side``."""

    entry: TMEntry
    side: str
    spans: list[tuple[int, int]]

    @property
    def text(self) -> TaggedText:
        return self.entry.source if self.side == "source" else self.entry.target

    def to_json(self) -> dict:
        return {"id": self.entry.id, "side": self.side, "source": self.entry.source.text,
                "target": self.entry.target.text, "spans": [list(s) for s in self.spans],
                "meta": self.entry.meta}


@dataclass
class ImportResult:
    """``added`` new units, ``updated`` exact duplicates (metadata merged),
    ``skipped`` units not stored, with ``errors`` saying why."""

    added: int = 0
    updated: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"added": self.added, "skipped": self.skipped, "updated": self.updated,
                "errors": self.errors}


class TMOffline(TMError):
    """A shared TM's server cannot be reached (the write may wait in an outbox)."""


class TMReadOnly(TMError):
    """The TM may be read but not written (a read-only database role)."""


class TMRefused(TMOffline):
    """The server answers but refuses this user: a wrong or missing password, a missing
    grant.  To the editor the TM is unavailable as when offline (a confirmation waits in the
    outbox, retried on a timer, sent once the owner fixed it), but the message says why and
    what to ask for.  ``reason`` is the message without the TM's name; ``writes``: only
    writing is refused (the TM still answers searches)."""

    def __init__(self, tm: str, reason: str, *, writes: bool = False):
        self.tm, self.reason, self.writes = tm, reason, writes
        super().__init__(f"{tm}: {reason}")
