"""Quality checks on translated segments (what the editor's *QA check* lists).

Each check looks at one segment's source and target and yields
:class:`Issue` objects; :func:`check_segments` runs them all.  Pure Python,
no torch, no Qt.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Iterator

from engine.inline import TaggedText

# Numbers as a reader sees them: 1,234.5 / 1.234,5 / 12 / 3.5 / 1 000
_NUMBER = re.compile(r"(?<![\w.,])[-+]?\d+(?:[ \u00a0\u202f.,]\d{3})*(?:[.,]\d+)?(?![\w])")


@dataclass(frozen=True)
class Issue:
    segment_id: int
    idx: int          # 0-based position in the document (the grid shows idx + 1)
    check: str        # "missing-tag", "extra-tag", "tag-order", "number", "empty", "untranslated", "source-copied"
    message: str
    severity: str = "error"   # "error" | "warning"

    def to_json(self) -> dict:
        return {"segment_id": self.segment_id, "segment": self.idx + 1, "check": self.check,
                "message": self.message, "severity": self.severity}


def _normalise_number(s: str) -> str:
    """``1,234.50`` and ``1.234,50`` and ``1 234,50`` compare equal."""
    digits = re.sub(r"[ \u00a0\u202f]", "", s)
    m = re.match(r"^([-+]?)(.*?)(?:[.,](\d{1,2}|\d{4,}))?$", digits)
    if not m:
        return digits
    sign, whole, frac = m.groups()
    whole = re.sub(r"[.,]", "", whole)
    frac = (frac or "").rstrip("0")
    return f"{sign}{int(whole) if whole.isdigit() else whole}" + (f".{frac}" if frac else "")


def numbers(text: str) -> Counter:
    return Counter(_normalise_number(m.group(0)) for m in _NUMBER.finditer(text))


def check_tags(source: TaggedText, target: TaggedText) -> Iterator[tuple[str, str]]:
    src = Counter(source.tag_numbers())
    tgt = Counter(target.tag_numbers())
    by_n = {t.n: t for t in source.tags}
    for n in sorted(src - tgt):
        t = by_n.get(n)
        yield "missing-tag", f"tag {t.display() if t else n} is missing in the target"
    for n in sorted(tgt - src):
        t = by_n.get(n)
        yield "extra-tag", f"tag {t.display() if t else n} is not in the source"
    # A closing tag before its opening tag breaks the file on export.
    pos = {n: i for i, n in enumerate(target.tag_numbers())}
    pairs: dict[str, dict[str, int]] = {}
    for t in source.tags:
        if t.kind in ("open", "close") and t.pair and t.n in pos:
            pairs.setdefault(t.pair, {})[t.kind] = pos[t.n]
    for pid, p in pairs.items():
        if "open" in p and "close" in p and p["close"] < p["open"]:
            yield "tag-order", "a closing tag comes before its opening tag"


def check_segment(segment_id: int, idx: int, source: TaggedText, target: TaggedText,
                  status: str = "draft") -> list[Issue]:
    out: list[Issue] = []
    add = lambda check, msg, sev="error": out.append(Issue(segment_id, idx, check, msg, sev))  # noqa: E731
    if not target.text.strip():
        if source.plain().strip():
            add("untranslated" if status == "new" else "empty", "the target is empty", "warning")
        return out
    for check, msg in check_tags(source, target):
        add(check, msg)
    s_num, t_num = numbers(source.plain()), numbers(target.plain())
    for n in sorted((s_num - t_num)):
        add("number", f"number {n} of the source is not in the target")
    for n in sorted((t_num - s_num)):
        add("number", f"number {n} is in the target but not in the source", "warning")
    src_plain = unicodedata.normalize("NFC", source.plain()).strip()
    if src_plain and src_plain == unicodedata.normalize("NFC", target.plain()).strip() and re.search(
            r"[^\W\d_]{3,}", src_plain):
        add("source-copied", "the target is a copy of the source", "warning")
    return out


def check_segments(segments: Iterable) -> list[Issue]:
    """Run every check over store segments (objects with id, idx, source, target, status)."""
    out: list[Issue] = []
    for s in segments:
        out.extend(check_segment(s.id, s.idx, s.source, s.target, s.status))
    return out
