"""What the glossary file readers and writers share: a cell's or element's text on one
line, a status word as the model's status, and which extensions are OmegaT's glossary."""
from __future__ import annotations

import re

OMEGAT_EXTENSIONS = (".txt", ".utf8", ".tab")

_STATUS_WORDS = {
    "preferred": "preferred", "preferredterm": "preferred", "preferredterm-admn-sts": "preferred",
    "admitted": "admitted", "admittedterm": "admitted", "admittedterm-admn-sts": "admitted",
    "deprecated": "deprecated", "deprecatedterm": "deprecated", "deprecatedterm-admn-sts": "deprecated",
    "superseded": "deprecated", "supersededterm": "deprecated", "supersededterm-admn-sts": "deprecated",
    "notrecommended": "deprecated", "obsolete": "deprecated", "forbidden": "deprecated",
}


def _status(value: str) -> str:
    """A TBX / spreadsheet status word as ``preferred`` / ``admitted`` / ``deprecated`` ('' if unknown)."""
    return _STATUS_WORDS.get(re.sub(r"[\s_]", "", (value or "").strip().lower()), "")


def _one_line(s: str | None) -> str:
    return " ".join((s or "").split())
