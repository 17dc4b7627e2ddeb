"""What a completion is chosen among (issue 47 item 3), measured on the dev split only: the translator
effort of ``benchmarks/effort.py --split dev`` (the demo corpus's dev manuals, a TM of its training
manuals: never the held-aside documents) once per setting of :data:`engine.nmt.completion.ALTERNATIVES`,
one after another in one process, the same documents and model.  Run from the repository root:

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.completion_choice --docs 5 --min-segs 10 --max-segs 40 \\
        --max-words 60 --variants search,suggestion

``search``: the constrained search's completion only; ``suggestion``: or the suggestion continued where
the model scores it better (any other options go to effort.py).  6e7f2c6 had a third, ``memory``: the best
TM match's target continued too.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="search,suggestion")
    a, rest = ap.parse_known_args(argv)
    import engine.nmt.completion as completion
    from benchmarks import effort

    out = {}
    for v in a.variants.split(","):
        completion.ALTERNATIVES = tuple(x for x in v.split("+") if x != "search")
        print(f"== {v}: ALTERNATIVES {completion.ALTERNATIVES}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            js = Path(tmp) / "effort.json"
            effort.main([*rest, "--split", "dev", "--json", str(js)])
            t = json.loads(js.read_text())["all"]
        out[v] = {"MT PE": t["mt_edits"] / t["ref_chars"],
                  "WSR": t["words_typed"] / max(1, t["interactive_words"]),
                  "KSR": t["chars_typed"] / max(1, t["char_chars"]),
                  "KSMR": (t["chars_typed"] + t["accepts"]) / max(1, t["char_chars"]), "asks": t["asks"]}
        print(json.dumps({v: out[v]}), flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
