"""``verso package ...``: an agency's package opened as a project, and its return package.  No torch."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser("package", help="open a Trados/memoQ package as a project; write its return package",
                       description="Open a Trados project package (.sdlppx) or memoQ package (.mqout, .mqxlz) "
                                   "as a new project, and write the return package (.sdlrpx, .mqback, .mqxlz).")
    gsub = g.add_subparsers(dest="package_command", metavar="ACTION")

    p = gsub.add_parser("open", help="make a project from a package: its files, TMs (read-only), termbases",
                        description="Make a new project from a package: every bilingual file of its target "
                                    "language a document, its TMs attached read-only, its TBX termbases as "
                                    "glossaries. Prints the package's instructions and due date on stderr and a "
                                    "JSON summary on stdout.")
    p.add_argument("package", type=Path, metavar="PKG")
    p.add_argument("--project", type=Path, required=True, metavar="DIR", help="new project folder")
    p.add_argument("--tgt-lang", default="", metavar="L",
                   help="the target language to work on, in a package of several (default: its first)")
    p.set_defaults(handler=_open)

    p = gsub.add_parser("return", help="write the return package of a project opened from a package",
                        description="Write the return package: the files you worked on under their received "
                                    "names (Trados: the project file marked as returned). Tag errors refuse it "
                                    "(exit 3, naming them) as they refuse `verso doc export`.")
    p.add_argument("project", type=Path, metavar="PROJECT")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help=".sdlrpx, .mqback or .mqxlz")
    p.add_argument("--force", action="store_true", help="write it even when targets have tag errors")
    p.set_defaults(handler=_return)


def _open(a) -> int:
    from engine.cli import print_json
    from engine.errors import FormatError
    from engine.packages import open_package

    if not a.package.is_file():
        raise FormatError(a.package, "cannot read: no such file")
    res = open_package(a.package, a.project, tgt_lang=a.tgt_lang)
    for note in res.instructions:
        print(f"verso: {a.package.name}: instructions: {note}", file=sys.stderr)
    if res.due:
        print(f"verso: {a.package.name}: due {res.due}", file=sys.stderr)
    for word in res.skipped:
        print(f"verso: {a.package.name}: {word}", file=sys.stderr)
    print_json(res.to_json())
    return 0


def _return(a) -> int:
    from engine.cli import print_json
    from engine.errors import TagErrorsError
    from engine.packages import return_package
    from engine.store import Project

    with Project.open(a.project) as p:
        try:
            res = return_package(p, a.out, force=a.force)
        except TagErrorsError as e:
            print(f"verso: {e}", file=sys.stderr)
            for i in e.issues[:50]:
                print(f"  segment {i.idx + 1}: {i.message}", file=sys.stderr)
            return 3
    print_json(res.to_json())
    return 0
