"""The QA finding, below both the checks (:mod:`engine.qa`) and the spelling check
(:mod:`engine.spelling`), which each make them: neither imports the other for it."""
from __future__ import annotations

from dataclasses import dataclass

#: The group each finding belongs to.
GROUP = {
    "missing-tag": "tags", "extra-tag": "tags", "tag-order": "tags", "tag-overlap": "tags",
    "number": "numbers", "leading-space": "spaces", "trailing-space": "spaces", "double-space": "spaces",
    "end-punctuation": "punctuation", "untranslated": "untranslated", "empty": "untranslated",
    "source-copied": "untranslated", "inconsistent-target": "consistency", "same-target": "consistency",
    "length": "length", "repeated-word": "repeats", "spelling": "spelling", "no-dictionary": "spelling",
    "term-not-used": "terms", "forbidden-term": "terms", "possible-omission": "omission",
}


@dataclass(frozen=True)
class Issue:
    segment_id: int
    idx: int          # 0-based position in the document (the grid shows idx + 1)
    check: str        # a key of GROUP: "missing-tag", "number", "spelling", ...
    message: str
    severity: str = "error"   # "error" | "warning"

    @property
    def group(self) -> str:
        return GROUP.get(self.check, self.check)

    def to_json(self) -> dict:
        return {"segment_id": self.segment_id, "segment": self.idx + 1, "check": self.check,
                "group": self.group, "message": self.message, "severity": self.severity}
