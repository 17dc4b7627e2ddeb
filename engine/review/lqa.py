"""LQA errors: a reviewer marks a span of a target with an MQM core category and a severity.

Table ``lqa_errors`` (:mod:`engine.store.migrations`).  Categories are MQM's core dimensions
(accuracy, fluency, terminology, style, locale conventions); severities minor / major / critical
weigh 1 / 5 / 10 penalty points unless the project sets ``lqa_weights`` (JSON, e.g.
``{"minor": 1, "major": 5, "critical": 10}``); the project's ``lqa_threshold`` (penalty points per
1,000 source words, default 10) decides pass or fail (:mod:`engine.review.report`).
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone

from engine.errors import ProjectError
from engine.identity import user_name

CATEGORIES = ("accuracy", "fluency", "terminology", "style", "locale-conventions")
SEVERITIES = ("minor", "major", "critical")
DEFAULT_WEIGHTS = {"minor": 1.0, "major": 5.0, "critical": 10.0}
DEFAULT_THRESHOLD = 10.0
MAX_COMMENT = 2_000


@dataclass(frozen=True)
class LqaError:
    id: int
    segment_id: int
    start: int
    end: int
    category: str
    severity: str
    comment: str
    author: str
    created_at: str


def weights(project) -> dict[str, float]:
    """The project's severity weights (setting ``lqa_weights``), checked: a bad value is one line."""
    raw = project.setting("lqa_weights")
    if not raw:
        return dict(DEFAULT_WEIGHTS)
    try:
        given = json.loads(raw)
    except ValueError as e:
        raise ProjectError(f"{project.folder}: setting lqa_weights is not JSON ({e})") from None
    if not isinstance(given, dict) or set(given) - set(SEVERITIES) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in given.values()):
        raise ProjectError(f"{project.folder}: setting lqa_weights must map {', '.join(SEVERITIES)} "
                           f"to numbers >= 0, not {raw!r}")
    return {**DEFAULT_WEIGHTS, **{k: float(v) for k, v in given.items()}}


def threshold(project) -> float:
    """Penalty points per 1,000 words above which a document fails (setting ``lqa_threshold``)."""
    raw = project.setting("lqa_threshold")
    if raw in (None, ""):
        return DEFAULT_THRESHOLD
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ProjectError(f"{project.folder}: setting lqa_threshold must be a number >= 0, not {raw!r}")
    return value


class Lqa:
    """A project's LQA errors: :meth:`add`, :meth:`edit`, :meth:`delete`, :meth:`of_segment`, :meth:`of_document`."""

    def __init__(self, project):
        self.project = project
        self._conn = project._conn
        self._tx = project._tx

    def add(self, segment_id: int, start: int, end: int, category: str, severity: str,
            comment: str = "", author: str = "") -> LqaError:
        start, end, category, severity, comment = self._checked(segment_id, start, end, category, severity, comment)
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            with self._tx():
                cur = self._conn.execute(
                    "INSERT INTO lqa_errors (segment_id, start, end, category, severity, comment, author, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (segment_id, start, end, category, severity, comment, author.strip() or user_name(), now))
        except sqlite3.IntegrityError:
            raise ProjectError(f"{self.project.folder}: no segment {segment_id}") from None
        return self.get(cur.lastrowid)

    def edit(self, error_id: int, *, category: str, severity: str, comment: str) -> LqaError:
        e = self.get(error_id)
        _, _, category, severity, comment = self._checked(e.segment_id, e.start, e.end, category, severity, comment)
        with self._tx():
            self._conn.execute("UPDATE lqa_errors SET category = ?, severity = ?, comment = ? WHERE id = ?",
                               (category, severity, comment, error_id))
        return self.get(error_id)

    def delete(self, error_id: int) -> None:
        with self._tx():
            self._conn.execute("DELETE FROM lqa_errors WHERE id = ?", (error_id,))

    def get(self, error_id: int) -> LqaError:
        r = self._conn.execute("SELECT id, segment_id, start, end, category, severity, comment, author, created_at"
                               " FROM lqa_errors WHERE id = ?", (error_id,)).fetchone()
        if r is None:
            raise ProjectError(f"{self.project.folder}: no LQA error {error_id}")
        return LqaError(*r)

    def of_segment(self, segment_id: int) -> list[LqaError]:
        return [LqaError(*r) for r in self._conn.execute(
            "SELECT id, segment_id, start, end, category, severity, comment, author, created_at FROM lqa_errors"
            " WHERE segment_id = ? ORDER BY start, id", (segment_id,))]

    def of_document(self, document_id: int) -> list[LqaError]:
        return [LqaError(*r) for r in self._conn.execute(
            "SELECT e.id, e.segment_id, e.start, e.end, e.category, e.severity, e.comment, e.author, e.created_at"
            " FROM lqa_errors e JOIN segments s ON s.id = e.segment_id WHERE s.document_id = ?"
            " ORDER BY s.idx, e.start, e.id", (document_id,))]

    def _checked(self, segment_id, start, end, category, severity, comment):
        category = category.strip().lower().replace(" ", "-")
        if category not in CATEGORIES:
            raise ProjectError(f"LQA category {category!r}: one of {', '.join(CATEGORIES)}")
        if severity not in SEVERITIES:
            raise ProjectError(f"LQA severity {severity!r}: one of {', '.join(SEVERITIES)}")
        if len(comment) > MAX_COMMENT:
            raise ProjectError(f"LQA comment of {len(comment)} characters: at most {MAX_COMMENT}")
        target = self.project.segment(segment_id).target.text
        if not (0 <= start <= end <= len(target)):
            raise ProjectError(f"segment {segment_id}: span {start}..{end} is outside its target "
                               f"({len(target)} characters)")
        return start, end, category, severity, comment.strip()
