"""memoQ packages: a handoff package (``.mqout``, returned as ``.mqback``) and a zipped document
(``.mqxlz``: the bilingual ``document.mqxliff`` beside its skeleton, returned as an ``.mqxlz``).

Both are zips.  The bilingual documents of a handoff package are its ``.mqxliff`` members and the
``.mqxliff`` inside each ``.mqxlz`` member; every zip, outer or inner, goes through the same guard
(:class:`engine.formats.package.Package`: bombs, ``../`` members, too many members).  A returned
``.mqxlz`` keeps every member but the document byte for byte, in the received order.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

from engine.formats.package import Package

KINDS = {".mqout": ".mqback", ".mqxlz": ".mqxlz"}


def document_member(pkg: Package) -> str | None:
    """The bilingual document of an .mqxlz: its (first) .mqxliff member."""
    return next((n for n in pkg.names() if n.lower().endswith(".mqxliff")), None)


def bilingual_members(pkg: Package) -> list[str]:
    """The members of a handoff package that are bilingual documents (.mqxliff or .mqxlz)."""
    return [n for n in pkg.names() if n.lower().endswith((".mqxliff", ".mqxlz"))]


def rebuild_mqxlz(received: Path, inner: str, document: bytes, out: Path) -> None:
    """``received`` (an .mqxlz) with its member ``inner`` replaced by ``document``; every other member
    copied byte for byte (same order, compression and dates)."""
    pkg = Package(received)
    with zipfile.ZipFile(out, "w") as z:
        for info in pkg.infos:
            z.writestr(info, document if info.filename == inner else pkg.read(info.filename),
                       compress_type=info.compress_type)
