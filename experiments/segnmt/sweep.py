"""The number of retrieved pairs at test time (issue 5: K = 1, 2, 4, 8, 16 and coverage selection) for one
SEG-NMT model on one test set, as Figure 3 of Gu et al. (2018).

``verso eval --tm`` translates the test set twice (without and with memory) for each K; this loads the model
once, translates without memory once (or reads an earlier run's hypotheses), then translates with each memory
setting and writes, per setting, the hypotheses and the JSON ``verso eval`` would print (BLEU, chrF, TER, the
band table of TM copy / no memory / memory; a setting ``K@MIN`` reads only the pairs scoring at least MIN, as
``verso eval --min-score``).  A setting whose JSON exists is skipped, so a stopped sweep
resumes where it stopped.  Run by hand, one thread beside other jobs:

    .venv/bin/python -m experiments.segnmt.sweep --model $VERSO_RUNS/segnmt-jrc/seg-ft600-s1 \\
        --tm $VERSO_RUNS/segnmt-jrc/tm --src $VERSO_RUNS/doc-data/jrc/test.en --ref $VERSO_RUNS/doc-data/jrc/test.de \\
        --out $VERSO_RUNS/segnmt-jrc/sweep-600 --settings 2,4,8,coverage,16 --threads 1
    .venv/bin/python -m experiments.segnmt.sweep --out $VERSO_RUNS/segnmt-jrc/sweep-600 --table

Top-K settings share one retrieval of the largest K (the first K of the top 16 are the top K: the TM's ranking
is deterministic); coverage selection (Algorithm 1) is its own retrieval.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path




def _parse(s: str) -> tuple[str, float | None]:
    """``"4"`` / ``"coverage"``, optionally ``@MIN`` (``"4@0.5"``: the pairs scoring at least 0.5 of the top 4,
    as ``verso eval --min-score``; without it every retrieved pair is read)."""
    kind, _, floor = s.partition("@")
    return kind, float(floor) if floor else None


def _setting_name(s: str) -> str:
    kind, floor = _parse(s)
    name = "coverage" if kind == "coverage" else f"k{int(kind)}"
    return name if floor is None else f"{name}-min{floor:g}"


def sweep(a) -> None:
    import torch

    from engine.fsutil import atomic_write
    from engine.nmt.data import read_lines
    from engine.nmt.evaluate import score_all
    from engine.nmt.retrieval import bleu_by_band, readable, retrieve
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    srcs, refs = read_lines(a.src), read_lines(a.ref)
    if len(srcs) != len(refs):
        sys.exit(f"{a.ref}: {len(refs)} lines, {a.src}: {len(srcs)}")
    settings = [s.strip() for s in a.settings.split(",") if s.strip()]
    todo = [s for s in settings if not (out / f"{_setting_name(s)}.json").exists()]
    if not todo:
        print("every setting is done", file=sys.stderr)
        return
    torch.set_num_threads(a.threads)
    tr = Translator.load(a.model)
    split = tr.loaded.cfg.data.max_len if a.split_long is None else a.split_long
    tm = TranslationMemory(a.tm, create=False)

    plain_file = out / "none.hyp"
    if a.plain:
        plain = read_lines(a.plain)
    elif plain_file.exists():
        plain = read_lines(plain_file)
    else:
        t0 = time.time()
        plain = [r.text for r in tr.translate(srcs, beam=a.beam, split_long=split)]
        with atomic_write(plain_file, "w", encoding="utf-8") as fh:
            fh.write("".join(h + "\n" for h in plain))
        print(f"no memory: {time.time() - t0:.0f} s", file=sys.stderr)
    if len(plain) != len(srcs):
        sys.exit(f"{a.plain or plain_file}: {len(plain)} lines, {a.src}: {len(srcs)}")

    kinds = [_parse(s)[0] for s in todo]
    top_k = max([int(kind) for kind in kinds if kind != "coverage"], default=0)
    t0 = time.time()
    ranked = [retrieve(tm, s, k=top_k) for s in srcs] if top_k else None
    if ranked is not None:
        print(f"top-{top_k} retrieval: {time.time() - t0:.0f} s", file=sys.stderr)
    for s in todo:
        name = _setting_name(s)
        t0 = time.time()
        kind, floor = _parse(s)
        if kind == "coverage":
            found = [retrieve(tm, x, k=4, coverage=True) for x in srcs]  # as verso eval --coverage
        else:
            found = [m[: int(kind)] for m in ranked]
        memory = found if floor is None else [readable(m, floor) for m in found]
        t_ret = time.time() - t0
        t0 = time.time()
        hyps = [r.text for r in tr.translate(srcs, beam=a.beam, memories=memory, split_long=split)]
        seconds = time.time() - t0
        res = score_all(hyps, refs, srcs)
        best = [m[0].score if m else 0.0 for m in found]  # bands and TM copy: the best match, read or not
        res.update({"model": a.model, "beam": a.beam, "split_long": split, "seconds": round(seconds, 1),
                    "retrieval_seconds": round(t_ret, 1)})
        res["tm"] = {"path": a.tm, "k": None if kind == "coverage" else int(kind), "coverage": kind == "coverage",
                     "min_score": floor or 0.0,
                     "pairs_per_sentence": round(sum(map(len, memory)) / max(1, len(memory)), 2),
                     **bleu_by_band({"tm_copy": [m[0].target if m else "" for m in found], "no_memory": plain,
                                     "memory": hyps}, refs, best)}
        with atomic_write(out / f"{name}.hyp", "w", encoding="utf-8") as fh:
            fh.write("".join(h + "\n" for h in hyps))
        with atomic_write(out / f"{name}.json", "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=2, ensure_ascii=False)
        print(f"{name}: BLEU {res['bleu']} ({seconds:.0f} s)", file=sys.stderr)


def table(a) -> None:
    """A Markdown table, one column per setting found in OUT (K ascending, coverage last)."""
    out = Path(a.out)
    runs = []
    for f in out.glob("*.json"):
        d = json.loads(f.read_text(encoding="utf-8"))
        t = d["tm"]
        runs.append((1 if t["coverage"] else 0, t["k"] or 0, t.get("min_score", 0.0), f.stem, d))
    runs.sort()
    if not runs:
        sys.exit(f"{out}: no setting has run yet")
    def rows(d):
        t = d["tm"]
        return [("all", t["overall"]["sentences"], t["overall"]["bleu"])] + [
            (b["band"], b["sentences"], b["bleu"]) for b in t["bands"]]

    head = ["band", "n", "TM copy", "no memory"] + [
        (f"coverage ({d['tm']['pairs_per_sentence']} pairs)" if c else f"K={k}") + (f", >= {m:g}" if m else "")
        for c, k, m, _, d in runs]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for i, (band, n, b0) in enumerate(rows(runs[0][-1])):
        row = [band, str(n), f"{b0['tm_copy']:.2f}", f"{b0['no_memory']:.2f}"]
        row += [f"{rows(d)[i][2]['memory']:.2f}" for *_, d in runs]
        print("| " + " | ".join(row) + " |")
    print("| seconds (translation) | | | | " + " | ".join(str(d["seconds"]) for *_, d in runs) + " |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for each setting's hypotheses and JSON")
    p.add_argument("--table", action="store_true", help="print the table of what OUT holds and stop")
    p.add_argument("--model")
    p.add_argument("--tm")
    p.add_argument("--src")
    p.add_argument("--ref")
    p.add_argument("--settings", default="1,2,4,8,16,coverage",
                   help="comma-separated K values and 'coverage', each optionally @MIN (a minimum match: '4@0.5')")
    p.add_argument("--plain", help="hypotheses of the model without memory from an earlier run (skips that pass)")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--split-long", type=int, default=None)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    if a.table:
        table(a)
    else:
        missing = [n for n in ("model", "tm", "src", "ref") if getattr(a, n) is None]
        if missing:
            p.error("needs " + ", ".join("--" + n for n in missing))
        sweep(a)


if __name__ == "__main__":
    main()
