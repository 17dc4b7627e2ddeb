"""``verso glossary ...``: glossaries (import, export, lookup, stats).  No torch."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

# engine.glossary is imported by the handlers: at the top it cost every `verso` command 50-170 ms
# (numpy, stemmers) before it started (python -X importtime, `verso doc import`).


def register(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser("glossary", help="glossaries (termbases): import, export, lookup, stats",
                       description="Work with a glossary folder (SQLite): TBX, CSV/TSV (OmegaT's too) and "
                                   "Excel .xlsx files in, TBX/TSV/CSV out, terms found in a text.")
    gsub = g.add_subparsers(dest="glossary_command", metavar="ACTION")

    p = gsub.add_parser(
        "import", help="import a TBX, CSV/TSV, OmegaT .txt or .xlsx glossary file",
        description="Import a glossary file into a glossary folder (created when missing). The whole file "
                    "is one transaction: a file that breaks half way leaves the glossary as it was; "
                    "entries met again (same terms) are updated, not added twice. Prints JSON "
                    '{"added": n, "updated": n, "skipped": n, "src_lang", "tgt_lang", "problems": [...]}.')
    p.add_argument("file", type=Path, metavar="FILE", help=".tbx, .csv, .tsv, OmegaT .txt/.utf8, .xlsx")
    p.add_argument("--glossary", type=Path, required=True, metavar="DIR", help="glossary folder")
    p.add_argument("--src-lang", default="", metavar="L", help="source language (default: the glossary's, "
                                                              "or the file's)")
    p.add_argument("--tgt-lang", default="", metavar="L", help="target language (default: the glossary's, "
                                                              "or the file's)")
    p.set_defaults(handler=_import)

    p = gsub.add_parser("export", help="write the glossary as TBX, TSV, CSV or OmegaT .txt",
                        description="Write every entry to FILE: .tbx (TBX-Basic), .tsv / .csv (a header of "
                                    "language codes and column names), .txt (OmegaT's glossary).")
    p.add_argument("--glossary", type=Path, required=True, metavar="DIR")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.tbx|.tsv")
    p.set_defaults(handler=_export)

    p = gsub.add_parser("lookup", help="the glossary entries found in a text, with their spans",
                        description="Find the glossary's source terms in TEXT (case-insensitive, inflected "
                                    "forms through a Snowball stemmer, across inline tags and punctuation; "
                                    "longest match wins). Spans are character offsets into TEXT.")
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--glossary", type=Path, required=True, metavar="DIR")
    p.add_argument("--markup", choices=("protect", "none"), default="protect",
                   help="protect: HTML/DocBook tags and placeholders are inline codes that a term may span, "
                        "as in the editor (default); none: every character is text")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(handler=_lookup)

    p = gsub.add_parser("stats", help="entry count and language pair (JSON)")
    p.add_argument("--glossary", type=Path, required=True, metavar="DIR")
    p.set_defaults(handler=_stats)


def _open(folder: Path, create: bool = False):
    from engine.glossary.store import Glossary

    return Glossary(folder, create=create)


def entry_json(e) -> dict:
    d = {"id": e.id, "source": e.source, "targets": list(e.targets), "src_lang": e.src_lang,
         "tgt_lang": e.tgt_lang, "status": e.status}
    for k in ("pos", "note", "concept"):
        if getattr(e, k):
            d[k] = getattr(e, k)
    if e.forbidden:
        d["forbidden"] = list(e.forbidden)
    return d


def _import(a) -> int:
    from engine.cli import print_json
    from engine.glossary.formats import read_glossary_file
    from engine.glossary.store import Glossary

    folder_existed = a.glossary.exists()
    new = not Glossary.exists(a.glossary)
    try:
        with _open(a.glossary, create=True) as g:
            gf = read_glossary_file(a.file, src_lang=a.src_lang or g.src_lang, tgt_lang=a.tgt_lang or g.tgt_lang)
            res = g.import_entries(gf.entries, src_lang=gf.src_lang, tgt_lang=gf.tgt_lang, origin=a.file.name,
                                   problems=gf.problems)
    except BaseException:
        if new:  # a refused file leaves no empty glossary behind
            _remove_new(a.glossary, folder_existed)
        raise
    print_json(res.to_json())
    return 0


def _remove_new(folder: Path, folder_existed: bool) -> None:
    from engine.fsutil import remove_created_store
    from engine.glossary.store import Glossary

    remove_created_store(folder, folder_existed, Glossary.DB_NAME)


def _export(a) -> int:
    from engine.cli import print_json
    from engine.glossary.formats import write_glossary_file
    from engine.glossary.store import GlossaryError

    with _open(a.glossary) as g:
        entries = g.entries()
        if not entries:
            raise GlossaryError(f"{a.glossary}: the glossary is empty; nothing to export")
        write_glossary_file(a.out, entries, src_lang=g.src_lang, tgt_lang=g.tgt_lang)
    print_json({"exported": len(entries), "out": str(a.out)})
    return 0


def _lookup(a) -> int:
    from engine.cli import print_json
    from engine.glossary.recognise import find_terms

    text, offsets = a.text, None
    if a.markup == "protect":
        text, offsets = _protected(a.text)
    with _open(a.glossary) as g:
        hits = find_terms(text, g)
    if offsets is not None:  # spans into TEXT as typed
        hits = [type(h)(offsets[h.start], offsets[h.end], h.entry) for h in hits]
    if a.json:
        print_json([{"start": h.start, "end": h.end, "text": a.text[h.start:h.end], "entry": entry_json(h.entry)}
                    for h in hits])
    else:
        for h in hits:
            sys.stdout.write(f"{h.start}-{h.end}\t{a.text[h.start:h.end]}\t{h.entry.source} -> "
                             f"{'; '.join(h.entry.targets)}\n")
    return 0


def _protected(text: str) -> tuple[str, list[int] | None]:
    """``text`` with markup as tag characters, and for each of its offsets the offset in ``text``
    (None when the markup cannot be mapped back, then the text is looked up as typed)."""
    from engine.formats.textutil import protect_text
    from engine.inline import tag_number

    tt = protect_text(text)
    by_n = {t.n: t for t in tt.tags}
    offsets, pos = [], 0
    for ch in tt.text:
        offsets.append(pos)
        n = tag_number(ch)
        pos += len(by_n[n].original) if n is not None and n in by_n else 1
    offsets.append(pos)
    if pos != len(text):
        return text, None
    return tt.text, offsets


def _stats(a) -> int:
    from engine.cli import print_json

    with _open(a.glossary) as g:
        print_json({"entries": len(g), "src_lang": g.src_lang, "tgt_lang": g.tgt_lang})
    return 0
