"""Open comments written into an exported file, where its format has a place for them.

After a document's writer has written the file, each comment goes into the unit or paragraph
its segment key names (:func:`engine.store.comments.write_with_comments` hands them over):
XLIFF 1.2 ``<note from="AUTHOR">`` in the ``<trans-unit>``, XLIFF 2.0 ``<note category="comment">``
in the unit's ``<notes>`` (:mod:`engine.formats.comments_xliff`), a PO translator comment line ``# ...`` before the entry
(:mod:`engine.formats.comments_po`), a Word comment anchored on the paragraph
(:mod:`engine.formats.comments_docx`).  Only those places change; a format not in
:data:`FORMATS` keeps its comments in the project.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExportComment:
    author: str
    text: str
    date: str  # ISO 8601, UTC


#: The formats whose files keep comments.
FORMATS = ("xliff12", "xliff20", "po", "docx", "docx-reject")


def has_place(format: str) -> bool:
    """True when a comment on a segment of this format is written into the exported file."""
    return format in FORMATS


__all__ = ["ExportComment", "FORMATS", "has_place"]
