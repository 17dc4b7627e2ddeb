"""TM copy / no memory / learned memory / kNN memory by fuzzy band, for one model on one test set (issue 24).

For a model folder, a TM and a test set (source, reference) this writes into ``--out``, per system, the
hypotheses (``NAME.hyp``) and a JSON (``NAME.json``: BLEU, chrF, TER overall, BLEU and chrF by fuzzy band of
the sentence's best match, pairs read per sentence, seconds).  Systems (``--systems``, comma-separated):

* ``tm_copy``: the target of the sentence's best TM match (empty without one);
* ``none``: the model without memory, every sentence;
* ``learned@K``: the model's learned memory reading the top K pairs that score at least ``--min-score``
  (0.3, the editor's floor) -- only for a model trained with one (``model.memory`` not ``none``);
* ``knn@K`` / ``knn@K/k``: the training-free nearest-neighbour memory over the same pairs, with the k nearest
  datastore entries (k = 1 without ``/k``).

**Speed**: a sentence with no pair at or above the minimum match gets exactly the model's no-memory output
(by construction of ``Translator.translate``; tested in tests/), so a memory system translates only the
sentences that read at least one pair and copies the ``none`` hypothesis for the rest (``none`` therefore
runs first; its hypotheses are read back when they exist).  A system whose JSON exists is skipped, so a
stopped run resumes.  The retrieval (top max-K, the TM's ranking is deterministic so the first K of it are
the top K) is stored in ``retrieval.json`` and reused; the bands and the TM copy take the best match, read or
not, as ``verso eval --tm`` does; ``scores.txt`` and ``band-*.lines`` (as experiments/segnmt/bands.py) allow
engine/nmt/significance.py by hand.  Beam 5, one thread, fp32 unless ``--quantize`` (int8).

    nice -n 10 .venv/bin/python -m benchmarks.knn_bands --model resources/models/demo --tm $VERSO_RUNS/knn/tm-kde \\
        --src $VERSO_RUNS/doc-data/kde/test.en --ref $VERSO_RUNS/doc-data/kde/test.de \\
        --out $VERSO_RUNS/knn/kde-demo --systems tm_copy,none,learned@2,learned@4,knn@1,knn@2,knn@4,knn@2/4
    .venv/bin/python -m benchmarks.knn_bands --out $VERSO_RUNS/knn/kde-demo --table [--samples 1000]

``--table`` prints Markdown tables (band rows x system columns, sentence counts; BLEU, then chrF), each
memory system's cell with the p of the paired bootstrap against ``none`` (engine/nmt/significance.py,
1,000 resamples, sacrebleu's fixed seed; ``--samples 0`` leaves it out; "= none": the same hypotheses as
``none`` in that band, where the bootstrap's p means nothing).
"""
from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import time
from pathlib import Path



_SYSTEM = re.compile(r"^(tm_copy|none|(learned|knn)@(\d+)(?:/(\d+))?)$")


def parse_system(s: str) -> tuple[str, int, int]:
    """``"knn@2/4"`` -> ``("knn", 2, 4)``; ``"learned@4"`` -> ``("learned", 4, 0)``; ``"none"`` -> ``("none", 0, 0)``."""
    m = _SYSTEM.match(s.strip())
    if not m:
        raise ValueError(f"{s!r}: a system is tm_copy, none, learned@K, knn@K or knn@K/k")
    if m.group(2) is None:
        return m.group(1), 0, 0
    kind, big_k = m.group(2), int(m.group(3))
    small_k = int(m.group(4)) if m.group(4) else (1 if kind == "knn" else 0)
    if kind == "learned" and m.group(4):
        raise ValueError(f"{s!r}: k (nearest entries) is for knn only")
    return kind, big_k, small_k


def file_name(s: str) -> str:
    """A system's file stem: ``knn@2/4`` -> ``knn-K2-k4``, ``learned@2`` -> ``learned-K2``."""
    kind, big_k, small_k = parse_system(s)
    if kind in ("tm_copy", "none"):
        return kind
    return f"{kind}-K{big_k}" + (f"-k{small_k}" if kind == "knn" else "")


def band_file(name: str) -> str:
    return "band-" + name.replace(">=", "ge").replace("<", "lt") + ".lines"


def _write_lines(path: Path, lines: list[str]) -> None:
    from engine.fsutil import atomic_write

    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write("".join(x + "\n" for x in lines))


def _retrieval(a, srcs: list[str], top_k: int) -> list[list]:
    """The top ``top_k`` pairs of every sentence (RetrievedPairs), from ``retrieval.json`` when it holds as many."""
    from engine.nmt.retrieval import RetrievedPair, retrieve
    from engine.tm import TranslationMemory

    path = Path(a.out) / "retrieval.json"
    if path.exists():
        d = json.loads(path.read_text(encoding="utf-8"))
        if d["k"] >= top_k and d["tm"] == str(a.tm) and d["sentences"] == len(srcs):
            return [[RetrievedPair(p["source"], p["target"], p["score"], uid=p.get("id")) for p in row[:top_k]]
                    for row in d["pairs"]]
    t0 = time.time()
    with TranslationMemory(a.tm, create=False) as tm:
        found = [retrieve(tm, s, k=top_k) for s in srcs]
    print(f"top-{top_k} retrieval: {time.time() - t0:.0f} s", file=sys.stderr)
    from engine.fsutil import atomic_write

    with atomic_write(path, "w", encoding="utf-8") as fh:
        json.dump({"tm": str(a.tm), "k": top_k, "sentences": len(srcs), "seconds": round(time.time() - t0, 1),
                   "pairs": [[p.to_json() for p in row] for row in found]}, fh, ensure_ascii=False)
    return found


def _bands(hyps: list[str], refs: list[str], best: list[float]) -> dict:
    """BLEU and chrF overall and per fuzzy band (empty bands left out)."""
    from sacrebleu.metrics import CHRF

    from engine.nmt.retrieval import FUZZY_BANDS, bleu_by_band

    by = bleu_by_band({"s": hyps}, refs, best)
    chrf = CHRF()
    out = [{"band": "all", "sentences": len(refs), "bleu": by["overall"]["bleu"]["s"],
            "chrf": round(chrf.corpus_score(hyps, [refs]).score, 2)}]
    for b in by["bands"]:
        lo, hi = next((lo, hi) for lo, hi, name in FUZZY_BANDS if name == b["band"])
        idx = [i for i, s in enumerate(best) if lo <= s < hi]
        out.append({"band": b["band"], "sentences": b["sentences"], "bleu": b["bleu"]["s"],
                    "chrf": round(chrf.corpus_score([hyps[i] for i in idx], [[refs[i] for i in idx]]).score, 2)})
    return {"bands": out}


def run(a) -> None:
    import torch

    from engine.nmt.data import read_lines
    from engine.nmt.evaluate import score_all
    from engine.nmt.retrieval import FUZZY_BANDS, band_of, readable

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    srcs, refs = read_lines(a.src), read_lines(a.ref)
    if len(srcs) != len(refs):
        sys.exit(f"{a.ref}: {len(refs)} lines, {a.src}: {len(srcs)}")
    systems = [s.strip() for s in a.systems.split(",") if s.strip()]
    parsed = {s: parse_system(s) for s in systems}
    top_k = max([1] + [k for _, k, _ in parsed.values()])
    found = _retrieval(a, srcs, top_k)
    best = [m[0].score if m else 0.0 for m in found]  # bands and TM copy: the best match, read or not
    (out / "scores.txt").write_text("".join(f"{s:.4f}\n" for s in best), encoding="utf-8")
    for _, _, name in FUZZY_BANDS:
        (out / band_file(name)).write_text(
            "".join(f"{i + 1}\n" for i, s in enumerate(best) if band_of(s) == name), encoding="utf-8")

    todo = [s for s in systems if not (out / f"{file_name(s)}.json").exists()]
    if not todo:
        print("every system is done", file=sys.stderr)
        return
    if any(parsed[s][0] != "tm_copy" for s in todo) and "none" not in todo and not (out / "none.hyp").exists():
        todo.insert(0, "none")  # the memory systems copy its hypotheses
    todo.sort(key=lambda s: {"tm_copy": 0, "none": 1}.get(parsed.get(s, ("none",))[0], 2))

    tr = None
    meta = {"model": a.model, "tm": str(a.tm), "src": a.src, "ref": a.ref, "beam": a.beam,
            "min_score": a.min_score, "quantized": a.quantize, "threads": a.threads}
    for s in todo:
        kind, big_k, small_k = parse_system(s)
        name = file_name(s)
        t0 = time.time()
        n_pairs, translated = [0] * len(srcs), 0
        if kind == "tm_copy":
            hyps = [m[0].target if m else "" for m in found]
        else:
            if tr is None:
                from engine.nmt.translator import Translator

                torch.set_num_threads(a.threads)
                tr = Translator.load(a.model, quantize=a.quantize)
                split = tr.loaded.cfg.data.max_len if a.split_long is None else a.split_long
                has_mode = "memory_mode" in inspect.signature(tr.translate).parameters
                learned = getattr(tr.loaded.cfg.model, "memory", "none") != "none"
                meta["split_long"] = split
            if kind == "none":
                hyps = [r.text for r in tr.translate(srcs, beam=a.beam, split_long=split)]
                translated = len(srcs)
            else:
                if kind == "learned" and not learned:
                    print(f"{s}: {a.model} has no learned memory, skipped", file=sys.stderr)
                    continue
                if kind == "knn" and not has_mode:
                    print(f"{s}: Translator.translate has no memory_mode yet (the kNN commit), skipped",
                          file=sys.stderr)
                    continue
                plain = read_lines(out / "none.hyp")
                memory = [readable(m[:big_k], a.min_score) for m in found]
                n_pairs = [len(m) for m in memory]
                idx = [i for i, m in enumerate(memory) if m]
                kw = {}
                if has_mode:
                    kw["memory_mode"] = kind
                if kind == "knn":
                    kw["knn_k"] = small_k
                res = tr.translate([srcs[i] for i in idx], beam=a.beam, memories=[memory[i] for i in idx],
                                   split_long=split, **kw) if idx else []
                hyps = list(plain)
                for i, r in zip(idx, res):
                    hyps[i] = r.text
                translated = len(idx)
        seconds = time.time() - t0
        d = {"system": s, **meta, "k": big_k or None, "knn_k": small_k or None,
             "pairs_per_sentence": round(sum(n_pairs) / max(1, len(srcs)), 2),
             "sentences_with_pairs": sum(1 for n in n_pairs if n), "sentences_translated": translated,
             "seconds": round(seconds, 1), "scores": score_all(hyps, refs, srcs), **_bands(hyps, refs, best)}
        _write_lines(out / f"{name}.hyp", hyps)
        from engine.fsutil import atomic_write

        with atomic_write(out / f"{name}.json", "w", encoding="utf-8") as fh:
            json.dump(d, fh, indent=2, ensure_ascii=False)
        print(f"{s}: BLEU {d['scores']['bleu']} chrF {d['scores']['chrf']} ({translated} sentences translated, "
              f"{seconds:.0f} s)", file=sys.stderr)


def _order(s: str) -> tuple:
    kind, big_k, small_k = parse_system(s)
    return ({"tm_copy": 0, "none": 1, "learned": 2, "knn": 3}[kind], big_k, small_k)


def table(a) -> None:
    from engine.nmt.significance import paired_bootstrap

    out = Path(a.out)
    runs = {}
    for f in out.glob("*.json"):
        if f.name == "retrieval.json":
            continue
        d = json.loads(f.read_text(encoding="utf-8"))
        runs[d["system"]] = d
    if not runs:
        sys.exit(f"{out}: no system has run yet")
    names = sorted(runs, key=_order)
    refs = Path(runs[names[0]]["ref"]).read_text(encoding="utf-8").splitlines()
    hyps = {s: (out / f"{file_name(s)}.hyp").read_text(encoding="utf-8").splitlines() for s in names}
    bands = [b["band"] for b in runs[names[0]]["bands"]]
    lines = {"all": list(range(len(refs)))}
    for b in bands[1:]:
        lines[b] = [int(x) - 1 for x in (out / band_file(b)).read_text(encoding="utf-8").split()]
    p = {}  # (system, band) -> (p BLEU, p chrF) against none
    others = [s for s in names if s not in ("none",)]
    if a.samples and "none" in names and others:
        for b in bands:
            keep = lines[b]
            if len(keep) < 2:
                continue
            rows = paired_bootstrap([refs[i] for i in keep], [(s, [hyps[s][i] for i in keep])
                                                              for s in ["none"] + others], a.samples)
            for r in rows[1:]:
                same = all(hyps[r["name"]][i] == hyps["none"][i] for i in keep)
                p[(r["name"], b)] = (None, None) if same else (r["bleu"]["p"], r["chrf"]["p"])
    model = runs[names[-1]]["model"]
    print(f"Model {model}, TM {runs[names[0]]['tm']}, test {runs[names[0]]['src']} ({len(refs)} sentences); "
          f"minimum match {runs[names[-1]]['min_score']}, beam {runs[names[-1]]['beam']}"
          + (f"; p: paired bootstrap against none, {a.samples} resamples" if p else ""))
    for metric, j in (("BLEU", 0), ("chrF", 1)):
        print(f"\n{metric}:\n")
        head = ["band", "n"] + names
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for i, b in enumerate(bands):
            row = [b, f"{runs[names[0]]['bands'][i]['sentences']:,}"]
            for s in names:
                cell = f"{runs[s]['bands'][i][metric.lower()]:.2f}"
                if (s, b) in p:
                    cell += " (= none)" if p[(s, b)][j] is None else f" (p {p[(s, b)][j]:.3f})"
                row.append(cell)
            print("| " + " | ".join(row) + " |")
    print("\n| system | pairs read / sentence | sentences with pairs | sentences translated | seconds |")
    print("|---|---|---|---|---|")
    for s in names:
        d = runs[s]
        print(f"| {s} | {d['pairs_per_sentence']} | {d['sentences_with_pairs']} | {d['sentences_translated']} "
              f"| {d['seconds']} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for each system's hypotheses and JSON")
    p.add_argument("--table", action="store_true", help="print the tables of what OUT holds and stop")
    p.add_argument("--samples", type=int, default=1000, help="--table: bootstrap resamples (0: no p)")
    p.add_argument("--model")
    p.add_argument("--tm")
    p.add_argument("--src")
    p.add_argument("--ref")
    p.add_argument("--systems", default="tm_copy,none,learned@2,learned@4,knn@1,knn@2,knn@4,knn@2/4")
    p.add_argument("--min-score", type=float, default=0.3, help="the minimum match of a pair the memory reads")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--split-long", type=int, default=None)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--quantize", action="store_true", help="int8 dynamic quantisation (off: fp32)")
    a = p.parse_args()
    if a.table:
        table(a)
        return
    missing = [n for n in ("model", "tm", "src", "ref") if getattr(a, n) is None]
    if missing:
        p.error("needs " + ", ".join("--" + n for n in missing))
    for s in a.systems.split(","):
        if s.strip():
            try:
                parse_system(s)
            except ValueError as e:
                p.error(str(e))
    run(a)


if __name__ == "__main__":
    main()
