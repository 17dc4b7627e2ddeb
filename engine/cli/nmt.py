"""``verso info | translate | eval | align | score``: the NMT engine on the command line (``verso
train``: :mod:`engine.cli.train`).

torch is imported inside the handlers, so other command groups start fast.
"""
from __future__ import annotations

import argparse
import sys
import time

from engine.cli import print_json
from engine.errors import FormatError
from engine.glossary.modes import DEFAULT_TERMS_MODE, TERMS_MODES


def register(sub) -> None:
    p = sub.add_parser("info", help="describe a model folder (JSON)")
    p.add_argument("--model", required=True, metavar="DIR")
    p.set_defaults(handler=cmd_info)

    p = sub.add_parser("translate", help="translate stdin lines to stdout")
    _model_args(p)
    p.add_argument("--json", action="store_true",
                   help="one JSON object a line: tokens, attention matrix, gate per token, word alignment")
    p.add_argument("--prefixes", metavar="FILE",
                   help="one line per input line: the start of the translation to complete")
    p.add_argument("--glossary", metavar="FILE|DIR",
                   help="a glossary folder or file (TBX, CSV/TSV, XLSX): the target term of every entry found "
                        "in a line goes into its translation (see --terms)")
    p.add_argument("--terms", choices=TERMS_MODES, default=DEFAULT_TERMS_MODE,
                   help=f"with --glossary: enforce (every term in the translation), prefer (a bonus), off "
                        f"(default: {DEFAULT_TERMS_MODE})")
    _split_arg(p)
    _tm_args(p)
    p.add_argument("--no-exact-matches", dest="exact_matches", action="store_false",
                   help="translate a segment with a 100%% TM match with the model too (by default it gets the "
                        "match's translation, as pre-translation does)")
    p.set_defaults(exact_matches=True)
    _docs_arg(p)
    p.set_defaults(handler=cmd_translate)

    p = sub.add_parser("eval", help="translate a test set and score it (JSON: BLEU, chrF, TER, by length)")
    _model_args(p)
    p.add_argument("--src", required=True, metavar="FILE")
    p.add_argument("--ref", required=True, metavar="FILE")
    p.add_argument("--hyp-out", metavar="FILE", help="also write the translations here")
    _split_arg(p)
    _tm_args(p)
    _docs_arg(p)
    p.set_defaults(handler=cmd_eval)

    p = sub.add_parser("align", help="word alignments by forced decoding (Pharaoh 'src-tgt', 0-based)")
    _model_args(p)
    p.add_argument("--src", required=True, metavar="FILE")
    p.add_argument("--tgt", required=True, metavar="FILE")
    p.set_defaults(handler=cmd_align)

    p = sub.add_parser("score", help="log-probability of given translations (forced decoding), last field")
    _model_args(p)
    p.add_argument("--src", required=True, metavar="FILE")
    p.add_argument("--hyp", required=True, metavar="FILE")
    _tm_args(p)
    _docs_arg(p)
    p.set_defaults(handler=cmd_score)


def _model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markup", choices=("protect", "none"), default="protect",
                   help="protect: HTML/DocBook tags, entities and placeholders (%%1, {0}) are inline codes, "
                        "as `verso tm import` and the editor read them, and each output line carries exactly "
                        "its source's markup (default); none: every character is text")
    p.add_argument("--model", required=True, metavar="DIR")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--quantize", action="store_true", help="dynamic int8 quantisation (CPU)")
    p.add_argument("--threads", type=_thread_count, default=0,
                   help="CPU threads (0: automatic -- half the cores, 1 to 4; engine/nmt/threads.py)")


def _thread_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected 0 (automatic) or a number of threads, not {text!r}")
    return n


def _split_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--split-long", type=int, default=None, metavar="N",
                   help="translate a sentence of N subwords or more piece by piece, cut at sentence ends and "
                        "clause marks (default: the model's training length limit data.max_len; 0: never)")


def _tm_args(p: argparse.ArgumentParser) -> None:
    """Search-engine guided NMT: the TM the model's memory reads."""
    p.add_argument("--tm", metavar="TM_DIR", help="translation memory to retrieve pairs from (SEG-NMT models; "
                   "eval: adds BLEU per fuzzy band of TM copy, model without and with memory)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--k", type=int, default=4, help="retrieved pairs per sentence (default 4)")
    g.add_argument("--coverage", action="store_true", help="greedy coverage selection (Algorithm 1) instead of top-k")
    p.add_argument("--min-score", type=_fraction, default=None, metavar="S",
                   help="fuzzy score (0-1) a TM pair needs for the model to read it (default: "
                        "engine.nmt.retrieval.MEMORY_MIN_SCORE, as in the editor); eval's TM copy and fuzzy "
                        "bands still use the best match, whatever its score")
    p.add_argument("--exact-matches", action="store_true",
                   help="a segment with a 100%% match in the TM gets that match's translation verbatim, as CAT "
                        "tools pre-translate (the model still reports alignment and copy weights; "
                        "eval: the 'memory' system; translate: the default)")
    p.add_argument("--memory", choices=("auto", "knn", "learned", "none"), default="auto",
                   help="which memory reads the retrieved pairs: knn (nearest neighbours over the pairs, every "
                        "calibrated model), learned (SEG-NMT models), none, or auto (default: knn, or the learned "
                        "memory where the model's calibration measured it better)")
    p.add_argument("--knn-k", type=int, default=None, metavar="K",
                   help="nearest slots the kNN memory mixes (default: the model's, 1)")


def _fraction(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"a fuzzy score between 0 and 1 is needed, not {text!r}")
    return x


def _docs_arg(p: argparse.ArgumentParser) -> None:
    """Documents for models with cross-sentence context."""
    p.add_argument("--docs", metavar="FILE",
                   help="document id of each source line (one per line): document-context models read the "
                        "previous sentences of the same document; without it, '<d>' marker lines start "
                        "documents (kept in the output), and without either each line stands alone")


def _documents(args, tr, src: list[str], other: list[str] | None = None, src_path=None, other_path=None):
    """(layout, other side without markers, per-sentence context texts or None)."""
    from engine.nmt.documents import context_texts, layout, parallel_layout

    if other is None:
        lay = layout(src, docs=args.docs, path=src_path)
    else:
        lay, other = parallel_layout(src, other, docs=args.docs, src_path=src_path, tgt_path=other_path)
    ctx = None
    if args.docs or lay.marker_lines:
        ctx = context_texts(lay.sentences, lay.doc_ids, tr.loaded.cfg.model.doc_k)
    return lay, other, ctx


def _open_tm(args):
    if not getattr(args, "tm", None):
        return None
    from engine.tm import open_tm
    from engine.tm.open import is_tm_url, stderr_progress

    ref = str(args.tm)
    return open_tm(ref, create=False, progress=None if is_tm_url(ref) else stderr_progress(ref))


def _retrieve(tm, lines: list[str], args) -> tuple[list, list, float]:
    """(every retrieved pair, the pairs the model reads, the minimum match ``--min-score`` they score)."""
    from engine.nmt.retrieval import MEMORY_MIN_SCORE, readable, retrieve

    found = [retrieve(tm, s, k=args.k, coverage=args.coverage) for s in lines]
    floor = MEMORY_MIN_SCORE if args.min_score is None else args.min_score
    return found, [readable(m, floor) for m in found], floor


def _translator(args):
    from engine.nmt.heap import loaded_for_good

    with loaded_for_good():  # torch and the model, for the whole command
        from engine.nmt.translator import Translator

        return Translator.load(args.model, device=args.device, quantize=args.quantize, threads=args.threads)


def _protect(lines: list[str], args) -> list:
    """Each line as the editor and `verso tm import` read it (markup as inline codes), or as it is."""
    from engine.formats.textutil import protect_text
    from engine.inline import TaggedText

    return [protect_text(ln) if args.markup == "protect" else TaggedText(ln) for ln in lines]


def _printed(res, source) -> str:
    """A translation as printed: the source's markup back in place of its codes, every tag once."""
    from engine.nmt.tagfix import restore_markup

    return restore_markup(res.text, source, res) if source.tags else res.text


def _glossary_terms(args, lines: list[str], tr) -> list | None:
    """Per line, the glossary entries found in it (those with a target term), or None without --glossary."""
    if not getattr(args, "glossary", None):
        return None
    from pathlib import Path

    from engine.glossary import Glossary, TermIndex, read_glossary_file

    src_lang = tr.loaded.cfg.data.src_lang
    path = Path(args.glossary)
    if path.is_dir():
        with Glossary(path) as g:
            index = g.index()
    else:
        gf = read_glossary_file(path, src_lang=src_lang, tgt_lang=tr.loaded.cfg.data.tgt_lang)
        index = TermIndex(gf.entries, src_lang)
    return [[h for h in index.find(line) if h.entry.targets] for line in lines]


def _protect_pairs(srcs: list[str], tgts: list[str], args) -> tuple[list[str], list[str]]:
    """Sources protected, and each target's markup as the codes of its source (same numbers)."""
    if args.markup != "protect":
        return srcs, tgts
    from engine.formats.textutil import protect_like

    sources = _protect(srcs, args)
    return [s.text for s in sources], [protect_like(s, t).text for s, t in zip(sources, tgts)]


def _read(path: str) -> list[str]:
    from engine.nmt.data import read_lines

    return read_lines(path)


# ------------------------------------------------------------------ handlers
def cmd_info(args) -> int:
    from engine.nmt.heap import loaded_for_good

    with loaded_for_good():
        from engine.nmt.translator import Translator

        tr = Translator.load(args.model)
    print_json(tr.info())
    return 0


def cmd_translate(args) -> int:
    from engine.nmt.heap import import_torch_alone, loaded_for_good

    with loaded_for_good():
        import_torch_alone()
    tr = _translator(args)
    lines = [ln.rstrip("\r\n") for ln in sys.stdin]
    prefixes = None
    if args.prefixes:
        prefixes = _read(args.prefixes)
        if len(prefixes) != len(lines):
            raise FormatError(args.prefixes, f"has {len(prefixes)} lines but stdin had {len(lines)}")
    lay, _, ctx = _documents(args, tr, lines, src_path="<stdin>")
    if prefixes is not None and lay.marker_lines:
        marks = set(lay.marker_lines)
        prefixes = [p for i, p in enumerate(prefixes) if i not in marks]
    sources = _protect(lay.sentences, args)
    lines = [s.text for s in sources]
    if prefixes is not None and args.markup == "protect":
        from engine.formats.textutil import protect_like

        prefixes = [protect_like(s, p).text for s, p in zip(sources, prefixes)]
    ctx = [[t.text for t in _protect(c, args)] for c in ctx] if ctx is not None else None
    tm = _open_tm(args)
    memory = _retrieve(tm, lines, args)[1] if tm is not None else None
    found = _glossary_terms(args, lines, tr)
    terms = None
    if found is not None and args.terms != "off":
        from engine.glossary.suggest_terms import suggestion_terms

        # the hits written as the glossary writes them, one a span with its entries' targets (any one
        # meets it) and where its source term is (the search writes the term where the attention is on it)
        terms = [suggestion_terms(line, hits) for line, hits in zip(lines, found)]
    results = tr.translate(lines, beam=args.beam, prefixes=prefixes, memories=memory, context=ctx,
                           split_long=args.split_long, exact_matches=args.exact_matches,
                           terms=terms, terms_mode="prefer" if args.terms == "prefer" else "enforce",
                           memory_mode=args.memory, knn_k=args.knn_k)
    printed = [_printed(r, s) for r, s in zip(results, sources)]
    if found is not None:  # the glossary report of --json: each entry found and whether its term is in
        for r, hits, text in zip(results, found, printed):
            r.terms = [{"entry": h.entry.id, "source": h.entry.source, "target": h.entry.target,
                        "span": [h.start, h.end], "used": any(t in text for t in h.entry.targets)} for h in hits]
    for res, text in zip(lay.restore(results, marker=None), lay.restore(printed, marker=None)):
        if args.json:
            print_json({**res.to_json(), "translation": text} if res is not None else {"marker": "<d>"}, lines=True)
        else:
            sys.stdout.write((text if res is not None else "<d>") + "\n")
    sys.stdout.flush()
    return 0


def _read_parallel(src, tgt) -> tuple[list[str], list[str]]:
    """Two line-aligned files; a line-count mismatch names both files."""
    srcs, tgts = _read(src), _read(tgt)
    if len(srcs) != len(tgts):
        raise FormatError(tgt, f"has {len(tgts)} lines but {src} has {len(srcs)}")
    return srcs, tgts


def cmd_eval(args) -> int:
    from engine.fsutil import atomic_write
    from engine.nmt.evaluate import score_all

    srcs, refs = _read_parallel(args.src, args.ref)
    tr = _translator(args)
    lay, refs, ctx = _documents(args, tr, srcs, refs, args.src, args.ref)
    sources = _protect(lay.sentences, args)
    srcs = [s.text for s in sources]
    ctx = [[t.text for t in _protect(c, args)] for c in ctx] if ctx is not None else None
    tm = _open_tm(args)
    t0 = time.time()
    found, memory, floor = _retrieve(tm, srcs, args) if tm is not None else (None, None, None)
    kind = tr.memory_kind(args.memory) if tm is not None else "none"
    has_memory = kind != "none"
    split = tr.loaded.cfg.data.max_len if args.split_long is None else args.split_long
    plain = [_printed(r, s) for r, s in zip(tr.translate(srcs, beam=args.beam, context=ctx, split_long=split),
                                            sources)]
    with_memory = (tr.translate(srcs, beam=args.beam, memories=memory, context=ctx, split_long=split,
                                exact_matches=args.exact_matches, memory_mode=kind, knn_k=args.knn_k)
                   if memory is not None and has_memory else None)
    hyps = [_printed(r, s) for r, s in zip(with_memory, sources)] if with_memory is not None else plain
    out = score_all(hyps, refs, lay.sentences)
    out.update({"model": args.model, "beam": args.beam, "quantized": tr.quantized, "split_long": split,
                "seconds": round(time.time() - t0, 1)})
    if found is not None:
        from engine.nmt.retrieval import bleu_by_band

        from engine.nmt.tagfix import restore_markup

        systems = {"tm_copy": [restore_markup(m[0].target, s) if m else "" for m, s in zip(found, sources)],
                   "no_memory": plain}
        if has_memory:
            systems["memory"] = hyps
        out["tm"] = {"path": args.tm, "k": None if args.coverage else args.k, "coverage": args.coverage,
                     "memory": kind, "knn_k": (args.knn_k or tr.knn.k) if kind == "knn" else None,
                     "min_score": floor,
                     "exact_matches": sum(r.exact_match is not None for r in with_memory)
                     if args.exact_matches and with_memory is not None else None,
                     "pairs_per_sentence": round(sum(map(len, memory)) / max(1, len(memory)), 2),
                     **bleu_by_band(systems, refs, [m[0].score if m else 0.0 for m in found])}
    if args.hyp_out:
        with atomic_write(args.hyp_out, "w", encoding="utf-8") as fh:
            fh.write("".join(h + "\n" for h in lay.restore(hyps)))
    if ctx is not None:
        from engine.nmt.documents import document_spans

        out["documents"] = len(document_spans(lay.doc_ids))
    print_json(out)
    return 0


def cmd_align(args) -> int:
    srcs, tgts = _read_parallel(args.src, args.tgt)
    tr = _translator(args)
    srcs, tgts = _protect_pairs(srcs, tgts, args)
    for links in tr.align(srcs, tgts):
        sys.stdout.write(" ".join(f"{i}-{j}" for i, j in sorted(links)) + "\n")
    return 0


def cmd_score(args) -> int:
    srcs, hyps = _read_parallel(args.src, args.hyp)
    tr = _translator(args)
    lay, hyps, ctx = _documents(args, tr, srcs, hyps, args.src, args.hyp)
    srcs, hyps = _protect_pairs(lay.sentences, hyps, args)
    ctx = [[t.text for t in _protect(c, args)] for c in ctx] if ctx is not None else None
    tm = _open_tm(args)
    memory = _retrieve(tm, srcs, args)[1] if tm is not None else None
    for i, lp in enumerate(tr.score(srcs, hyps, context=ctx, memories=memory, memory_mode=args.memory)):
        sys.stdout.write(f"{i}\t{lp:.4f}\n")
    return 0
