"""Build document-level En->De corpora for the cross-sentence context experiments (issue 7).

Two corpora of ../shared/data, split by WHOLE documents into train / dev / test,
sentences kept in document order, with a document-id file beside each split:

* ``kde``: KDE 4.13 application manuals (``kde4-l10n-de/docs.*``, ids in
  ``docs.doc``); the held-out manuals are those of the demo model
  (``experiments.demo.prepare.held_out``), inline markup protected as tag
  characters exactly as there;
* ``jrc``: JRC-Acquis laws (``jrc-acquis-endefr/common.{en,de}``, CELEX ids in
  ``common.docid``); held-out laws chosen by the same stable hash rule.

Pairs longer than ``--max-words`` (either side) or with an empty side are
dropped from TRAINING only; dev/test keep every line so that documents stay
whole (the context of a sentence is its real predecessors).

    .venv/bin/python -m experiments.doccontext.prepare --out $VERSO_RUNS/doc-data [--max-train-docs N]

Writes OUT/{kde,jrc}/{train,dev,test}.{en,de,doc} and OUT/manifest.json (counts).
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from benchmarks.paths import SHARED_DATA

from engine.nmt.data import read_parallel  # noqa: E402
from engine.nmt.documents import document_spans, read_doc_ids  # noqa: E402
from experiments.demo.prepare import held_out, protect_pair  # noqa: E402

SPLITS = ("train", "dev", "test")


def split_of(doc: str, corpus: str) -> int:
    """0 train, 1 dev, 2 test.  KDE: the demo model's rule; JRC: 1 in 12 each (238 laws)."""
    if corpus == "kde":
        return held_out(doc)
    h = int(hashlib.sha1(doc.encode()).hexdigest(), 16) % 24
    return 1 if h in (0, 1) else 2 if h in (2, 3) else 0


def build(corpus: str, src: list[str], tgt: list[str], ids: list[str], out: Path, *, max_words: int,
          markup: bool, max_train_docs: int = 0) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[int, list[tuple[str, str, str]]] = {0: [], 1: [], 2: []}
    docs_seen = {0: 0, 1: 0, 2: 0}
    for a, b in document_spans(ids):
        split = split_of(ids[a], corpus)
        if split == 0 and max_train_docs and docs_seen[0] >= max_train_docs:
            continue
        docs_seen[split] += 1
        for i in range(a, b):
            s, t = src[i].strip(), tgt[i].strip()
            if markup:
                p = protect_pair(s, t)
                if p is None:
                    if split == 0:
                        continue
                    p = (s, t)  # dev/test keep the line (documents stay whole)
                s, t = p
            if split == 0 and (not s or not t or len(s.split()) > max_words or len(t.split()) > max_words):
                continue
            rows[split].append((s, t, f"{corpus}:{ids[i]}"))
    counts = {}
    for k, name in enumerate(SPLITS):
        for j, ext in enumerate(("en", "de", "doc")):
            (out / f"{name}.{ext}").write_text("".join(r[j].replace("\n", " ") + "\n" for r in rows[k]),
                                               encoding="utf-8")
        counts[name] = {"sentences": len(rows[k]), "documents": docs_seen[k]}
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(SHARED_DATA))
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-words", type=int, default=80)
    ap.add_argument("--max-train-docs", type=int, default=0, help="keep only the first N training documents (slices)")
    ap.add_argument("--corpora", default="kde,jrc")
    args = ap.parse_args()
    data, out = Path(args.data), Path(args.out)
    manifest = {"max_words": args.max_words, "max_train_docs": args.max_train_docs}
    for corpus in args.corpora.split(","):
        if corpus == "kde":
            d = data / "kde4-l10n-de"
            src, tgt = read_parallel(d / "docs.en", d / "docs.de")
            ids = read_doc_ids(d / "docs.doc", len(src), text_path=d / "docs.en")
            markup = True
        elif corpus == "jrc":
            d = data / "jrc-acquis-endefr"
            src, tgt = read_parallel(d / "common.en", d / "common.de")
            ids = read_doc_ids(d / "common.docid", len(src), text_path=d / "common.en")
            markup = False
        else:
            raise SystemExit(f"unknown corpus {corpus!r} (kde, jrc)")
        manifest[corpus] = build(corpus, src, tgt, ids, out / corpus, max_words=args.max_words,
                                 markup=markup, max_train_docs=args.max_train_docs)
        print(corpus, json.dumps(manifest[corpus]))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
