"""Whether a spreadsheet document is really a glossary, said as a pointer to the command
that imports glossaries (the document is imported all the same: a bilingual table is a job
too, and the translator who meant a glossary learns where it goes)."""

from __future__ import annotations

import re

from engine.formats.base import ParsedSegment

_FIRST_ROW = re.compile(r"!([A-Z]{1,3})1$")
#: A cell's context is "Sheet!B7" (comments, names and drawings say what they are first).
_CELL = re.compile(r"^(?!comment, |name of sheet )[^!]*![A-Z]{1,3}[0-9]+$")
#: Terms are short: a sheet whose cells below the header average more words than this is a
#: document with a header row, not a glossary.
_TERM_WORDS = 4


def glossary_hint(segments: list[ParsedSegment]) -> str:
    """A pointer to ``verso glossary import`` when the first sheet reads as a glossary (a
    header naming source and target, or two languages, over short cells), "" otherwise: the
    workbook is still imported, as a document, since a bilingual table is a job too."""
    first = next((sg for sg in segments if _CELL.match(sg.context)), None)
    if first is None:
        return ""
    sheet = first.context.rsplit("!", 1)[0]
    cells = [sg for sg in segments if sg.context.startswith(f"{sheet}!") and _CELL.match(sg.context)]
    header = sorted((m.group(1).rjust(3), sg.source.plain()) for sg in cells if (m := _FIRST_ROW.search(sg.context)))
    if len(header) < 2:
        return ""
    from engine.glossary.layout import glossary_header

    named = glossary_header([text for _, text in header])
    body = [len(sg.source.plain().split()) for sg in cells if not _FIRST_ROW.search(sg.context)]
    if not named or not body or sum(body) / len(body) > _TERM_WORDS:
        return ""
    return (f"the first sheet reads as a glossary ({named}): to use it as one, "
            "`verso glossary import FILE --glossary DIR`; imported as a document")
