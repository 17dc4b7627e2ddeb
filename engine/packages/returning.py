"""The return package of a project opened from a package (see :mod:`engine.packages`)."""
from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ProjectError
from engine.formats.package import Package
from engine.fsutil import atomic_write
from engine.packages import memoq, trados, trados_return
from engine.packages.opening import KINDS, package_record
from engine.packages.sdlxliffcheck import check_returned


@dataclass(frozen=True)
class Returned:
    """A return package written: its path ``out``, its ``kind`` (extension) and the received
    names of the ``files`` in it."""

    out: Path
    kind: str
    files: tuple[str, ...]

    def to_json(self) -> dict:
        return {"out": str(self.out), "kind": self.kind, "files": list(self.files)}


def return_package(project, out: str | Path, *, force: bool = False) -> Returned:
    """Write the return package of ``project`` to ``out``: the files the translator worked on,
    exported through their formats' writers under their received names (and, for Trados, the
    project file marked as returned).  Each export passes the project's export gate
    (:meth:`~engine.store.project.Project.export_document`: tag errors refuse it unless ``force``)
    before anything is written; a returned SDLXLIFF must keep what Trados reads of it
    (:func:`engine.packages.sdlxliffcheck.check_returned`), or nothing is written."""
    out = Path(out)
    rec = package_record(project)
    if rec is None:
        raise ProjectError(f"{project.folder}: this project was not opened from a package "
                           "(verso package open PKG --project DIR)")
    received = project.folder / rec.received
    if not received.is_file():
        raise ProjectError(f"{project.folder}: the received package is missing ({received})")
    worked = [f for f in rec.files if project.translations(f.document)]
    if not worked:
        raise ProjectError(f"{project.folder}: no file has been worked on yet; nothing to return")
    kind = rec.kind
    want = KINDS[kind]
    if out.suffix.lower() != want:
        raise ProjectError(f"{out}: a return package of a {kind} package is a {want} file")
    pkg = Package(received)
    with tempfile.TemporaryDirectory(prefix="verso-return-") as tmp:
        exported: dict[str, bytes] = {}
        for i, f in enumerate(worked):
            doc_out = Path(tmp) / f"{i}{Path(f.inner or f.member).suffix}"
            project.export_document(f.document, doc_out, force=force)  # the export gate, file by file
            data = doc_out.read_bytes()
            if kind == ".sdlppx" and f.member.lower().endswith(".sdlxliff"):  # what Trados' reader needs
                check_returned(f.member, pkg.read(f.member), data)
            if f.inner:  # a document inside an .mqxlz: the .mqxlz rebuilt around it
                outer = received if kind == ".mqxlz" else Path(tmp) / f"{i}.outer"
                if kind != ".mqxlz":
                    outer.write_bytes(pkg.read(f.member))
                rebuilt = Path(tmp) / f"{i}.mqxlz"
                memoq.rebuild_mqxlz(outer, f.inner, data, rebuilt)
                data = rebuilt.read_bytes()
            exported[f.member] = data
        if kind == ".mqxlz":
            with atomic_write(out, "wb") as fh:
                fh.write(exported[rec.files[0].member])
            return Returned(out, want, tuple(exported))
        members = dict(exported)
        if kind == ".sdlppx":
            proj = trados.read_sdlproj(pkg)
            target = next((t for t in proj.targets if t.lower() == _folder(worked[0].member).lower()),
                          proj.targets[0])
            members[proj.member] = trados_return.return_sdlproj(pkg.read(proj.member), proj, target, exported)
        _write_zip(out, pkg, members)
    return Returned(out, want, tuple(exported))


def _folder(member: str) -> str:
    return member.split("/", 1)[0] if "/" in member else ""


def _write_zip(out: Path, pkg: Package, members: dict[str, bytes]) -> None:
    """A zip of ``members`` in the received package's order, each with its received name, date and
    compression."""
    with atomic_write(out, "wb") as fh:
        with zipfile.ZipFile(fh, "w") as z:
            for info in pkg.infos:
                if info.filename in members:
                    z.writestr(info, members[info.filename], compress_type=info.compress_type)
