"""``verso review ...``: a reviewer's pass -- the quality report, two versions compared, tracked changes."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    rv = sub.add_parser("review", help="quality report (LQA), compare two versions, tracked changes",
                        description="A reviewer's pass over a project's documents.")
    rsub = rv.add_subparsers(dest="review_command", metavar="ACTION")
    p = rsub.add_parser("report", help="the LQA quality report of a document (HTML or CSV by --out's extension)",
                        description="Errors by MQM category and severity, penalty points per 1,000 source words "
                                    "and pass/fail against the project's lqa_threshold. Prints a JSON summary.")
    p.add_argument("project", type=Path, metavar="PROJECT")
    p.add_argument("--doc", default=None, metavar="N", help="document id or name (default: the only one)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="report.html or report.csv")
    p.set_defaults(handler=_report)
    p = rsub.add_parser("compare", help="two exports of one document, segment by segment (HTML)",
                        description="Compare two versions of one document segment by segment; writes an HTML "
                                    "difference and prints a JSON summary.")
    p.add_argument("a", type=Path, metavar="A")
    p.add_argument("b", type=Path, metavar="B")
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="HTML file (default: none, summary only)")
    p.set_defaults(handler=_compare)
    p = rsub.add_parser("changes", help="accept or reject a document's tracked changes, or list them",
                        description="A document's tracked changes (Review ▸ Track Changes): list (JSON), accept "
                                    "or reject them all.")
    p.add_argument("project", type=Path, metavar="PROJECT")
    p.add_argument("action", choices=("list", "accept", "reject", "on", "off"))
    p.add_argument("--doc", default=None, metavar="N")
    p.set_defaults(handler=_changes)


def _document(project, ref):
    from engine.errors import ProjectError

    if ref is None:
        docs = project.documents()
        if len(docs) != 1:
            raise ProjectError(f"{project.folder}: {len(docs)} documents; name one with --doc")
        return docs[0]
    return project.document(int(ref) if str(ref).isdigit() else ref)


def _report(args) -> int:
    from engine.cli import print_json
    from engine.review import report
    from engine.store import Project

    with Project.open(args.project) as p:
        rep = report.build(p, _document(p, args.doc).id)
        report.write(rep, args.out)
    print_json({**rep.summary(), "out": str(args.out)})
    return 0


def _compare(args) -> int:
    from engine.cli import print_json
    from engine.fsutil import atomic_write
    from engine.review.compare import compare, to_html

    pairs = compare(args.a, args.b)
    if args.out:
        with atomic_write(args.out, "w", encoding="utf-8") as f:
            f.write(to_html(pairs, str(args.a), str(args.b)))
    states = [p.state for p in pairs]
    print_json({s: states.count(s) for s in ("changed", "same", "added", "removed")}
               | {"out": str(args.out) if args.out else None})
    return 0


def _changes(args) -> int:
    from engine.cli import print_json
    from engine.review.changes import TrackedChanges, set_tracking
    from engine.store import Project

    with Project.open(args.project) as p:
        if args.action in ("on", "off"):
            set_tracking(p, args.action == "on")
            print_json({"track_changes": args.action == "on"})
            return 0
        doc = _document(p, args.doc)
        tc = TrackedChanges(p)
        if args.action == "list":
            print_json([{"segment": p.segment(sid).idx + 1, "author": t.author, "at": t.at,
                         "changes": [{"kind": c.kind, "text": t.target.with_text(c.text).display()}
                                     for c in t.changes()]} for sid, t in tc.in_document(doc.id).items()])
            return 0
        n = tc.accept_document(doc.id) if args.action == "accept" else tc.reject_document(doc.id)
        print_json({args.action + "ed": n})
    return 0
