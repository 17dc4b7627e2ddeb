"""What the XLIFF 1.2 and XLIFF 2.0 readers/writers share; each job has its module,
whose names are importable from here as well:

* sniffing the root element (``<xliff version=...>`` and its namespace) and
  loading a tree safely, refusing entity references that a not-loaded external
  DTD would have defined: :mod:`engine.formats.xliff_load`;
* ``xml:space`` and the whitespace at a segment's ends: :mod:`engine.formats.xliff_space`;
* turning an element's mixed content into :class:`~engine.inline.TaggedText`
  while remembering which element each tag number came from (:class:`Code`):
  :mod:`engine.formats.xliff_codes`;
* putting a translated :class:`~engine.inline.TaggedText` back as XML content
  (:func:`fill_content`), re-nesting paired codes where the translation keeps
  them well nested and isolating them where it does not: :mod:`engine.formats.xliff_fill`;
* serialising the tree with the original prolog, encoding and BOM
  (:func:`write_tree`), which the writers use only when
  :mod:`engine.formats.xmlsplice` cannot map the original bytes: :mod:`engine.formats.xliff_write`;
* here: unique segment keys (:class:`KeyMaker`) and the status of a unit of several segments.

What is written, and what is not
    A writer only touches the segments it is given a translation for.  A
    segment the translator never touched is absent from ``translations`` and
    its XML stays exactly as it was (no state added, no whitespace trimmed, no
    markup rebuilt): rebuilding it from the reader's view could only lose what
    that view leaves out.  A translation that says what the file already says
    (the target as read, the status as read) counts as untouched too.

    For an edited segment the writer rebuilds the target from the codes of the
    target already in the file where it has them (:func:`remap_target` returns
    them in the source's numbering): an ``<mrk>`` keeps the target's own id and
    type, and codes only the target has (a ``<ph>``, an ``<it>``, a tracked
    change, a protected ``<mrk>``) come back instead of being dropped.  The
    whitespace that reading trims from the ends of a segment (outside
    ``xml:space="preserve"``) is put back around the new target
    (:func:`keep_edges`), so ``"Second one. "`` does not lose the space that
    separates it from the next sentence.

Private-use characters
    Verso's tag placeholders are the characters U+E001..U+F8FF, so a file's own
    private-use character (a Wingdings bullet U+F0A7, a company logo glyph) can
    not stay in the text as itself.  It becomes a standalone code whose
    ``original`` is the character and whose label is ``U+F0A7``
    (:meth:`engine.inline.TaggedTextBuilder.text`); writers put the character back
    as text, never as markup (:func:`engine.inline.is_private_use_tag`).  Refusing such files
    would refuse ordinary Word exports; replacing the character by U+FFFD, as
    before, lost it silently.

Nothing here imports torch or Qt.
"""
from __future__ import annotations

# The shared names, asked of this module by the 1.2 and 2.0 readers/writers:
from engine.formats.xliff_codes import (  # noqa: F401
    Code, Extracted, Extractor, Role, code_label, end_tag, inner_text, outer_xml, start_tag,
)
from engine.formats.xliff_fill import (  # noqa: F401
    append_text, clear_content, fill_content, remap_target, target_codes,
)
from engine.formats.xliff_load import decode_head, load, localname, root_of, sniff_version, where  # noqa: F401
from engine.formats.xliff_space import (  # noqa: F401
    XML_LANG, XML_NS, XML_SPACE, edges, keep_edges, normalize, preserve_space,
)
from engine.formats.xliff_write import write_tree  # noqa: F401

STATUS_RANK = {"new": 0, "draft": 1, "confirmed": 2}


# ------------------------------------------------------------------- keys
class KeyMaker:
    """Unique, deterministic segment keys: a repeated or missing id gets a
    ``~2``, ``~3`` ... suffix that never collides with another raw id."""

    def __init__(self, reserved: set[str]):
        self.reserved = set(reserved)
        self.used: set[str] = set()

    def take(self, base: str) -> str:
        if base not in self.used:
            self.used.add(base)
            return base
        k = 2
        while f"{base}~{k}" in self.used or f"{base}~{k}" in self.reserved:
            k += 1
        key = f"{base}~{k}"
        self.used.add(key)
        return key


def min_status(statuses) -> str:
    return min(statuses, key=lambda s: STATUS_RANK.get(s, 0))
