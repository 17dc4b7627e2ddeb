"""Sentence breaks against known ones: Verso's SRX rules vs pysbd (and sentencex, blingfire as anchors).

    .venv/bin/python -m benchmarks.segmentation [--lines 20000] [--per 4] [--anchors-python PY]

Real line-aligned corpora (shared data) whose lines are sentences: consecutive lines of one document
are joined, ``--per`` at a time, with a space into a paragraph, so the known sentence starts are where
each line starts.  For each segmenter: precision and recall of its cuts against those, and its speed
(MB of text per CPU second, segmentation alone).  Caveats, true of every segmenter alike: a line
without a final mark ("Article 1", a title) is a known start no rule can see; the Hansards are
tokenised with a lower-cased first word; python-docs-fr lines are paragraphs of several sentences,
so there precision counts true sentence ends inside a line as wrong.

``--anchors-python``: a Python with ``sentencex`` and ``blingfire`` installed (not Verso's
dependencies; e.g. a separate venv); this script runs there as a worker (``--worker NAME``), reading
the paragraphs as JSON on stdin.  Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CORPORA = [  # (name, folder, text file, document-id file, language)
    ("jrc-en", "jrc-acquis-endefr", "common.en", "common.docid", "en"),
    ("jrc-de", "jrc-acquis-endefr", "common.de", "common.docid", "de"),
    ("jrc-fr", "jrc-acquis-endefr", "common.fr", "common.docid", "fr"),
    ("kde-en", "kde4-l10n-de", "docs.en", "docs.doc", "en"),
    ("kde-de", "kde4-l10n-de", "docs.de", "docs.doc", "de"),
    ("hansards-en", "hansards-senate-enfr", "senate.en", "senate.docid", "en"),
    ("hansards-fr", "hansards-senate-enfr", "senate.fr", "senate.docid", "fr"),
    ("pydocs-fr", "python-docs-fr", "docs.fr", "docs.doc", "fr"),
]


def paragraphs(folder, text: str, docs: str, lines: int, per: int) -> list[tuple[str, list[int]]]:
    """(paragraph, known sentence starts after the first) from the corpus' first ``lines`` lines."""
    src = (folder / text).read_text(encoding="utf-8").splitlines()[:lines]
    ids = (folder / docs).read_text(encoding="utf-8").splitlines()[:lines]
    out: list[tuple[str, list[int]]] = []
    cur: list[str] = []
    last = None

    def flush() -> None:
        if cur:
            starts, pos = [], 0
            for i, s in enumerate(cur):
                if i:
                    starts.append(pos)
                pos += len(s) + 1
            out.append((" ".join(cur), starts))
            cur.clear()

    for line, doc in zip(src, ids):
        line = line.strip()
        if not line:
            continue
        if doc != last or len(cur) == per:
            flush()
        cur.append(line)
        last = doc
    flush()
    return out


def starts_of(text: str, sentences) -> list[int]:
    """Offsets of each sentence's first non-space character (the first sentence's left out)."""
    out, pos = [], 0
    for s in sentences:
        core = s.strip()
        if not core:
            continue
        at = text.find(core, pos)
        if at < 0:
            break
        out.append(at)
        pos = at + len(core)
    return out[1:]


# ------------------------------------------------------------------ segmenters
def run_srx(paras: list[str], lang: str) -> list[list[int]]:
    from engine.segmentation import segment_text

    return [starts_of(p, segment_text(p, lang).sentences) for p in paras]


def run_pysbd(paras: list[str], lang: str) -> list[list[int]]:
    import pysbd
    from pysbd.languages import LANGUAGE_CODES

    seg = pysbd.Segmenter(language=lang if lang in LANGUAGE_CODES else "en", clean=False)
    return [starts_of(p, seg.segment(p)) for p in paras]


def run_sentencex(paras: list[str], lang: str) -> list[list[int]]:
    import sentencex

    return [starts_of(p, sentencex.segment(lang, p)) for p in paras]


def run_blingfire(paras: list[str], lang: str) -> list[list[int]]:
    import blingfire

    out = []
    for p in paras:
        _, offsets = blingfire.text_to_sentences_and_offsets(p)
        out.append([a for a, _ in offsets][1:] if offsets else [])
    return out


RUNNERS = {"srx": run_srx, "pysbd": run_pysbd, "sentencex": run_sentencex, "blingfire": run_blingfire}


def timed(name: str, paras: list[str], lang: str) -> tuple[list[list[int]], float]:
    t = time.process_time()
    cuts = RUNNERS[name](paras, lang)
    return cuts, time.process_time() - t


def score(known: list[list[int]], found: list[list[int]]) -> dict:
    tp = sum(len(set(k) & set(f)) for k, f in zip(known, found))
    nk, nf = sum(map(len, known)), sum(map(len, found))
    p, r = (tp / nf if nf else 0.0), (tp / nk if nk else 0.0)
    return {"precision": round(p, 3), "recall": round(r, 3), "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0}


def worker(name: str) -> int:
    job = json.load(sys.stdin)
    cuts, cpu = timed(name, job["paras"], job["lang"])
    json.dump({"cuts": cuts, "cpu": cpu}, sys.stdout)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=20000, help="lines read from each corpus")
    ap.add_argument("--per", type=int, default=4, help="lines joined into one paragraph")
    ap.add_argument("--anchors-python", default=None, metavar="PY")
    ap.add_argument("--corpora", default=",".join(c[0] for c in CORPORA))
    ap.add_argument("--worker", choices=["sentencex", "blingfire"], default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker)
    from benchmarks.paths import SHARED_DATA

    results = []
    for name, folder, text, docs, lang in CORPORA:
        if name not in a.corpora.split(","):
            continue
        data = paragraphs(SHARED_DATA / folder, text, docs, a.lines, a.per)
        paras, known = [p for p, _ in data], [k for _, k in data]
        mb = sum(len(p.encode("utf-8")) for p in paras) / 1e6
        row = {"corpus": name, "lang": lang, "paragraphs": len(paras), "known_starts": sum(map(len, known)),
               "mb": round(mb, 2)}
        for seg in ("srx", "pysbd"):
            cuts, cpu = timed(seg, paras, lang)
            row[seg] = {**score(known, cuts), "mb_per_cpu_s": round(mb / cpu, 2)}
        if a.anchors_python:
            for seg in ("sentencex", "blingfire"):
                r = subprocess.run([a.anchors_python, __file__, "--worker", seg], capture_output=True, text=True,
                                   input=json.dumps({"paras": paras, "lang": lang}))
                if r.returncode:
                    row[seg] = {"error": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"}
                    continue
                got = json.loads(r.stdout)
                row[seg] = {**score(known, got["cuts"]), "mb_per_cpu_s": round(mb / got["cpu"], 2)}
        results.append(row)
        print(json.dumps(row), file=sys.stderr)
    print(json.dumps({"lines": a.lines, "per": a.per, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
