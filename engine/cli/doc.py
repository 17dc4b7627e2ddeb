"""``verso doc ...`` and ``verso project ...``: documents in a project folder."""
from __future__ import annotations

import argparse
from pathlib import Path

from engine.errors import ProjectError


def register(sub: argparse._SubParsersAction) -> None:
    doc = sub.add_parser("doc", help="import, list and export documents of a project",
                         description="Import, list and export the documents of a Verso project.")
    dsub = doc.add_subparsers(dest="doc_command", metavar="ACTION")

    p = dsub.add_parser("import", help="import a file (TXT, XLIFF 1.2/2.0, PO, TSV/CSV, DOCX, PPTX, XLSX, IDML, ODT/ODS/ODP, HTML, Markdown) into a project",
                        description="Import a document into a project (created when missing, for the "
                                    "languages the file declares or --src-lang/--tgt-lang). A file that "
                                    "declares another language pair than the project's is refused "
                                    "(unless --ignore-declared-languages). "
                                    "Prints a JSON summary.")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--project", type=Path, required=True, metavar="DIR", help="project folder")
    p.add_argument("--src-lang", default="", metavar="L",
                   help="source language (e.g. en) where the file declares none (XLIFF, PO and CSV headers do)")
    p.add_argument("--tgt-lang", default="", metavar="L", help="target language (e.g. de), likewise")
    p.add_argument("--ignore-declared-languages", action="store_true",
                   help="import a file that declares another language pair as the project's pair "
                        "(or --src-lang/--tgt-lang); the file's own language attributes are kept")
    p.add_argument("--format", default=None, help="force a format (txt, xliff12, xliff20, po, tabular, docx, docx-reject: tracked changes refused, pptx, xlsx, idml, odf, odt-reject, html, markdown, android, qt-ts, resx, apple-strings, apple-stringsdict, properties, json, yaml, subtitles: SRT/VTT)")
    p.add_argument("--columns", default=None, metavar="SRC,TGT",
                   help="CSV/TSV: the source and translation columns, counted from 1 (e.g. 2,3); needed "
                        "when the table is not a clear bilingual one")
    p.set_defaults(handler=_import)

    p = dsub.add_parser("export", help="write a document back in its original format, translated",
                        description="Write the translated document in its original format.")
    p.add_argument("document", metavar="DOCUMENT", help="document id or name (see `verso doc list`)")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.add_argument("--out", type=Path, default=None, metavar="FILE",
                   help="output file (default: PROJECT/exports/NAME.TGT.EXT, e.g. guide.de.xlf; "
                        "never the file the document was imported from)")
    p.add_argument("--force", action="store_true",
                   help="export even when targets have tag errors (otherwise: exit 3, naming them)")
    p.set_defaults(handler=_export)

    p = dsub.add_parser("pretranslate", help="fill empty targets as drafts from the TM and the model",
                        description="Fill the empty targets of a document as drafts: a 100 %% TM match "
                                    "gives its translation, otherwise the model's translation (reading the "
                                    "TM matches, as the editor's suggestion does). Progress on stderr; "
                                    "prints a JSON summary.")
    p.add_argument("document", metavar="DOCUMENT", help="document id or name")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.add_argument("--tm", action="append", default=[], metavar="TM",
                   help="another TM to search: a folder or a shared TM's URL postgresql://host:port/db?tm=NAME "
                        "(repeatable; the project's TMs are always searched)")
    p.add_argument("--trust-project-tms", action="store_true",
                   help="search the TM folders the project lists outside its own folder too, unconfirmed "
                        "(a received project's are refused: it decides nothing outside itself)")
    p.add_argument("--model", type=Path, default=None, metavar="DIR",
                   help="model folder (default: the project's model, else $VERSO_MODEL, else the demo model -- only one of the project's pair; with none, TM matches only and stderr says why); "
                        "--model none: TM matches only")
    p.add_argument("--min-score", type=_unit_float, default=None, metavar="S",
                   help="the minimum match a memory-guided model reads (default: the editor's setting, 0.3)")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--overwrite-drafts", action="store_true",
                   help="also fill unconfirmed targets again, your own drafts included (never a confirmed or "
                        "locked segment; a draft with no match or translation is kept); the JSON says how many "
                        "were replaced")
    p.set_defaults(handler=_pretranslate)

    p = sub.add_parser("qa", help="check a project's translations before delivery",
                       description="Run the project's QA checks (tags, numbers, spaces, punctuation, "
                                   "untranslated, consistency, length, spelling, glossary terms) and print "
                                   "the findings. "
                                   "Exit 0 without errors, 1 when a finding is an error.")
    p.add_argument("--project", type=Path, required=True, metavar="DIR")
    p.add_argument("document", nargs="?", default=None, metavar="DOCUMENT",
                   help="one document (id or name); default: all")
    p.add_argument("--json", action="store_true", help="findings as JSON")
    p.add_argument("--show-ignored", action="store_true",
                   help="also list the findings ignored in the editor's QA check (marked 'ignored'; "
                        "they never make the exit status 1)")
    p.add_argument("--trust-project-glossaries", action="store_true",
                   help="check terms of the glossaries the project lists outside its own folder too, unconfirmed "
                        "(a received project's are refused: it decides nothing outside itself)")
    p.set_defaults(handler=_qa)

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
    import sys

    from engine.cli import print_json
    from engine.errors import FormatError
    from engine.formats import language_conflict, read_declared
    from engine.formats.readprogress import Ticker
    from engine.langs import pair_text
    from engine.segmentation import using_rules
    from engine.store import Project, segrules
    from engine.store.project import DB_NAME, ORIGINALS

    if not a.file.is_file():
        raise ProjectError(f"{a.file}: no such file")
    columns = None
    if a.columns:  # the CSV/TSV reader loaded only for it (0.01 s of every import's start)
        from engine.formats.tabular import parse_columns

        columns = parse_columns(a.file, a.columns)
    if columns and a.format not in (None, "tabular"):
        raise ProjectError(f"{a.file}: --columns goes with CSV/TSV files (--format tabular)")
    # A refused first import takes back the project it created, as `tm import` and
    # `glossary import` do: an empty project left behind looks like a successful one.
    new_project = not (a.project / DB_NAME).exists()
    folder_existed, originals_existed = a.project.exists(), (a.project / ORIGINALS).exists()
    rules, rules_file = None, ""  # a new project segments with Verso's default rules
    if new_project:
        src, tgt = a.src_lang, a.tgt_lang
    else:
        with Project.open(a.project) as p:
            src, tgt = p.src_lang, p.tgt_lang
            rules, rules_file = segrules.project_rules(p), segrules.rules_name(p)
    # Read before the project is created: a new project takes the languages the file declares.
    def progress(n: int, secs: float) -> None:
        print(f"import: {n:,} segments read ({secs:.0f} s)" if n else f"import: reading ({secs:.0f} s)",
              file=sys.stderr, flush=True)

    with using_rules(rules), Ticker(progress):
        parsed, declared = read_declared(a.file, src_lang=a.src_lang or src, tgt_lang=a.tgt_lang or tgt,
                                         format=a.format, columns=columns)
    if rules_file:  # the export segments the original again: with these rules
        parsed.meta[segrules.SETTING] = rules_file
    what = f"the project {a.project}" if not new_project else "--src-lang/--tgt-lang say"
    conflict = language_conflict(declared, src, tgt, what=what)
    if conflict and a.ignore_declared_languages and src and tgt:
        parsed.problems.append(f"{conflict}; imported as {pair_text(src, tgt)} "
                               "(--ignore-declared-languages)")
        parsed.src_lang, parsed.tgt_lang = src, tgt
        declared, conflict = (src, tgt), ""
    if conflict:
        if new_project:
            conflict = conflict.replace(" say is ", " say ")
        pair = pair_text(declared[0] or src, declared[1] or tgt)
        raise FormatError(a.file, f"{conflict}; import it into a project for {pair} "
                                  "(or pass --ignore-declared-languages)")
    if new_project:
        src, tgt = src or declared[0], tgt or declared[1]
        if not (src and tgt):
            raise ProjectError(f"{a.project}: no project here, and {a.file.name} declares no "
                               f"{'source' if not src else 'target'} language; pass --src-lang and "
                               "--tgt-lang to create one")
    try:
        with (Project.create(a.project, src_lang=src, tgt_lang=tgt) if new_project
              else Project.open(a.project)) as p:
            doc_id = p.import_parsed(parsed, a.file)
            info = p.document(doc_id)
    except BaseException:
        if new_project:
            from engine.fsutil import remove_created_store

            remove_created_store(a.project, folder_existed, DB_NAME, () if originals_existed else (ORIGINALS,))
        raise
    print_json({"document_id": doc_id, "name": info.name, "format": info.format,
                "src_lang": info.src_lang, "tgt_lang": info.tgt_lang,
                "segments": info.segment_count, "confirmed": info.confirmed_count,
                "problems": info.meta.get("problems", [])})
    return 0


def _export(a) -> int:
    from engine.cli import print_json

    import sys

    from engine.errors import TagErrorsError

    with _open(a.project) as p:
        info = p.document(a.document)
        out = a.out or p.default_export_path(info.id)
        try:
            p.export_document(info.id, out, force=a.force)
        except TagErrorsError as e:
            print(f"verso: {e}", file=sys.stderr)
            for i in e.issues[:50]:
                print(f"  segment {i.idx + 1}: {i.message}", file=sys.stderr)
            return 3
        from engine.review.export import note

        print_json({"document_id": info.id, "out": str(out), "format": info.format,
                    "translated": sum(1 for s in p.segments(info.id) if s.target.text)}
                   | ({"tracked_changes": note(p, info)} if note(p, info) else {}))
    return 0


def _unit_float(v: str) -> float:
    try:
        f = float(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {v!r}") from None
    if not 0.0 <= f <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1: {v}")
    return f


def _pretranslate(a) -> int:
    import sys

    from engine.cli import print_json
    from engine.pretranslate import open_tms, pretranslate, wrong_pair_note
    from engine.resources import model_choice, model_pair, pair_served
    from engine.tm import project_tms

    with _open(a.project) as p:
        info = p.document(a.document)
        outside = "allow" if a.trust_project_tms else "refuse"
        project_tms(p, outside=outside)  # refused before a model loads
        translator = None
        note = ""  # why no model translates (a model of another pair is never loaded)
        if a.model is not None and str(a.model) == "none":
            model = None
        elif a.model is not None:
            model = a.model
            if (model / "manifest.json").is_file() and not pair_served(model_pair(model), p.src_lang, p.tgt_lang):
                note, model = wrong_pair_note(p, model_pair(model)), None
        else:
            choice = model_choice(p)
            model = choice.folder
            if model is None:
                note = wrong_pair_note(p, None, choice.why)
        if note:
            print(f"pretranslate: {note}", file=sys.stderr, flush=True)
        if model is not None:
            from engine.nmt.heap import loaded_for_good

            with loaded_for_good():  # torch and the model, for the whole command
                from engine.nmt.translator import Translator

                translator = Translator.load(model)
        tms = open_tms(p, a.tm, outside=outside)
        try:
            def progress(done: int, total: int) -> None:
                print(f"pretranslate: {done}/{total}", file=sys.stderr, flush=True)

            res = pretranslate(p, info.id, tms=tms, translator=translator, min_score=a.min_score,
                               beam=a.beam, progress=progress, overwrite_drafts=a.overwrite_drafts)
        finally:
            for tm in tms:
                tm.close()
        if res.note:
            print(f"pretranslate: {res.note}", file=sys.stderr, flush=True)
        elif note:
            res.note = note
        print_json({"document_id": info.id, "model": str(model) if model else None, **res.to_json()})
    return 0


def _qa(a) -> int:
    from engine.cli import print_json
    from engine.qa import check_segments, received_ids
    from engine.store.qa_ignore import IgnoreList

    with _open(a.project) as p:
        docs = [p.document(a.document)] if a.document else p.documents()
        terms = p.term_index(outside="allow" if a.trust_project_glossaries else "refuse")
        checker, ignore = p.spell_checker(), IgnoreList(p)
        report = []
        for d in docs:
            segs = p.segments(d.id)
            issues = check_segments(segs, p.qa_options(), spelling=checker, terms=terms,
                                    tgt_lang=p.tgt_lang, received=received_ids(segs))
            report.append((d, *ignore.split(issues)))
        if a.json:
            print_json([{"document_id": d.id, "name": d.name, "issues": [i.to_json() for i in shown],
                         "ignored": [i.to_json() for i in hidden] if a.show_ignored else len(hidden)}
                        for d, shown, hidden in report])
        else:
            for d, shown, hidden in report:
                for i, mark in [(i, "") for i in shown] + [(i, " (ignored)") for i in hidden if a.show_ignored]:
                    where = f"segment {i.idx + 1}" if i.idx >= 0 else "document"
                    print(f"{d.name}: {where}: {i.severity}{mark}: {i.check}: {i.message}")
    return 1 if any(i.severity == "error" for _, shown, _ in report for i in shown) else 0


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
