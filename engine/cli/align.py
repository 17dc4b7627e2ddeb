"""``verso align-docs SRC TGT --tm DIR``: a document and its translation become TM units (issue 50).

No torch at start: the model is loaded (engine.align.model) only when one serves the pair and
``--no-model`` is not given.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.errors import FormatError, VersoError


def register(sub: argparse._SubParsersAction) -> None:
    from engine.cli.tm import _TM_HELP, _tm_ref

    p = sub.add_parser(
        "align-docs", help="align a document with its translation, sentence by sentence, into a TM",
        description="Read two documents (any format Verso imports: DOCX, ODT, HTML, Markdown, TXT, ...; PDF "
                    "through pdftotext where installed), split both into sentences, align them 1-1, 1-2, "
                    "2-1, 1-0, 0-1 (by sentence lengths, numbers and inline codes; where a model serves the "
                    "pair, also by its translation of the sentences around the links length leaves unsure) "
                    "and add the pairs whose "
                    "confidence reaches --min-confidence to the TM, origin 'aligned'. Prints JSON "
                    '{"pairs": n, "added": n, "below": n, "method": ..., ...}.')
    p.add_argument("src", type=Path, metavar="SRC", help="the original document")
    p.add_argument("tgt", type=Path, metavar="TGT", help="its translation")
    p.add_argument("--tm", type=_tm_ref, required=True, metavar="TM", help=_TM_HELP)
    p.add_argument("--src-lang", default="", metavar="L", help="language of SRC (default: the TM's)")
    p.add_argument("--tgt-lang", default="", metavar="L", help="language of TGT (default: the TM's)")
    p.add_argument("--min-confidence", type=float, default=0.5, metavar="C",
                   help="lowest confidence (0..1) of a pair that goes into the TM (default 0.5)")
    p.add_argument("--model", type=Path, default=None, metavar="DIR",
                   help="model folder (default: $VERSO_MODEL, else the bundled model where it serves the pair)")
    p.add_argument("--no-model", action="store_true", help="align by length and numbers only")
    p.add_argument("--links", type=Path, default=None, metavar="FILE.tsv",
                   help="also write every link (confidence, source, target) as TSV, lowest confidence first")
    p.set_defaults(handler=_align)


def _languages(a) -> tuple[str, str]:
    from engine.tm import open_tm, tm_exists

    src, tgt = a.src_lang, a.tgt_lang
    if not (src and tgt) and tm_exists(a.tm):
        with open_tm(a.tm, create=False) as tm:
            src, tgt = src or tm.src_lang, tgt or tm.tgt_lang
    if not (src and tgt):
        raise VersoError(f"{a.tm}: the TM does not say its languages yet: give --src-lang and --tgt-lang")
    return src, tgt


def _align(a) -> int:
    from engine.align import totm
    from engine.align.run import align_files
    from engine.cli import print_json
    from engine.tm import open_for_import

    for f in (a.src, a.tgt):
        if not f.is_file():
            raise FormatError(f, "not a file" if f.exists() else "no such file")
    if not 0.0 <= a.min_confidence <= 1.0:
        raise VersoError(f"--min-confidence {a.min_confidence}: give a number from 0 to 1")
    src_lang, tgt_lang = _languages(a)
    t0 = time.monotonic()

    def progress(done: int, total: int) -> bool:
        print(f"verso: {a.src.name}: {done:,}/{total:,} sentences translated", file=sys.stderr, flush=True)
        return True

    al = align_files(a.src, a.tgt, src_lang, tgt_lang, use_model=not a.no_model, model=a.model, progress=progress)
    if a.no_model:
        al.why = "--no-model"
    keep = totm.above(al, a.min_confidence)
    with open_for_import(a.tm, src_lang=src_lang, tgt_lang=tgt_lang) as tm:
        res = totm.add_to_tm(tm, al, keep, src_lang, tgt_lang)
    if a.links is not None:
        _write_links(a.links, al)
    print_json({"pairs": len(al.pairs()), "added": res.added, "updated": res.updated, "skipped": res.skipped,
                "below": len(al.pairs()) - len(keep), "unpaired": len(al.links) - len(al.pairs()),
                "source_sentences": len(al.src.sentences), "target_sentences": len(al.tgt.sentences),
                "method": al.method, **({"why_no_model": al.why} if al.method != "model" else {}),
                "seconds": round(time.monotonic() - t0, 2)})
    return 0


def _write_links(path: Path, al) -> None:
    from engine.fsutil import atomic_write

    rows = ["confidence\tsource\ttarget"]
    for x in sorted(al.links, key=lambda x: x.confidence):
        s = " ".join(al.src.sentences[i].display() for i in x.src)
        t = " ".join(al.tgt.sentences[j].display() for j in x.tgt)
        rows.append(f"{x.confidence:.3f}\t{' '.join(s.split())}\t{' '.join(t.split())}")
    with atomic_write(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(rows) + "\n")
