"""Markup through the command line, measured on real KDE manual sentences (issue 23).

    .venv/bin/python -m benchmarks.markup_cli [--model resources/models/demo] [--n 300]

1. **Tags in `verso translate`**: of the held-out KDE manual sentences (the demo model's test
   documents, ``nmt_demo_data.held_out``) that hold DocBook markup or entities, the share whose
   printed translation has exactly the source's tags, each once, opening before closing --
   with the default ``--markup protect`` and, for comparison, with ``--markup none`` (the old
   reading: markup as words); and how often the model's own placement was already valid
   (before :func:`engine.nmt.tagfix.repair`).
2. **TM search recall**: the held-out pairs imported with ``verso tm import`` (line-aligned text,
   markup protected), each source queried with ``verso tm search --queries``; recall@1 of its own
   100 % match for queries with markup and for queries without.

Runs the real commands in subprocesses; prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.paths import ROOT, SHARED_DATA

from engine.formats.textutil import protect_text  # noqa: E402
from engine.inline import TaggedText  # noqa: E402
from engine.qa import check_tags  # noqa: E402
from experiments.demo.prepare import held_out  # noqa: E402

KDE = SHARED_DATA / "kde4-l10n-de"
MARKUP = re.compile(r"<[A-Za-z/][^>]*>|&[A-Za-z#][A-Za-z0-9]*;")
VERSO = [sys.executable, "-m", "engine"]


def exact_tags(source: str, printed: str) -> bool:
    """The printed line holds exactly the source's markup (as a multiset), and it is balanced:
    read back as a file's text, every closing tag closes the innermost open one of its name."""
    if Counter(MARKUP.findall(source)) != Counter(MARKUP.findall(printed)):
        return False
    src_pairs = sum(t.kind == "open" for t in protect_text(source).tags)
    out = protect_text(printed)
    opens = [t for t in out.tags if t.kind == "open"]
    closes = {t.pair for t in out.tags if t.kind == "close"}
    return len(opens) == src_pairs and all(t.pair in closes for t in opens)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(ROOT / "resources" / "models" / "demo"))
    ap.add_argument("--n", type=int, default=300, help="sentences with markup to translate")
    a = ap.parse_args()
    en = (KDE / "docs.en").read_text(encoding="utf-8").splitlines()
    de = (KDE / "docs.de").read_text(encoding="utf-8").splitlines()
    doc = (KDE / "docs.doc").read_text(encoding="utf-8").splitlines()
    test = [(s, t) for s, t, d in zip(en, de, doc) if held_out(d) == 2 and s.strip() and t.strip()]
    marked = [s for s, _ in test if MARKUP.search(s)][:a.n]
    out: dict = {"model": a.model, "test_pairs": len(test), "with_markup": len(marked)}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "src.txt").write_text("\n".join(marked) + "\n", encoding="utf-8")
        for mode in ("protect", "none"):
            res = subprocess.run(VERSO + ["translate", "--model", a.model, "--json", "--markup", mode, "--threads", "1"],
                                 input=(tmp / "src.txt").read_text(encoding="utf-8"), capture_output=True,
                                 text=True, cwd=ROOT, check=True)
            rows = [json.loads(x) for x in res.stdout.splitlines()]
            ok = sum(exact_tags(s, r["translation"]) for s, r in zip(marked, rows))
            out[f"translate_{mode}"] = {"exact_tags": ok, "share": round(ok / max(1, len(marked)), 4)}
            if mode == "protect":
                own = 0
                for s, r in zip(marked, rows):
                    src = protect_text(s)
                    # the model's own output before repair: the JSON's words joined hold its codes
                    words = " ".join(r.get("words", []))
                    own += not list(check_tags(src, TaggedText(words, src.tags)))
                out["model_placement_valid"] = {"count": own, "share": round(own / max(1, len(marked)), 4)}
        # TM recall with and without markup in the query
        (tmp / "s.txt").write_text("\n".join(s for s, _ in test) + "\n", encoding="utf-8")
        (tmp / "t.txt").write_text("\n".join(t for _, t in test) + "\n", encoding="utf-8")
        subprocess.run(VERSO + ["tm", "import", str(tmp / "s.txt"), "--target-file", str(tmp / "t.txt"),
                                "--tm", str(tmp / "tm"), "--src-lang", "en", "--tgt-lang", "de"],
                       capture_output=True, cwd=ROOT, check=True)
        sample = [s for s, _ in test][:2000]
        (tmp / "q.txt").write_text("\n".join(sample) + "\n", encoding="utf-8")
        for mode in ("protect", "none"):
            res = subprocess.run(VERSO + ["tm", "search", "--tm", str(tmp / "tm"), "--queries", str(tmp / "q.txt"),
                                          "--k", "1", "--json", "--markup", mode],
                                 capture_output=True, text=True, cwd=ROOT, check=True)
            hits = {"markup": [0, 0], "plain": [0, 0]}
            for q, line in zip(sample, res.stdout.splitlines()):
                r = json.loads(line)
                kind = "markup" if MARKUP.search(q) else "plain"
                hits[kind][1] += 1
                hits[kind][0] += bool(r["matches"]) and r["matches"][0]["score"] >= 1.0
            out[f"tm_recall_{mode}"] = {k: {"found": f, "queries": n, "recall": round(f / max(1, n), 4)}
                                        for k, (f, n) in hits.items()}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
