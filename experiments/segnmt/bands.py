"""Per-sentence fuzzy bands of a test set against a TM, for significance tests by band (issue 5).

``verso eval --tm`` prints BLEU per band but not which sentence falls in which; this writes, with
the same retrieval (best pair of ``engine.nmt.retrieval.retrieve``), into ``--out``:

* ``tm_copy.hyp``: the target of each sentence's best match (empty without one) -- the "TM copy" system;
* ``scores.txt``: the best match's fuzzy score (0 without one);
* ``band-<name>.lines``: the 1-based line numbers of each band (``<0.3`` ... ``>=0.9``; ``lt`` / ``ge`` in names).

    .venv/bin/python -m experiments.segnmt.bands --tm $VERSO_RUNS/segnmt-jrc/tm \\
        --src $VERSO_RUNS/doc-data/jrc/test.en --out $VERSO_RUNS/segnmt-jrc/bands
    .venv/bin/python -m engine.nmt.significance --ref test.de --lines $VERSO_RUNS/segnmt-jrc/bands/band-ge0.9.lines \\
        tm-copy=$VERSO_RUNS/segnmt-jrc/bands/tm_copy.hyp model=model.hyp
"""
from __future__ import annotations

import argparse
from pathlib import Path



from engine.nmt.data import read_lines  # noqa: E402
from engine.nmt.retrieval import FUZZY_BANDS, band_of, retrieve  # noqa: E402
from engine.tm import TranslationMemory  # noqa: E402


def band_file(name: str) -> str:
    return "band-" + name.replace(">=", "ge").replace("<", "lt") + ".lines"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tm", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args(argv)
    srcs = read_lines(a.src)
    with TranslationMemory(a.tm, create=False) as tm:
        best = [next(iter(retrieve(tm, s, k=1)), None) for s in srcs]
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "tm_copy.hyp").write_text("".join((b.target if b else "") + "\n" for b in best), encoding="utf-8")
    scores = [b.score if b else 0.0 for b in best]
    (a.out / "scores.txt").write_text("".join(f"{s:.4f}\n" for s in scores), encoding="utf-8")
    for _, _, name in FUZZY_BANDS:
        lines = [i + 1 for i, s in enumerate(scores) if band_of(s) == name]
        (a.out / band_file(name)).write_text("".join(f"{n}\n" for n in lines), encoding="utf-8")
        print(f"{name}: {len(lines)} sentences")


if __name__ == "__main__":
    main()
