"""``verso doc ...`` and ``verso project ...``: documents in a project folder."""
from __future__ import annotations

import argparse
from pathlib import Path

from engine.errors import ProjectError


def register(sub: argparse._SubParsersAction) -> None:
    doc = sub.add_parser("doc", help="import, list and export documents of a project",
                         description="Import, list and export the documents of a Verso project.")
    dsub = doc.add_subparsers(dest="doc_command", metavar="ACTION")

    p = dsub.add_parser("import", help="import a file (TXT, XLIFF 1.2/2.0, PO, TSV/CSV) into a project",
                        description="Import a document into a project (created when missing; then "
                                    "--src-lang and --tgt-lang are required). Prints a JSON summary.")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--project", type=Path, required=True, metavar="DIR", help="project folder")
    p.add_argument("--src-lang", default="", metavar="L", help="source language (e.g. en)")
    p.add_argument("--tgt-lang", default="", metavar="L", help="target language (e.g. de)")
    p.add_argument("--format", default=None, help="force a format (txt, xliff12, xliff20, po, tabular)")
    p.set_defaults(handler=_import)

    p = dsub.add_parser("export", help="write a document back in its original format, translated",
                        description="Write the translated document in its original format.")
    p.add_argument("document", metavar="DOCUMENT", help="document id or name (see `verso doc list`)")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.add_argument("--out", type=Path, required=True, metavar="FILE")
    p.set_defaults(handler=_export)

    p = dsub.add_parser("list", help="list the documents of a project (JSON)")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.set_defaults(handler=_list)

    proj = sub.add_parser("project", help="create or inspect a project folder")
    psub = proj.add_subparsers(dest="project_command", metavar="ACTION")
    p = psub.add_parser("create", help="create an empty project")
    p.add_argument("folder", type=Path, metavar="DIR")
    p.add_argument("--src-lang", required=True, metavar="L")
    p.add_argument("--tgt-lang", required=True, metavar="L")
    p.add_argument("--name", default="")
    p.set_defaults(handler=_create)
    p = psub.add_parser("info", help="languages, documents and segment counts (JSON)")
    p.add_argument("folder", type=Path, metavar="DIR")
    p.set_defaults(handler=_info)


def _open(folder: Path, src: str = "", tgt: str = ""):
    from engine.store import Project

    if (folder / "project.verso").exists():
        return Project.open(folder)
    if not (src and tgt):
        raise ProjectError(f"{folder}: no project here; pass --src-lang and --tgt-lang to create one")
    return Project.create(folder, src_lang=src, tgt_lang=tgt)


def _import(a) -> int:
    from engine.cli import print_json

    if not a.file.is_file():
        raise ProjectError(f"{a.file}: no such file")
    with _open(a.project, a.src_lang, a.tgt_lang) as p:
        doc_id = p.import_document(a.file, src_lang=a.src_lang, tgt_lang=a.tgt_lang, format=a.format)
        info = p.document(doc_id)
        print_json({"document_id": doc_id, "name": info.name, "format": info.format,
                    "src_lang": info.src_lang, "tgt_lang": info.tgt_lang,
                    "segments": info.segment_count, "confirmed": info.confirmed_count,
                    "problems": info.meta.get("problems", [])})
    return 0


def _export(a) -> int:
    from engine.cli import print_json

    with _open(a.project) as p:
        info = p.document(a.document)
        p.export_document(info.id, a.out)
        print_json({"document_id": info.id, "out": str(a.out), "format": info.format,
                    "translated": sum(1 for s in p.segments(info.id) if s.target.text)})
    return 0


def _doc_json(d) -> dict:
    return {"id": d.id, "name": d.name, "format": d.format, "src_lang": d.src_lang, "tgt_lang": d.tgt_lang,
            "segments": d.segment_count, "confirmed": d.confirmed_count, "imported_at": d.imported_at}


def _list(a) -> int:
    from engine.cli import print_json

    with _open(a.project) as p:
        print_json([_doc_json(d) for d in p.documents()])
    return 0


def _create(a) -> int:
    from engine.cli import print_json
    from engine.store import Project

    with Project.create(a.folder, src_lang=a.src_lang, tgt_lang=a.tgt_lang, name=a.name) as p:
        print_json({"project": str(a.folder), "name": p.name, "src_lang": p.src_lang, "tgt_lang": p.tgt_lang})
    return 0


def _info(a) -> int:
    from engine.cli import print_json

    with _open(a.folder) as p:
        print_json({"project": str(a.folder), "name": p.name, "src_lang": p.src_lang, "tgt_lang": p.tgt_lang,
                    "counts": p.counts(), "documents": [_doc_json(d) for d in p.documents()]})
    return 0
