"""TBX-Basic writing of glossary entries (:func:`write_tbx`), the writer of
:func:`engine.glossary.formats.write_glossary_file` for ``.tbx``."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable
from xml.sax.saxutils import quoteattr as _quoteattr

from lxml import etree

from engine.fsutil import atomic_write
from engine.glossary.model import GlossaryEntry

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def write_tbx(path: str | Path, entries: Iterable[GlossaryEntry], *, src_lang: str, tgt_lang: str) -> int:
    """Write ``entries`` as TBX-Basic (v2 ``martif``); entries sharing a concept
    and the same targets become one ``termEntry``.  Returns the number of concepts."""
    groups: dict[tuple, list[GlossaryEntry]] = {}
    for e in entries:
        cid = e.concept or f"e{e.id if e.id is not None else len(groups) + 1}"
        groups.setdefault((cid, e.targets, e.forbidden), []).append(e)
    used: dict[str, int] = {}
    sts = {"preferred": "preferredTerm-admn-sts", "admitted": "admittedTerm-admn-sts",
           "deprecated": "deprecatedTerm-admn-sts"}

    def term_group(parent, text: str, pos: str = "", status: str = "", note: str = ""):
        tig = etree.SubElement(parent, "tig")
        etree.SubElement(tig, "term").text = text
        if pos:
            tn = etree.SubElement(tig, "termNote", type="partOfSpeech")
            tn.text = pos
        if status:
            tn = etree.SubElement(tig, "termNote", type="administrativeStatus")
            tn.text = sts[status]
        if note:
            etree.SubElement(tig, "note").text = note

    with atomic_write(path, "wb") as fh:
        # The root is written by hand: lxml's xmlfile gives xml:lang on a streamed element a wrong prefix.
        fh.write(b'<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX-Basic" xml:lang=' +
                 _quoteattr(src_lang).encode("utf-8") + b'>\n')
        hdr = etree.Element("martifHeader")
        fd = etree.SubElement(hdr, "fileDesc")
        sd = etree.SubElement(fd, "sourceDesc")
        etree.SubElement(sd, "p").text = "Exported by Verso"
        etree.indent(hdr, level=1)
        fh.write(b"  " + etree.tostring(hdr, encoding="utf-8") + b"\n  <text>\n    <body>\n")
        for (cid, targets, forbidden), members in groups.items():
            n = used.get(cid, 0)
            used[cid] = n + 1
            te = etree.Element("termEntry", id=cid if n == 0 else f"{cid}-{n + 1}")
            ls = etree.SubElement(te, "langSet", {XML_LANG: src_lang})
            for e in members:
                term_group(ls, e.source, e.pos, e.status, e.note)
            ls = etree.SubElement(te, "langSet", {XML_LANG: tgt_lang})
            for t in targets:
                term_group(ls, t)
            for t in forbidden:
                term_group(ls, t, status="deprecated")
            etree.indent(te, level=3)
            fh.write(b"      " + etree.tostring(te, encoding="utf-8") + b"\n")
        fh.write(b"    </body>\n  </text>\n</martif>\n")
    return len(groups)
