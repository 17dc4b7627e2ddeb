"""``verso tm ...``: translation memories (import, export, stats, search, concordance)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.errors import TMError


_TM_HELP = ("TM folder, or a shared TM on PostgreSQL: postgresql://host:port/dbname?tm=NAME "
            "(credentials from PGUSER/PGPASSWORD, ~/.pgpass or a service file)")


def _tm_ref(text: str):
    from engine.tm.open import tm_ref

    return tm_ref(text)


def register(sub: argparse._SubParsersAction) -> None:
    tm = sub.add_parser("tm", help="translation memories: import, export, stats, search, concordance",
                        description="Work with a translation memory: a folder (SQLite + search index) or a "
                                    "shared TM on PostgreSQL (postgresql://host:port/dbname?tm=NAME).")
    tsub = tm.add_subparsers(dest="tm_command", metavar="ACTION")

    p = tsub.add_parser(
        "import", help="import TM units from TMX, a Trados .sdltm, CSV/TSV, PO, XLIFF or two aligned text files",
        description="Import translation units into a TM (created when missing). The whole file is "
                    "one transaction: a file that breaks half way leaves the TM as it was. Prints "
                    'JSON {"added": n, "skipped": n, "errors": [...]}; exit 0 when the file was '
                    "read, non-zero with a one-line reason when it was refused.")
    p.add_argument("file", type=Path, metavar="FILE", help="TMX, Trados .sdltm, CSV/TSV, PO, XLIFF, or plain text "
                                                          "(with --target-file)")
    p.add_argument("--tm", type=_tm_ref, required=True, metavar="TM", help=_TM_HELP)
    p.add_argument("--src-lang", default="", metavar="L", help="source language (e.g. en)")
    p.add_argument("--tgt-lang", default="", metavar="L", help="target language (e.g. de)")
    p.add_argument("--target-file", type=Path, default=None, metavar="TGT",
                   help="line-aligned translation of FILE (both plain text, one segment a line)")
    p.set_defaults(handler=_import)

    p = tsub.add_parser("export", help="write the whole TM as TMX 1.4b",
                        description="Write every unit of the TM to a TMX 1.4b file (UTF-8).")
    p.add_argument("--tm", type=_tm_ref, required=True, metavar="TM", help=_TM_HELP)
    p.add_argument("--out", type=Path, required=True, metavar="FILE.tmx")
    p.set_defaults(handler=_export)

    p = tsub.add_parser("stats", help="unit count, languages, index state, size (JSON)")
    p.add_argument("--tm", type=_tm_ref, required=True, metavar="TM", help=_TM_HELP)
    p.set_defaults(handler=_stats)

    p = tsub.add_parser(
        "search", help="fuzzy matches for a segment (or for every line of a file)",
        description="Fuzzy matches, best first. The score is the token-level score "
                    "1 - D_edit/max(|X|,|X'|) with small case/punctuation penalties (the editor "
                    "shows it as the match percentage); char_score is the character-level "
                    "similarity. With --queries every line of FILE is answered in one process, "
                    'one JSON line per query: {"query": ..., "ms": ..., "matches": [...]}.')
    p.add_argument("text", nargs="?", metavar="TEXT", help="the segment to look up")
    p.add_argument("--tm", type=_tm_ref, required=True, metavar="TM", help=_TM_HELP)
    p.add_argument("--k", type=int, default=5, help="number of matches (default 5)")
    p.add_argument("--min-score", type=float, default=0.3, help="lowest score shown (default 0.3)")
    p.add_argument("--coverage", action="store_true",
                   help="select pairs by greedy source coverage (Algorithm 1 of Gu et al. 2018) "
                        "instead of top-k")
    p.add_argument("--queries", type=Path, default=None, metavar="FILE",
                   help="answer every line of FILE (UTF-8) instead of TEXT")
    _pair_args(p)
    _markup_arg(p)
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(handler=_search)

    p = tsub.add_parser("concordance", help="units containing a word or phrase",
                        description="Units whose source (or target) contains PHRASE, ranked, with "
                                    "the character spans of each occurrence.")
    p.add_argument("phrase", metavar="PHRASE")
    p.add_argument("--tm", type=_tm_ref, required=True, metavar="TM", help=_TM_HELP)
    p.add_argument("--side", choices=("source", "target"), default="source")
    p.add_argument("--limit", type=int, default=50)
    _pair_args(p)
    _markup_arg(p)
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(handler=_concordance)


def _pair_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--src-lang", default=None, metavar="L",
                   help="source language of the units to return (default: the TM's; a bare "
                        "'en' also finds en-US units; '*' = any)")
    p.add_argument("--tgt-lang", default=None, metavar="L",
                   help="target language of the units to return (default: the TM's; '*' = any)")


def _open(ref, create: bool = False, **kw):
    """The TM named by ``--tm``: a folder or a postgresql:// URL (engine.tm.open_tm)."""
    from engine.tm import open_tm, tm_exists
    from engine.tm.open import is_tm_url, stderr_progress

    if not create and not tm_exists(ref):
        raise TMError(f"{ref}: not a translation memory (import something into it first)")
    if not is_tm_url(str(ref)):
        kw.setdefault("progress", stderr_progress(ref))
    return open_tm(ref, create=create, **kw)


def _import(a) -> int:
    from engine.cli import print_json
    from engine.formats.tmfiles import read_tm_file
    from engine.tm import open_for_import

    # A refused file leaves no TM behind that was not there (folder or URL alike).
    with open_for_import(a.tm) as tm:
        src = a.src_lang or tm.src_lang
        tgt = a.tgt_lang or tm.tgt_lang
        problems: list[str] = []
        languages: dict = {}  # the pair a bilingual document declares
        units = read_tm_file(a.file, src_lang=src, tgt_lang=tgt, problems=problems, target_file=a.target_file,
                             languages=languages)
        units = with_progress(units, a.file.name)
        if a.target_file is None:
            _tmx_pair_refused(a.file, src, tgt)
        res = tm.import_units(units, src_lang=languages.get("src", src), tgt_lang=languages.get("tgt", tgt),
                              origin=a.file.name, problems=problems)
    print_json(res.to_json())
    return 0


#: seconds between two progress lines of a long import (a 2-million-unit TMX read for minutes in silence)
PROGRESS_EVERY_S = 5.0


def with_progress(units, name: str):
    """``units`` as they are, with a line on stderr every :data:`PROGRESS_EVERY_S` seconds: how
    many units were read and how many a second (the clock is looked at every 256 units)."""
    t0 = last = time.monotonic()
    n = 0
    for u in units:
        n += 1
        yield u
        if n % 256 == 0 and (now := time.monotonic()) - last >= PROGRESS_EVERY_S:
            last = now
            print(f"verso: {name}: {n:,} units read ({n / max(now - t0, 1e-9):,.0f} a second)",
                  file=sys.stderr, flush=True)


def _tmx_pair_refused(path: Path, src: str, tgt: str) -> None:
    """A TMX whose first unit holds no translation between ``src`` and ``tgt`` (a TMX of another
    pair: every unit would be skipped) is refused in one line naming both pairs."""
    from engine.errors import FormatError
    from engine.formats.tmfiles import is_tmx
    from engine.formats.tmx import read_tmx
    from engine.langs import pair_text, same_pair

    if not (src and tgt) or not is_tmx(path):
        return
    first = next(iter(read_tmx(path, problems=[])), None)  # streamed: one unit read
    if first is None:
        return
    langs = list(first.variants)
    if len(langs) < 2 or any(same_pair(s, t, src, tgt) for s in langs for t in langs if s != t):
        return
    file_src = next((lang for lang in langs if same_pair(lang, "", src, "")), langs[0])
    file_tgt = next(lang for lang in langs if lang != file_src)
    shown = pair_text(file_src, file_tgt)
    raise FormatError(path, f"the file declares {shown}; the TM is {pair_text(src, tgt)}: "
                            f"import it into a TM for {shown}", f"line {first.line}" if first.line else None)


def _export(a) -> int:
    import sys

    from engine.cli import print_json
    from engine.formats.tmx import write_tmx
    from engine.tm.limits import MAX_CHARS

    with _open(a.tm) as tm:
        n = write_tmx(a.out, tm.tm_units(), src_lang=tm.src_lang or "*all*")
        over = tm.stats().get("oversized") or 0  # units over engine.tm.limits' size: never read
    if over:
        print(f"verso: {a.tm}: {over:,} unit(s) over {MAX_CHARS:,} characters a side left out", file=sys.stderr)
    print_json({"exported": n, "out": str(a.out), **({"oversized_skipped": over} if over else {})})
    return 0


def _stats(a) -> int:
    from engine.cli import print_json

    with _open(a.tm) as tm:
        print_json(tm.stats())
    return 0


def _markup_arg(p) -> None:
    p.add_argument("--markup", choices=("protect", "none"), default="protect",
                   help="protect: HTML/DocBook tags, entities and placeholders are inline codes, as `verso tm "
                        "import` stored them (default); none: every character is text")


def _query(text: str, a):
    """A query as the TM stored its units: markup protected as inline codes (``--markup none``: as typed)."""
    from engine.formats.textutil import protect_text
    from engine.inline import TaggedText

    return protect_text(text) if a.markup == "protect" else TaggedText(text)


def _search(a) -> int:
    from engine.cli import print_json

    if (a.text is None) == (a.queries is None):
        raise TMError("give either TEXT or --queries FILE")
    if a.k < 1:
        raise TMError("--k must be at least 1")
    with _open(a.tm) as tm:
        if a.queries is not None:
            try:
                lines = a.queries.read_text("utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as e:
                raise TMError(f"{a.queries}: cannot read queries ({e})") from None
            for q in lines:
                t0 = time.perf_counter()
                ms = tm.search(_query(q, a), k=a.k, min_score=a.min_score, coverage=a.coverage,
                               src_lang=a.src_lang, tgt_lang=a.tgt_lang)
                dt = (time.perf_counter() - t0) * 1000
                print_json({"query": q, "ms": round(dt, 3), "matches": [m.to_json() for m in ms]},
                           lines=True)
            return 0
        ms = tm.search(_query(a.text, a), k=a.k, min_score=a.min_score, coverage=a.coverage,
                       src_lang=a.src_lang, tgt_lang=a.tgt_lang)
        if a.json:
            print_json([m.to_json() for m in ms])
        else:
            for m in ms:
                sys.stdout.write(f"{m.score * 100:5.1f}%  {m.source.display()}\n"
                                 f"        {m.target.display()}\n")
    return 0


def _concordance(a) -> int:
    from engine.cli import print_json

    with _open(a.tm) as tm:
        # The words of the phrase: its markup (a tag typed with it) is no part of what is looked for.
        phrase = _query(a.phrase, a).plain().strip() or a.phrase
        hits = tm.concordance(phrase, side=a.side, limit=a.limit, src_lang=a.src_lang,
                              tgt_lang=a.tgt_lang)
        if a.json:
            print_json([h.to_json() for h in hits])
        else:
            for h in hits:
                sys.stdout.write(f"{h.entry.source.display()}\n    {h.entry.target.display()}\n")
    return 0
