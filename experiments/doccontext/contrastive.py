"""A small contrastive set for document context, and its accuracy with ``verso score``.

Build: an English term that occurs in a test sentence and in one of its K
previous sentences (same document), whose reference translations of both
sentences use the same German word A, where the training data translate the
term also by another word B (a "synonym used elsewhere": both A and B have a
sentence-level Dice association >= --min-dice (0.3) with the term, each seen >= 3
times).  The correct translation is the reference; the contrastive one is the
reference with A replaced by B.  Only the document (the earlier use of A)
says which is right, so a context model should prefer the reference more
often than a sentence-level one.  The items are machine-built (Dice
associations), not checked by a person: some pairs are near-synonyms
(Optionen / Einstellungen, Bestimmungen / Vorschriften), some are noise;
items.jsonl lists them all.

    .venv/bin/python -m experiments.doccontext.contrastive build --data OUT/kde --out OUT/kde/contrastive
    .venv/bin/python -m experiments.doccontext.contrastive score --set OUT/kde/contrastive --model MODEL [...]

``build`` writes src.en, docs (the test documents with items, each from its
start to its last item, so that every item has its context), good.de (the references), bad.de (references with each item
line changed) and items.jsonl (line, term, A, B).  ``score`` runs
``verso score --model M --src src.en --hyp good.de|bad.de --docs docs`` and
prints the accuracy: items whose good line has the higher log-probability.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from benchmarks.paths import ROOT

from experiments.doccontext.consistency import term_of  # noqa: E402

_DE = re.compile(r"[^\W\d_]{4,}")
DE_STOP = set("""aber alle allen aller alles also andere anderen auch auf aus bei beim bereits dass dabei damit
dann darf daher dass dazu dein deine dem den denen der deren des dessen diese diesem diesen dieser dieses doch
dort durch eine einem einen einer eines einige etwa gegen gelten gilt haben hatte hier ihre ihrem ihren ihrer
immer jede jedem jeden jeder jedes kann keine können machen mehr muss müssen nach nicht noch nur oder ohne
sein seine seinem seinen seiner sich sind sollen soll sowie sondern unter viel vom von vor wann warum weil
welche welchem welchen welcher welches wenn werden wird wurde wurden zum zur zwischen über""".split())


def alternative(a: str, candidates: list[str], together: set) -> str | None:
    """A word the training data also use for the term: same capitalisation (noun for
    noun), not an inflection of ``a`` (different first four letters), no function word."""
    for b in candidates:
        if b == a or b.lower() in DE_STOP or a.lower() in DE_STOP:
            continue
        if b.isupper() or a.isupper():  # headings in capitals are no synonyms
            continue
        if b[0].isupper() != a[0].isupper() or b[:4].lower() == a[:4].lower():
            continue
        if (min(a, b), max(a, b)) in together:
            continue
        return b
    return None


def de_words(text: str) -> set[str]:
    return {w for w in (t.strip(".,;:!?()[]\"'«»„“”") for t in text.split()) if _DE.fullmatch(w)}


def en_terms(text: str) -> set[str]:
    return {t for t in map(term_of, text.split()) if t}


def variants(train_en: list[str], train_de: list[str], terms: set[str], min_dice: float
             ) -> tuple[dict[str, list[str]], set[tuple[str, str]]]:
    """Per English term, German words associated with it (Dice >= min_dice, >= 3 co-occurrences),
    best first; and the pairs of such words that share a sentence in >= 20 % of their uses."""
    c_e: Counter = Counter()
    c_g: Counter = Counter()
    c_eg: Counter = Counter()
    for e, g in zip(train_en, train_de):
        te = en_terms(e) & terms
        tg = de_words(g)
        c_g.update(tg)
        c_e.update(te)
        for t in te:
            for w in tg:
                c_eg[t, w] += 1
    out: dict[str, list[tuple[float, str]]] = {}
    for (t, w), c in c_eg.items():
        if c < 3:
            continue
        dice = 2 * c / (c_e[t] + c_g[w])
        if dice >= min_dice:
            out.setdefault(t, []).append((dice, w))
    var = {t: [w for _, w in sorted(v, reverse=True)] for t, v in out.items() if len(v) >= 2}
    # synonyms replace each other: drop a pair of words that often share a sentence
    words = {w for v in var.values() for w in v}
    c_ww: Counter = Counter()
    for g in train_de:
        tg = sorted(de_words(g) & words)
        for x in range(len(tg)):
            for y in range(x + 1, len(tg)):
                c_ww[tg[x], tg[y]] += 1
    together = {pair for pair, c in c_ww.items() if c / min(c_g[pair[0]], c_g[pair[1]]) >= 0.2}
    return {t: v for t, v in var.items() if v}, together


def build(data: Path, out: Path, *, k: int, min_dice: float, max_items: int) -> dict:
    from engine.nmt.data import read_lines
    from engine.nmt.documents import context_indices, read_doc_ids

    src = read_lines(data / "test.en")
    ref = read_lines(data / "test.de")
    ids = read_doc_ids(data / "test.doc", len(src), text_path=data / "test.en")
    ctx = context_indices(ids, k, src)
    terms = set().union(*(en_terms(s) for s in src))
    var, together = variants(read_lines(data / "train.en"), read_lines(data / "train.de"), terms, min_dice)
    bad = list(ref)
    items = []
    for i in range(len(src)):
        if len(items) >= max_items:
            break
        here = en_terms(src[i])
        for t in sorted(here & set(var)):
            prev = [j for j in ctx[i] if t in en_terms(src[j])]
            if not prev:
                continue
            words = de_words(ref[i])
            a = next((w for w in var[t] if w in words and any(w in de_words(ref[j]) for j in prev)), None)
            if a is None:
                continue
            b = alternative(a, var[t], together)
            if b is None:
                continue
            toks = ref[i].split()
            new = [tok.replace(a, b, 1) if tok.strip(".,;:!?()[]\"'«»„“”") == a else tok for tok in toks]
            if new == toks:
                continue
            bad[i] = " ".join(new)
            items.append({"line": i, "term": t, "good": a, "bad": b, "context_line": prev[-1]})
            break
    # keep only the documents with items, up to their last item (scoring reads less)
    from engine.nmt.documents import document_spans

    keep: list[int] = []
    for a, b_ in document_spans(ids):
        last = max((it["line"] for it in items if a <= it["line"] < b_), default=None)
        if last is not None:
            keep += range(a, last + 1)
    new_line = {old: new for new, old in enumerate(keep)}
    for it in items:
        it["test_line"] = it["line"]
        it["line"], it["context_line"] = new_line[it["line"]], new_line[it["context_line"]]
    src, ids, ref, bad = ([x[i] for i in keep] for x in (src, ids, ref, bad))
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in (("src.en", src), ("docs", ids), ("good.de", ref), ("bad.de", bad)):
        (out / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    with open(out / "items.jsonl", "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps(it, ensure_ascii=False) + "\n")
    return {"items": len(items), "terms_with_variants": len(var), "sentences": len(src),
            "documents": len(document_spans(ids))}


def verso_score(model: str, src: Path, hyp: Path, docs: Path | None, threads: int) -> list[float]:
    """Log-probabilities from ``verso score`` (last field of each line)."""
    cmd = [sys.executable, "-m", "engine", "score", "--model", model, "--src", str(src), "--hyp", str(hyp),
           "--threads", str(threads), "--device", os.environ.get("VERSO_BENCH_DEVICE", "cpu")]
    if docs is not None:
        cmd += ["--docs", str(docs)]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return [float(ln.split("\t")[-1]) for ln in res.stdout.splitlines()]


def score(folder: Path, model: str, *, threads: int, use_docs: bool = True) -> dict:
    items = [json.loads(x) for x in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    docs = folder / "docs" if use_docs else None
    good = verso_score(model, folder / "src.en", folder / "good.de", docs, threads)
    bad = verso_score(model, folder / "src.en", folder / "bad.de", docs, threads)
    right = sum(1 for it in items if good[it["line"]] > bad[it["line"]])
    return {"model": model, "items": len(items), "correct": right,
            "accuracy": round(100 * right / max(len(items), 1), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--data", required=True, help="a corpus folder of doc_data.py (train/test .en .de .doc)")
    b.add_argument("--out", required=True)
    b.add_argument("--k", type=int, default=3)
    b.add_argument("--min-dice", type=float, default=0.3)
    b.add_argument("--max-items", type=int, default=500)
    s = sub.add_parser("score")
    s.add_argument("--set", required=True)
    s.add_argument("--model", action="append", required=True)
    s.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "build":
        print(json.dumps(build(Path(args.data), Path(args.out), k=args.k, min_dice=args.min_dice,
                               max_items=args.max_items)))
    else:
        print(json.dumps([score(Path(args.set), m, threads=args.threads) for m in args.model], indent=2))


if __name__ == "__main__":
    main()
