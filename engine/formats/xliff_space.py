"""XML whitespace of XLIFF segments: ``xml:space``, collapsing on reading, and the
ends' whitespace a reader trims, which a writer puts back around a new target.
"""
from __future__ import annotations

import re

from engine.inline import TaggedText

XML_NS = "http://www.w3.org/XML/1998/namespace"
XML_SPACE = f"{{{XML_NS}}}space"
XML_LANG = f"{{{XML_NS}}}lang"


def preserve_space(el) -> bool:
    """True when the nearest ``xml:space`` on ``el`` or an ancestor is ``preserve``."""
    while el is not None:
        v = el.get(XML_SPACE)
        if v is not None:
            return v == "preserve"
        el = el.getparent()
    return False


_XML_WS = re.compile(r"[ \t\r\n]+")


def normalize(tt: TaggedText, preserve: bool) -> TaggedText:
    """Collapse XML whitespace runs and trim the ends unless ``preserve``."""
    if preserve:
        return tt
    return TaggedText(_XML_WS.sub(" ", tt.text).strip(" "), tt.tags)


_LEAD = re.compile(r"^[ \t\r\n]*")
_TRAIL = re.compile(r"[ \t\r\n]*$")


def edges(tt: TaggedText) -> tuple[str, str]:
    """The whitespace at the start and at the end of ``tt`` (as in the file)."""
    text = tt.text
    lead = _LEAD.match(text).group(0)
    if lead == text:
        return lead, ""
    return lead, _TRAIL.search(text).group(0)


def keep_edges(target: TaggedText, lead: str, trail: str) -> TaggedText:
    """``target`` with the whitespace reading trimmed (``lead``/``trail``) put
    back, unless the translation has whitespace of its own at that end."""
    text = target.text
    if not text:
        return target
    if lead and not _LEAD.match(text).group(0):
        text = lead + text
    if trail and not _TRAIL.search(text).group(0):
        text = text + trail
    return TaggedText(text, target.tags)
