"""``verso seg ...``: a project's sentence rules (SRX).  No torch."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    seg = sub.add_parser("seg", help="sentence rules (SRX): import a translator's rules, show, split a text",
                         description="Sentence segmentation rules. Verso's default rules are an SRX file; "
                                     "a project can use your own (SRX 2.0, as OmegaT and Okapi write them) "
                                     "for the documents imported from then on.")
    ssub = seg.add_subparsers(dest="seg_command", metavar="ACTION")
    p = ssub.add_parser("import-srx", help="use an SRX file's rules in a project (checked strictly first)",
                        description="Check FILE strictly (a malformed file is refused in one line naming the "
                                    "line) and make it the project's sentence rules for the documents "
                                    "imported from then on; documents already imported keep theirs. "
                                    "Prints a JSON summary.")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.set_defaults(handler=_import)
    p = ssub.add_parser("reset", help="go back to Verso's default rules in a project")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.set_defaults(handler=_reset)
    p = ssub.add_parser("show", help="the rules used for a language (JSON): where from, rule sets, rules")
    p.add_argument("--project", type=Path, default=None, metavar="DIR", help="the project's rules (default: "
                   "Verso's default rules)")
    p.add_argument("--srx", type=Path, default=None, metavar="FILE", help="an SRX file's rules instead")
    p.add_argument("--lang", default="en", metavar="L")
    p.set_defaults(handler=_show)
    p = ssub.add_parser("split", help="print the sentences of a text, one a line")
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--lang", default="en", metavar="L")
    p.add_argument("--project", type=Path, default=None, metavar="DIR")
    p.add_argument("--srx", type=Path, default=None, metavar="FILE")
    p.set_defaults(handler=_split)


def _project(folder: Path):
    from engine.errors import ProjectError
    from engine.store import Project

    if not (folder / "project.verso").exists():
        raise ProjectError(f"{folder}: no project here")
    return Project.open(folder)


def _import(a) -> int:
    from engine.cli import print_json
    from engine.errors import ProjectError
    from engine.store.segrules import import_srx

    if not a.file.is_file():
        raise ProjectError(f"{a.file}: no such file")
    with _project(a.project) as p:
        rules = import_srx(p, a.file)
    print_json({"project": str(a.project), "rules": list(rules.languagerules),
                "languages": [m for m, _ in rules.maps], "cascade": rules.cascade})
    return 0


def _reset(a) -> int:
    from engine.store.segrules import reset

    with _project(a.project) as p:
        reset(p)
    return 0


def _rules(a):
    from engine.segmentation import active_rules
    from engine.segmentation.srx import parse_srx
    from engine.store.segrules import project_rules

    if a.srx is not None:
        return parse_srx(a.srx)
    if a.project is not None:
        with _project(a.project) as p:
            rules = project_rules(p)
        if rules is not None:
            return rules
    return active_rules()


def _show(a) -> int:
    from engine.cli import print_json

    rules = _rules(a)
    print_json({"source": rules.source, "language": a.lang, "rule_sets": list(rules.names_for(a.lang)),
                "rules": [{"break": r.brk, "before": r.before, "after": r.after, "line": r.line}
                          for r in rules.rules_for(a.lang)]})
    return 0


def _split(a) -> int:
    from engine.segmentation import split_sentences, using_rules

    with using_rules(_rules(a)):
        for s in split_sentences(a.text, a.lang):
            print(s)
    return 0
