"""Document consistency: do repeated source terms of a document keep one translation?

For every content word (lower-cased, letters only, at least 4 letters, not a
stop word) that occurs in two or more sentences of the same test document,
each occurrence's translation is the hypothesis word aligned to it by forced
decoding with a FIXED aligner model (the same for every system compared, so
the measure does not depend on a system's own attention).  A term's pairs of
occurrences agree when their translations are equal (case-folded, punctuation
stripped); the score is the share of agreeing pairs over all terms (micro)
and the mean per term (macro).  Scoring the reference gives the ceiling.

    .venv/bin/python -m experiments.doccontext.consistency --aligner MODEL --src test.en --docs test.doc \\
        --hyp sys1.de [--hyp sys2.de ...] [--ref test.de]

Prints one JSON object: per file {pairs, terms, agreement_micro, agreement_macro}.
"""
from __future__ import annotations

import argparse
import json
import re
from itertools import combinations



STOP = set("""about above after again against also although among another anything because been before being
below between both could does doing down during each either else every from further have having here
into itself just like made make many more most much must neither none only other otherwise over same
shall should since some such than that their them then there these they this those through thus under
until upon very were what when where whether which while will with within without would your yours
""".split())
_WORD = re.compile(r"[^\W\d_]{4,}")


def term_of(token: str) -> str | None:
    """The content word a whitespace token stands for, or None."""
    m = _WORD.fullmatch(token.strip(".,;:!?()[]\"'«»„“”").lower())
    if m is None or m.group(0) in STOP:
        return None
    return m.group(0)


def repeated_terms(srcs: list[str], doc_ids: list[str]) -> list[tuple[str, list[tuple[int, int]]]]:
    """(term, [(sentence, token position), ...]) for terms in >= 2 sentences of one document
    (the first position of the term in each sentence)."""
    from engine.nmt.documents import document_spans

    out = []
    for a, b in document_spans(doc_ids):
        where: dict[str, dict[int, int]] = {}
        for i in range(a, b):
            for p, tok in enumerate(srcs[i].split()):
                t = term_of(tok)
                if t:
                    where.setdefault(t, {}).setdefault(i, p)
        out += [(t, sorted(occ.items())) for t, occ in where.items() if len(occ) >= 2]
    return out


def _norm(word: str) -> str:
    return word.strip(".,;:!?()[]\"'«»„“”").casefold()


def consistency(srcs: list[str], hyps: list[str], doc_ids: list[str], links: list[list[tuple[int, int]]]) -> dict:
    """Agreement of the translations of repeated terms; ``links[i]``: (src word, hyp word) pairs."""
    terms = repeated_terms(srcs, doc_ids)
    agree = total = 0
    per_term = []
    for term, occ in terms:
        trans = []
        for i, p in occ:
            words = hyps[i].split()
            aligned = sorted(j for s, j in links[i] if s == p and j < len(words))
            trans.append(" ".join(_norm(words[j]) for j in aligned[:1]) or None)
        pairs = [(x, y) for x, y in combinations(trans, 2)]
        if not pairs:
            continue
        ok = sum(1 for x, y in pairs if x is not None and x == y)
        agree += ok
        total += len(pairs)
        per_term.append(ok / len(pairs))
    return {"terms": len(per_term), "pairs": total,
            "agreement_micro": round(100 * agree / max(total, 1), 2),
            "agreement_macro": round(100 * sum(per_term) / max(len(per_term), 1), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aligner", required=True, metavar="MODEL", help="model folder used to align every file")
    ap.add_argument("--src", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--hyp", action="append", default=[], help="a system's output (repeatable)")
    ap.add_argument("--ref", help="also score the reference (the ceiling)")
    ap.add_argument("--max-sentences", type=int, default=0, help="only the first N lines (smoke runs)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import torch

    from engine.nmt.data import read_lines
    from engine.nmt.documents import read_doc_ids
    from engine.nmt.translator import Translator

    torch.set_num_threads(args.threads)
    srcs = read_lines(args.src)
    ids = read_doc_ids(args.docs, len(srcs), text_path=args.src)
    n = args.max_sentences or len(srcs)
    srcs, ids = srcs[:n], ids[:n]
    tr = Translator.load(args.aligner)
    out = {"aligner": args.aligner, "sentences": n}
    for path in args.hyp + ([args.ref] if args.ref else []):
        hyps = read_lines(path)[:n]
        if len(hyps) != n:
            raise SystemExit(f"{path}: {len(hyps)} lines, expected {n}")
        links = tr.align(srcs, hyps)
        out[path] = consistency(srcs, hyps, ids, links)
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
