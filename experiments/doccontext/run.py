"""Cross-sentence context experiments (issue 7, Table 1 of Wang et al. 2017) on two document corpora.

Systems (``SYSTEMS``): baseline, init-enc, init-dec, init-both, aux, gated-aux and
the paper's best combination (init-both + gated-aux); two seeds each; corpora
KDE manuals En->De and JRC-Acquis En->De split by document (``python -m experiments.doccontext.prepare``).

    # 1. data (outside the repo) and the contrastive sets
    .venv/bin/python -m experiments.doccontext.prepare --out $VERSO_RUNS/doc-data
    .venv/bin/python -m experiments.doccontext.contrastive build --data $VERSO_RUNS/doc-data/kde --out $VERSO_RUNS/doc-data/kde/contrastive
    .venv/bin/python -m experiments.doccontext.contrastive build --data $VERSO_RUNS/doc-data/jrc --out $VERSO_RUNS/doc-data/jrc/contrastive
    # 2. configs (committed): experiments/doccontext/config/{kde,jrc}/SYSTEM-sSEED.toml, each extending base.toml
    # 3. train each (GPU session), e.g.
    .venv/bin/python -m engine train --config experiments/doccontext/config/kde/gated-aux-s1.toml --out $VERSO_RUNS/doc/kde/gated-aux-s1 --quiet
    # 4. test BLEU/chrF, consistency, contrastive accuracy of every trained run, as a table
    .venv/bin/python -m experiments.doccontext.run evaluate --runs $VERSO_RUNS/doc --data $VERSO_RUNS/doc-data
    # CPU protocol (no GPU): every system continues the same trained sentence-level
    # baseline (the demo model's baseline, runs/demo-small, which never saw the held-out
    # KDE manuals) for the same number of steps; "baseline" continues it without context
    # (configs: experiments/doccontext/config/{kde,jrc}_ft/SYSTEM-sSEED.toml)
    experiments/doccontext/ft_run.sh kde 1        # trains the 7 systems one after another, 1 thread
    .venv/bin/python -m experiments.doccontext.run evaluate --runs $VERSO_RUNS/doc-ft --data $VERSO_RUNS/doc-data
    # smoke test of the whole pipeline on slices with tiny models (CPU, minutes)
    .venv/bin/python -m experiments.doccontext.run smoke --data $VERSO_RUNS/doc-data --out $VERSO_RUNS/doc-smoke
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.paths import ROOT

SYSTEMS = {
    "baseline": [],
    "init-enc": ["init-enc"],
    "init-dec": ["init-dec"],
    "init-both": ["init-enc", "init-dec"],
    "aux": ["aux"],
    "gated-aux": ["gated-aux"],
    "best": ["init-enc", "init-dec", "gated-aux"],
}
CORPORA = ("kde", "jrc")
SEEDS = (1, 2)
#: where evaluation decodes: cpu (default) or cuda (a GPU session)
DEVICE = os.environ.get("VERSO_BENCH_DEVICE", "cpu")

MODEL = {"emb_dim": 256, "hidden": 512, "cell": "gru", "readout": "maxout", "tie": "decoder",
         "context_gate": "none", "dropout": 0.3, "emb_dropout": 0.1, "doc_k": 3}
TRAIN = {"batch_tokens": 4000, "lr": 0.0005, "clip": 1.0, "label_smoothing": 0.1, "max_epochs": 20,
         "eval_every": 0, "dev_beam": 1, "patience": 4, "lr_decay": 0.5, "lr_patience": 2, "log_every": 50,
         "checkpoint_every": 500, "device": "auto", "batching": "length"}


#: CPU protocol: continue the demo baseline (emb 128, hidden 256, context gates) with each strategy
FT_BASE = "$VERSO_RUNS/demo-small"
FT_MODEL = {"emb_dim": 128, "hidden": 256, "cell": "gru", "readout": "maxout", "tie": "decoder",
            "context_gate": "both", "dropout": 0.1, "emb_dropout": 0.1, "doc_k": 3}
FT_TRAIN = {"batch_tokens": 3000, "lr": 0.001, "clip": 1.0, "label_smoothing": 0.1, "max_epochs": 20,
            "max_steps": 400, "eval_every": 100, "dev_beam": 1, "patience": 10, "lr_decay": 0.5,
            "lr_patience": 10, "log_every": 20, "checkpoint_every": 100, "device": "auto",
            "batching": "length", "threads": 1, "save_dtype": "float16", "init_from": FT_BASE}


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def config_dict(corpus: str, system: str, seed: int, data_dir: str, protocol: str = "scratch") -> dict:
    d = data_dir.rstrip("/") + f"/{corpus}"
    cfg = {
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": f"{d}/train.en", "train_tgt": f"{d}/train.de",
                 "train_docs": f"{d}/train.doc", "dev_src": f"{d}/dev.en", "dev_tgt": f"{d}/dev.de",
                 "dev_docs": f"{d}/dev.doc", "vocab_size": 8000, "joint_vocab": True, "max_len": 100},
        "model": {**MODEL, "doc_context": SYSTEMS[system]},
        "train": {**TRAIN, "seed": seed},
    }
    if protocol == "finetune":  # the demo baseline's size and vocabulary (spm.model copied into the run folder)
        cfg["data"]["tag_symbols"] = 32
        cfg["model"] = {**FT_MODEL, "doc_context": SYSTEMS[system]}
        cfg["train"] = {**FT_TRAIN, "seed": seed}
    return cfg


def write_toml(path: Path, cfg: dict, comment: str) -> None:
    lines = [f"# {comment}"]
    for section, body in cfg.items():
        lines.append(f"\n[{section}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in body.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ evaluation
def _verso(*argv: str) -> str:
    res = subprocess.run([sys.executable, "-m", "engine", *argv], cwd=ROOT, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"verso {' '.join(argv)} failed:\n{res.stderr}")
    return res.stdout


def evaluate_model(model: Path, data: Path, out: Path, *, max_sentences: int, beam: int, threads: int,
                   split_long: int = 0) -> dict:
    """Test BLEU/chrF with document context (verso eval --docs), hypotheses kept for consistency."""
    src, ref, docs = data / "test.en", data / "test.de", data / "test.doc"
    out.mkdir(parents=True, exist_ok=True)
    if max_sentences:
        for name, p in (("src", src), ("ref", ref), ("docs", docs)):
            lines = p.read_text(encoding="utf-8").splitlines()[:max_sentences]
            (out / f"slice.{name}").write_text("\n".join(lines) + "\n", encoding="utf-8")
        src, ref, docs = out / "slice.src", out / "slice.ref", out / "slice.docs"
    hyp = out / "test.hyp"
    res = json.loads(_verso("eval", "--model", str(model), "--src", str(src), "--ref", str(ref), "--docs", str(docs),
                            "--beam", str(beam), "--threads", str(threads), "--device", DEVICE,
                            "--hyp-out", str(hyp), "--split-long", str(split_long)))
    return {"bleu": res["bleu"], "chrf": res["chrf"], "sentences": res["sentences"], "hyp": str(hyp),
            "src": str(src), "docs": str(docs), "ref": str(ref)}


def consistency_of(aligner: Path, rows: dict[str, dict], threads: int) -> None:
    """Adds ``consistency`` (micro agreement, %) to each row, all aligned by ``aligner``."""
    import torch

    from experiments.doccontext.consistency import consistency
    from engine.nmt.data import read_lines
    from engine.nmt.documents import read_doc_ids
    from engine.nmt.translator import Translator

    torch.set_num_threads(threads)
    tr = Translator.load(aligner, device=DEVICE)
    first = next(iter(rows.values()))
    srcs = read_lines(first["src"])
    ids = read_doc_ids(first["docs"], len(srcs))
    for row in rows.values():
        hyps = read_lines(row["hyp"])
        row["consistency"] = consistency(srcs, hyps, ids, tr.align(srcs, hyps))
    ref = read_lines(first["ref"])
    rows_ref = consistency(srcs, ref, ids, tr.align(srcs, ref))
    for row in rows.values():
        row["consistency_reference"] = rows_ref["agreement_micro"]


def table(results: dict) -> str:
    out = ["| corpus | system | seed | BLEU | chrF | consistency % (ref) | contrastive acc % (items) |",
           "|---|---|---|---|---|---|---|"]
    for corpus, rows in results.items():
        for name, r in rows.items():
            c = r.get("consistency", {})
            k = r.get("contrastive", {})
            out.append(f"| {corpus} | {r['system']} | {r['seed']} | {r['bleu']} | {r['chrf']} | "
                       f"{c.get('agreement_micro', '-')} ({r.get('consistency_reference', '-')}) | "
                       f"{k.get('accuracy', '-')} ({k.get('items', '-')}) |")
    return "\n".join(out)


def table_means(results: dict) -> str:
    """Per corpus and system, the mean over its seeds (and how many seeds) of every column of :func:`table`."""
    out = ["| corpus | system | seeds | BLEU | chrF | consistency % | contrastive acc % |", "|---|---|---|---|---|---|---|"]
    for corpus, rows in results.items():
        by: dict[str, list[dict]] = {}
        for r in rows.values():
            by.setdefault(r["system"], []).append(r)
        for system, rs in by.items():
            def mean(get) -> str:
                vals = [v for v in (get(r) for r in rs) if v is not None]
                return f"{sum(vals) / len(vals):.2f}" if vals else "-"
            out.append(f"| {corpus} | {system} | {len(rs)} | {mean(lambda r: r['bleu'])} | {mean(lambda r: r['chrf'])} | "
                       f"{mean(lambda r: r.get('consistency', {}).get('agreement_micro'))} | "
                       f"{mean(lambda r: r.get('contrastive', {}).get('accuracy'))} |")
    return "\n".join(out)


# Changes of the translator that change outputs (bump to re-score every model): 2 = all-caps segments folded.
SCORING = "2"


def _row_key(model: Path, data: Path, *, max_sentences: int, beam: int, split_long: int = 0) -> str:
    """What a cached score depends on: the model's manifest and best weights, the test files, the settings."""
    h = hashlib.sha256(f"{SCORING}|{max_sentences}|{beam}".encode())
    if split_long:  # rows scored before long sentences could be cut keep their keys (they were scored whole)
        h.update(f"|split{split_long}".encode())
    model, data = model.resolve(), data.resolve()  # a run reached through a link scores as itself
    manifest = json.loads((model / "manifest.json").read_text(encoding="utf-8"))
    files = [model / "manifest.json", data / "test.en", data / "test.de", data / "test.doc"]
    best = manifest.get("best")
    if isinstance(best, str) and (model / best).is_file():
        files.append(model / best)
    for f in files:
        st = f.stat()
        h.update(f"{f}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()


def run_evaluation(runs: dict[str, dict[str, Path]], data_root: Path, out_root: Path, *, max_sentences: int,
                   beam: int, threads: int, split_long: int = 0, cached_only: bool = False,
                   consistency: bool = True) -> dict:
    """Score every run (or, ``cached_only``, only those already scored with the same key) and, unless
    ``consistency`` is False, the document consistency of all of them."""
    from experiments.doccontext.contrastive import score as contrastive_score

    results: dict = {}
    for corpus, models in runs.items():
        rows = {}
        for name, model in models.items():
            system, _, seed = name.rpartition("-s")
            out = out_root / corpus / name
            # A model already scored with the same weights and settings is not decoded again (its row is kept
            # beside its hypotheses); consistency is always recomputed, as it depends on the aligner.
            key = _row_key(model, data_root / corpus, max_sentences=max_sentences, beam=beam, split_long=split_long)
            cached = out / "row.json"
            row = json.loads(cached.read_text(encoding="utf-8")) if cached.is_file() else {}
            if row.get("key") != key and cached_only:
                print(f"{corpus} {name}: not scored yet, left out", flush=True)
                continue
            if row.get("key") != key:
                row = evaluate_model(model, data_root / corpus, out, max_sentences=max_sentences, beam=beam,
                                     threads=threads, split_long=split_long)
                row.update(system=system, seed=int(seed), model=str(model))
                cset = data_root / corpus / "contrastive"
                if (cset / "items.jsonl").is_file():
                    row["contrastive"] = contrastive_score(cset, str(model), threads=threads)
                row["key"] = key
                cached.write_text(json.dumps(row, indent=2) + "\n", encoding="utf-8")
            else:
                print(f"{corpus} {name}: already scored ({cached})", flush=True)
            rows[name] = row
            print(f"{corpus} {name}: BLEU {row['bleu']} chrF {row['chrf']}", flush=True)
        if consistency and rows:
            aligner = next((m for n, m in models.items() if n.startswith("baseline-")), next(iter(models.values())))
            consistency_of(aligner, rows, threads)
        results[corpus] = rows
    return results


def cmd_evaluate(args) -> None:
    runs_dir, data = Path(args.runs), Path(args.data)
    runs = {c: {p.name: p for p in sorted((runs_dir / c).iterdir()) if (p / "manifest.json").is_file()}
            for c in (args.corpus or CORPORA) if (runs_dir / c).is_dir()}
    if args.only:  # these runs, in this order
        runs = {c: {n: ms[n] for n in args.only if n in ms} for c, ms in runs.items()}
    results = run_evaluation(runs, data, Path(args.out or runs_dir / "eval"), max_sentences=args.max_sentences,
                             beam=args.beam, threads=args.threads, split_long=args.split_long,
                             cached_only=args.cached_only, consistency=not args.no_consistency)
    if not (args.only or args.no_consistency):  # a partial run leaves the results file as it was
        name = "results.json" if not args.corpus else f"results-{'-'.join(args.corpus)}.json"
        (Path(args.out or runs_dir / "eval") / name).write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    print()
    print(table_means(results))


# ------------------------------------------------------------------ smoke run
def cmd_smoke(args) -> None:
    """Every system of both corpora, tiny models on slices: proves the pipeline, says nothing about quality."""
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train

    data, out = Path(args.data), Path(args.out)
    runs: dict[str, dict[str, Path]] = {}
    t0 = time.time()
    for corpus in CORPORA:
        sl = out / "slices" / corpus
        sl.mkdir(parents=True, exist_ok=True)
        for split, n in (("train", args.train_lines), ("dev", args.dev_lines)):
            for ext in ("en", "de", "doc"):
                lines = (data / corpus / f"{split}.{ext}").read_text(encoding="utf-8").splitlines()[:n]
                (sl / f"{split}.{ext}").write_text("\n".join(lines) + "\n", encoding="utf-8")
        runs[corpus] = {}
        for system in SYSTEMS:
            cfg = config_dict(corpus, system, 1, str(out / "slices"))
            cfg["data"].update(vocab_size=1000)
            cfg["model"].update(emb_dim=32, hidden=48, dropout=0.1)
            cfg["train"].update(batch_tokens=1500, max_steps=args.steps, eval_every=args.steps, log_every=10,
                                checkpoint_every=0, threads=1, device="cpu", lr=0.002)
            folder = out / corpus / f"{system}-s1"
            last = train(ExperimentConfig.from_dict(cfg), folder)
            runs[corpus][f"{system}-s1"] = folder
            print(f"trained {corpus} {system}: {last['reason']} at step {last['step']} "
                  f"({time.time() - t0:.0f} s so far)", flush=True)
    results = run_evaluation(runs, data, out / "eval", max_sentences=args.test_lines, beam=1, threads=1)
    (out / "eval" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    print(f"smoke run: {time.time() - t0:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("--runs", required=True, help="folder with kde/ and jrc/ model folders named SYSTEM-sSEED")
    e.add_argument("--data", required=True)
    e.add_argument("--out")
    e.add_argument("--beam", type=int, default=5)
    e.add_argument("--threads", type=int, default=1)
    e.add_argument("--max-sentences", type=int, default=0)
    e.add_argument("--only", action="append", metavar="RUN", help="only this run (e.g. best-s2; repeatable, in order)")
    e.add_argument("--cached-only", action="store_true", help="table of the runs already scored; decode nothing")
    e.add_argument("--no-consistency", action="store_true", help="skip the consistency measure (rows only)")
    e.add_argument("--split-long", type=int, default=0, metavar="N",
                   help="cut test sentences of N subwords or more (verso eval --split-long; default 0: whole, "
                        "as the session 4-5 rows were scored)")
    e.add_argument("--corpus", action="append", choices=CORPORA, help="only this corpus (repeatable)")
    e.set_defaults(fn=cmd_evaluate)
    s = sub.add_parser("smoke")
    s.add_argument("--data", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--train-lines", type=int, default=3000)
    s.add_argument("--dev-lines", type=int, default=40)
    s.add_argument("--test-lines", type=int, default=120)
    s.add_argument("--steps", type=int, default=30)
    s.set_defaults(fn=cmd_smoke)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
