"""XLIFF 1.2 documents (and 1.0/1.1, SDLXLIFF, memoQ mqxliff: all XLIFF 1.x).

Reading
    Every ``<trans-unit>`` gives segments; ``translate="no"`` (on itself or the
    nearest ``<group>``), SDL ``locked`` and memoQ ``mq:locked`` make them locked
    (:mod:`~engine.formats.xlifflocks`).  With a ``<seg-source>`` holding
    ``<mrk mtype="seg">`` there is one segment per mrk (key
    ``"<unit id>#<mid>"``), otherwise one per unit (key = unit id; a missing
    or repeated id gets a stable synthesized key, see
    :class:`~engine.formats.xliffcommon.KeyMaker`).  Inline codes become
    protected tags; each keeps its element's XML in ``Tag.original``.  Segments
    with no text to translate (only codes or whitespace) are not segments.

Status
    SDL ``<sdl:seg conf>``, memoQ ``mq:status``, ``approved="yes"`` and the
    ``<target state>`` are read in that order of precedence::

        new, needs-translation (or empty target)        -> new
        needs-review-*, needs-adaptation, needs-l10n    -> draft
        translated, signed-off, final, approved="yes"   -> confirmed

    (``translated`` is what a translator's confirmation is called in XLIFF 1.2.)
    The raw values are kept in ``meta``.

Writing
    The original file is parsed again; each translated segment's ``<target>``
    (or the ``<mrk>`` in it) is replaced, tag ``n`` of the translation being the
    source's code ``n``; the state is written in the file's own convention
    (SDL ``conf``, ``mq:status``, or ``state``: ``translated`` /
    ``needs-review-translation`` / ``needs-translation``), keeping a raw value
    that already means the same status.  Everything else is kept.  As
    Trados Studio does, an SDL segment whose text the translator changed
    becomes ``origin="interactive"``, what it was (MT, a TM match with its
    percent) kept as ``<sdl:prev-origin>``; one confirmed unchanged keeps its origin.

    The file is not re-serialised: the edited targets, the status
    attributes set and a new ``<target>`` (after ``</source>`` or
    ``</seg-source>``, with the indentation before the source) are spliced
    into the original bytes (:mod:`engine.formats.xmlsplice`), so an export
    with nothing edited is the original file byte for byte and an edited one
    differs only inside the edited units.  A segment absent from
    ``translations`` (one the translator did not touch) is not written at
    all, SDL ``conf``/``origin`` and memoQ ``mq:status`` included, and
    ``target-language`` is only added to a ``<file>`` that receives a
    translation.  An edited target is rebuilt from the codes of the target
    already in the file where it has them (see
    :mod:`engine.formats.xliffcommon`), so codes only the target has are kept.

Tracked changes and protected text
    What the translator sees is the text as it would read with the changes
    accepted, the changes themselves kept as codes so that they come back:

    * a deletion (SDL ``<mrk mtype="x-sdl-deleted">``, memoQ
      ``<mrk mtype="x-mq-tc" mq:tctype="del">``) is one opaque code labelled
      ``deleted``: its text is not live text (not counted, not matched, not
      sent to MT), the code puts the markup back, and removing the code
      accepts the deletion;
    * an insertion (``x-sdl-added``, memoQ ``tctype="ins"``) is a pair labelled
      ``inserted`` around its text, which is live;
    * ``<mrk mtype="protected">`` (text that must not be translated) is one
      opaque code labelled ``protected``, so its text cannot be edited.

Modules
    This one reads and writes; the tree and its segments are
    :mod:`~engine.formats.xliff12_doc`, the statuses (SDL, memoQ, plain 1.2)
    :mod:`~engine.formats.xliff12_status`, the edited units' splicing
    :mod:`~engine.formats.xliff12_write`.
"""
from __future__ import annotations

from pathlib import Path

from lxml import etree

from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.formats.xliff12_doc import Doc, Site, extract
from engine.formats.xliff12_status import MQ_NS, MQ_STATUS, SDL_NS, variant
from engine.formats.xliff12_write import Writer, changes
from engine.formats.xlifflocks import tool_locked, translate_no
from engine.formats.xliff_revisions import write_rev_defs
from engine.formats.xmlsplice import Splice, collector_paused, copy_file
from engine.formats.xliffcommon import inner_text, localname, sniff_version, write_tree
from engine.langs import normalize_lang

__all__ = ["FORMAT", "MQ_NS", "MQ_STATUS", "SDL_NS", "Xliff12Format"]
_SCOPES = ("trans-unit", "group")  # where translate="no" is inherited from
# the names this module had before it was split by job (engine/formats/comments_xliff.py, tests)
_Doc, _Site, _extract = Doc, Site, extract


# ------------------------------------------------------------------ format
class Xliff12Format:
    """Reader/writer for XLIFF 1.x files (see the module docstring)."""

    name = "xliff12"
    extensions = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".txlf")

    def sniff(self, path: Path, head: bytes) -> bool:
        v = sniff_version(head)
        if v is None:
            return Path(path).suffix.lower() in self.extensions  # root beyond the head
        return v in ("1", "")

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        path = Path(path)
        doc = Doc(path)
        first_file = doc.root.find(doc.q("file"))
        fsrc = first_file.get("source-language") if first_file is not None else None
        ftgt = first_file.get("target-language") if first_file is not None else None
        out = ParsedDocument(
            path=str(path), format=self.name,
            src_lang=normalize_lang(fsrc or src_lang), tgt_lang=normalize_lang(ftgt or tgt_lang),
            meta={"variant": variant(doc.root), "version": doc.root.get("version", "")},
            problems=list(doc.problems),
        )
        for site in doc.sites:
            target = doc.read_target(site)
            status, meta = doc.status(site, target)
            meta["unit"] = site.unit.get("id", "")
            if site.mid is not None:
                meta["mid"] = site.mid
            notes = [inner_text(n).strip() for n in site.unit.findall(doc.q("note"))]
            out.segments.append(ParsedSegment(
                key=site.key, source=site.ext.text, target=target, status=status,
                note="\n".join(n for n in notes if n), context=site.unit.get("resname", ""),
                meta=meta, locked=translate_no(site.unit, _SCOPES) or tool_locked(site.unit, doc.sdl_seg(site)),
            ))
        return out

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "") -> None:
        with collector_paused():
            self._write(Path(original), Path(out), translations, tgt_lang)

    def _write(self, original: Path, out: Path, translations: dict[str, Translation], tgt_lang: str) -> None:
        doc = Doc(original)
        translations, text_edited = changes(doc, translations)
        by_unit: dict[int, list[Site]] = {}
        units: dict[int, etree._Element] = {}
        for site in doc.sites:
            by_unit.setdefault(id(site.unit), []).append(site)
            units[id(site.unit)] = site.unit
        edited = [uid for uid, sites in by_unit.items()
                  if any(s.key in translations for s in sites)]
        if not edited:  # untouched: the original bytes
            copy_file(original, out)
            return
        files = list(dict.fromkeys(by_unit[uid][0].file_el for uid in edited))
        sp = Splice(original, doc.tree, [units[uid] for uid in edited], files, by_element=True)
        for uid in edited:
            with sp.element(units[uid]):
                Writer(doc, units[uid], by_unit[uid], translations, tgt_lang, out, sp,
                       text_edited).apply()
        if tgt_lang:
            for f in files:
                if localname(f) == "file" and not f.get("target-language"):
                    sp.set(f, "target-language", tgt_lang)
        sp.write(out, lambda: write_tree(doc.tree, original, out))
        write_rev_defs(out, doc.root, translations)  # a reviewer's tracked changes (engine/review/export.py)


FORMAT = Xliff12Format()
