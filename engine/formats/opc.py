"""Office Open XML packages (OPC): a part's relationships, the links between the parts of a PPTX or XLSX."""
from __future__ import annotations

import posixpath
from pathlib import Path

from engine.formats.package import Package, is_zip, member_head

#: The one relationship type Office names outside the officeDocument namespace that Verso follows.
_DIAGRAM_DRAWING = "http://schemas.microsoft.com/office/2007/relationships/diagramDrawing"


def rels(pkg: Package, part: str) -> dict[str, tuple[str, str]]:
    """``{rId: (type's last word, target part)}`` of ``part`` (``""``: the package's own); external
    targets (web links) left out."""
    folder, base = posixpath.split(part)
    name = posixpath.join(folder, "_rels", base + ".rels")
    if not pkg.has(name):
        return {}
    out = {}
    for rel in pkg.xml(name).getroot():
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target", "")
        target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        typ = rel.get("Type", "")
        out[rel.get("Id", "")] = ("diagramDrawing" if typ == _DIAGRAM_DRAWING else typ.rsplit("/", 1)[-1], target)
    return out


def sniff_ooxml(path: str | Path, head: bytes, folder: bytes, kind: bytes, extensions: tuple[str, ...]) -> bool:
    """Whether a file is an Office Open XML package of one kind: a zip whose first bytes name its
    ``folder`` (``ppt/``, ``xl/``), else whose ``[Content_Types].xml`` names ``kind``
    (``presentationml``, ``spreadsheetml``), else -- no content types -- by its extension."""
    if not is_zip(head):
        return False
    if folder in head:
        return True
    ct = member_head(path, "[Content_Types].xml", 65536) or b""
    return kind in ct or (not ct and Path(path).suffix.lower() in extensions)
