"""Comments written into an exported Word document as Word comments.

Each comment is a ``w:comment`` (author, initials, date, its text one ``w:p`` a line) in the
document's comments part (``word/comments.xml``, made with its relationship and content type
when the document has none), anchored on the whole paragraph of its segment: a
``w:commentRangeStart`` after the paragraph's properties, a ``w:commentRangeEnd`` and a run with
the ``w:commentReference`` at its end.  Comments on paragraphs of the main document are written;
Word has no comments in headers and footers, so those stay in the project.  Every other member
of the package, and every other paragraph's bytes (engine/formats/partsplice.py), are left as the
writer wrote them.
"""
from __future__ import annotations

import posixpath
import re
import zipfile
from pathlib import Path

from lxml import etree

from engine.formats.comments_export import ExportComment
from engine.formats.package import Package, xml_bytes
from engine.formats.partsplice import PartSplice

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
COMMENTS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"
COMMENTS_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
_KEY = re.compile(r"^(.*):p(\d+)\.s\d+$")


def w(name: str) -> str:
    return f"{{{W}}}{name}"


def write_docx_comments(out: Path, comments: dict[str, list[ExportComment]]) -> None:
    """Add ``comments`` (by segment key) to the DOCX package ``out`` as Word comments."""
    from engine.formats.docx import MC_FALLBACK, _main_part

    out = Path(out)
    added: dict[str, bytes] = {}
    with Package(out) as pkg:
        main = _main_part(pkg)
        by_para: dict[int, list[ExportComment]] = {}
        for key, cs in comments.items():
            m = _KEY.match(key)
            if m and m.group(1) == main:
                by_para.setdefault(int(m.group(2)), []).extend(cs)
        if not by_para:
            return
        splice = PartSplice(pkg, main)  # only the commented paragraphs' bytes change
        tree = splice.tree
        paras = [p for p in tree.getroot().iter(w("p"))
                 if not any(a.tag == MC_FALLBACK for a in p.iterancestors())]
        folder = posixpath.dirname(main)
        rels_name = posixpath.join(folder, "_rels", posixpath.basename(main) + ".rels")
        rels = pkg.xml(rels_name) if pkg.has(rels_name) else None
        target = _comments_target(rels)
        part = posixpath.normpath(posixpath.join(folder, target or "comments.xml"))
        ctree = pkg.xml(part) if pkg.has(part) else None
        croot = ctree.getroot() if ctree is not None else etree.Element(w("comments"), nsmap={"w": W})
        used = [int(c.get(w("id"))) for c in croot.iter(w("comment")) if (c.get(w("id")) or "").isdigit()]
        used += [int(e.get(w("id"))) for e in tree.getroot().iter(w("commentRangeStart"), w("commentReference"))
                 if (e.get(w("id")) or "").isdigit()]
        next_id = max(used, default=-1) + 1
        for n, cs in sorted(by_para.items()):
            if not 1 <= n <= len(paras):
                continue
            splice.edit(paras[n - 1])
            for c in cs:
                _anchor(paras[n - 1], next_id)
                croot.append(_comment(next_id, c))
                next_id += 1
        replaced = {main: splice.data()}
        cbytes = xml_bytes(ctree) if ctree is not None else _standalone(croot)
        if ctree is not None:
            replaced[part] = cbytes
        else:
            added[part] = cbytes
            if rels is None:
                rels = etree.ElementTree(etree.Element(f"{{{PKG_REL}}}Relationships", nsmap={None: PKG_REL}))
                added[rels_name] = b""
            _add_rel(rels.getroot(), posixpath.relpath(part, folder))
            (added if rels_name in added else replaced)[rels_name] = _standalone(rels.getroot())
            types = pkg.xml("[Content_Types].xml")
            _add_override(types.getroot(), "/" + part)
            replaced["[Content_Types].xml"] = xml_bytes(types)
        pkg.write(out, replaced)
    if added:
        with zipfile.ZipFile(out, "a", compression=zipfile.ZIP_DEFLATED) as z:
            for name, data in added.items():
                z.writestr(name, data)


def _comments_target(rels) -> str | None:
    if rels is None:
        return None
    for rel in rels.getroot():
        if rel.get("Type") == COMMENTS_REL and rel.get("TargetMode") != "External":
            return rel.get("Target", "").lstrip("/")
    return None


def _anchor(p, cid: int) -> None:
    ppr = p.find(w("pPr"))
    start = etree.Element(w("commentRangeStart"))
    start.set(w("id"), str(cid))
    p.insert(list(p).index(ppr) + 1 if ppr is not None else 0, start)
    end = etree.SubElement(p, w("commentRangeEnd"))
    end.set(w("id"), str(cid))
    run = etree.SubElement(p, w("r"))
    ref = etree.SubElement(run, w("commentReference"))
    ref.set(w("id"), str(cid))


def _comment(cid: int, c: ExportComment) -> etree._Element:
    el = etree.Element(w("comment"))
    el.set(w("id"), str(cid))
    el.set(w("author"), c.author or "Verso")
    el.set(w("date"), _word_date(c.date))
    el.set(w("initials"), "".join(part[0] for part in (c.author or "V").split() if part)[:4].upper())
    for line in c.text.splitlines() or [""]:
        p = etree.SubElement(el, w("p"))
        t = etree.SubElement(etree.SubElement(p, w("r")), w("t"))
        t.text = line
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return el


def _word_date(iso: str) -> str:
    """``2026-11-27T02:05:09+00:00`` -> ``2026-11-27T02:05:09Z`` (what Word writes)."""
    return re.sub(r"(\.\d+)?(\+00:00|Z)?$", "", iso) + "Z" if iso else ""


def _add_rel(root, target: str) -> None:
    ids = {r.get("Id") for r in root}
    n = 1
    while f"rId{n}" in ids:
        n += 1
    rel = etree.SubElement(root, f"{{{PKG_REL}}}Relationship")
    rel.set("Id", f"rId{n}")
    rel.set("Type", COMMENTS_REL)
    rel.set("Target", target)


def _add_override(root, part_name: str) -> None:
    if any(o.get("PartName") == part_name for o in root.iter(f"{{{CT_NS}}}Override")):
        return
    o = etree.SubElement(root, f"{{{CT_NS}}}Override")
    o.set("PartName", part_name)
    o.set("ContentType", COMMENTS_TYPE)


def _standalone(root) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
