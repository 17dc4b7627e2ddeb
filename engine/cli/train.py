"""``verso train``: a model for a language pair from TMs and corpora (the training flow,
:mod:`engine.training.flow`), or one experiment from a config (:func:`engine.nmt.train.train`);
SIGTERM / Ctrl+C stop either within seconds, resumable.  ``verso finetune`` runs the same flow.

torch is imported inside the handlers, so other command groups start fast.
"""
from __future__ import annotations

import sys
import threading

from engine.cli import print_json
from engine.errors import ConfigError


def register(sub) -> None:
    p = sub.add_parser("train", help="train an NMT model: for a language pair from TMs and corpora (the recipe "
                                      "is chosen), or from a JSON/TOML config; resumes when interrupted",
                       description="With --tm/--corpus: gather, deduplicate, hold aside dev and test documents, "
                                   "choose a recipe from the data, the budget and the hardware, train, calibrate "
                                   "the nearest-neighbour memory and score before/after on the test documents. "
                                   "With only --config: train that experiment.")
    p.add_argument("--config", metavar="FILE", help="a full experiment config (with --tm/--corpus: instead of "
                                                    "the chosen recipe)")
    p.add_argument("--out", required=True, metavar="DIR", help="model folder to create or resume")
    p.add_argument("--tm", action="append", default=[], metavar="TM",
                   help="a TM folder or postgresql:// URL to train on (repeat for several)")
    p.add_argument("--corpus", action="append", nargs="+", default=[], metavar="FILE",
                   help="a TMX / bilingual file, or line-aligned SRC TGT [DOCS] files (DOCS: the document of "
                        "each line); repeat for several")
    p.add_argument("--src-lang", default="")
    p.add_argument("--tgt-lang", default="")
    p.add_argument("--compare", default="", metavar="MODEL_DIR",
                   help="the model in use now: scored beside the new one, which is called worse when below it")
    p.add_argument("--time-budget", type=float, default=0.0, metavar="SECONDS",
                   help="training time (the recipe's steps are sized to it; time spent before a resume counts)")
    p.add_argument("--device", default="auto", help="auto (a GPU when present), cpu, cuda, cuda:N")
    p.add_argument("--recipe", default="", help="force a recipe of the table (cpu-tiny, cpu-small, cpu-base, "
                                                "gpu-base)")
    p.add_argument("--max-steps", type=int, default=0, help="step budget instead of the recipe's")
    p.add_argument("--epochs", type=int, default=0, help="epoch budget instead of the recipe's")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: one per core, at most 4)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--beam", type=int, default=5, help="beam of the before/after scoring (default 5)")
    p.add_argument("--events", action="store_true", help="print every event as a JSON line on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--docs", metavar="FILE", help="document id of each training line (sets data.train_docs)")
    p.add_argument("--dev-docs", metavar="FILE", help="document id of each dev line (sets data.dev_docs)")
    p.set_defaults(handler=cmd_train)


def cmd_train(args) -> int:
    from engine.nmt.config import load_config
    from engine.nmt.train import train

    if args.tm or args.corpus:
        return _train_pair(args)
    if not args.config:
        raise ConfigError("give --tm/--corpus (a model for a pair) or --config (an experiment)")
    cfg = load_config(args.config)
    if args.docs:
        cfg.data.train_docs = args.docs
    if args.dev_docs:
        cfg.data.dev_docs = args.dev_docs
    bar = _ProgressBar(enabled=not args.quiet and not args.events)

    def on_event(ev: dict) -> None:
        if args.events:
            print_json(ev, lines=True)
        else:
            bar.update(ev)

    from engine.training.stopping import StopOnSignal, message

    # SIGTERM / Ctrl+C stop cleanly within seconds: the resumable state is saved and the folder stays a
    # valid model (a phase deaf to the cancel -- sentencepiece, calibration -- is ended, writes finished)
    cancel = threading.Event()
    with StopOnSignal(cancel, exit_code=0) as stop:  # (an experiment's cancel has always exited 0)
        last = train(cfg, args.out, on_event=on_event, cancel=cancel)
    bar.close()
    if last["event"] == "cancelled":
        print(message(stop.signum), file=sys.stderr)
    from engine.nmt.train import dist_info

    if not args.events and dist_info()[0] == 0:  # under torchrun: rank 0 reports, once
        print_json(last)
    return 0


def _train_pair(args) -> int:
    from engine.training.flow import TrainRequest

    req = TrainRequest.from_dict({
        "out": args.out, "src_lang": args.src_lang, "tgt_lang": args.tgt_lang, "tms": list(args.tm),
        "current_model": args.compare, "corpora": [list(c) for c in args.corpus], "config": args.config or "",
        "recipe": args.recipe,
        "time_budget_s": args.time_budget, "max_steps": args.max_steps, "epochs": args.epochs,
        "device": args.device, "threads": args.threads, "seed": args.seed, "beam": args.beam}, where="verso train")
    return _run_flow(req, args.events, quiet=args.quiet)


def _run_flow(req, events: bool, *, quiet: bool = False) -> int:
    """Run the training flow with SIGTERM / Ctrl+C as a clean cancel within seconds (exit 130, resumable)."""
    import json

    from engine.training.flow import run

    bar = _ProgressBar(enabled=not quiet and not events)

    def on_event(ev: dict) -> None:
        if events:
            print_json(json.loads(json.dumps(ev, default=str)), lines=True)
        elif ev.get("phase") == "train":
            bar.update(ev)
        elif ev["event"] in ("gather", "split", "recipe", "before", "after", "budget", "knn") and not quiet:
            print(f"{ev['event']}: " + ", ".join(f"{k} {v}" for k, v in ev.items()
                                                   if k not in ("event", "table", "problems", "per_source")),
                  file=sys.stderr)

    from engine.training.stopping import EXIT_CANCELLED, StopOnSignal, message

    cancel = threading.Event()
    # heard at once even inside a native call; the process is gone within stopping.GRACE_S
    with StopOnSignal(cancel) as stop:
        last = run(req, on_event=on_event, cancel=cancel)
    bar.close()
    if not events:
        print_json(last)
    if last["event"] == "cancelled":
        print(message(stop.signum), file=sys.stderr)
        import gc

        # the interpreter's last collection walks every object the run made: measured 1.8-3.2 s on the
        # loaded 2-core VM, after the cancel was done; frozen objects are left to the exit
        gc.freeze()
        return EXIT_CANCELLED
    return 0


class _ProgressBar:
    """One status line on stderr: step, loss, tokens/s, dev BLEU, ETA."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.log = enabled and not self.enabled  # not a terminal: one line per evaluation
        self.total = 0
        self.bleu = None

    def update(self, ev: dict) -> None:
        kind = ev["event"]
        if kind in ("start", "resume"):
            self.total = ev.get("total_steps", 0)
            if self.enabled or self.log:
                print(f"{kind}: {ev['parameters']:,} parameters, {ev['train_pairs']:,} pairs, "
                      f"{ev['steps_per_epoch']} steps/epoch on {ev['device']}", file=sys.stderr)
        elif kind == "eval":
            self.bleu = ev["dev_bleu"]
            if self.log or self.enabled:
                end = "\n"
                print(f"\rstep {ev['step']}: dev BLEU {ev['dev_bleu']:.2f} (best {ev['best_bleu']:.2f} "
                      f"at {ev['best_step']})", file=sys.stderr, end=end)
        elif kind == "step" and self.enabled:
            frac = ev["step"] / self.total if self.total else 0.0
            n = int(30 * min(frac, 1.0))
            eta = ev.get("eta_s")
            eta_s = f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}" if eta else "?"
            bleu = f" dev {self.bleu:.1f}" if self.bleu is not None else ""
            print(f"\r[{'#' * n}{'.' * (30 - n)}] {ev['step']}/{self.total} loss {ev['loss']:.3f} "
                  f"{ev['tokens_per_s']:.0f} tok/s{bleu} ETA {eta_s}  ", file=sys.stderr, end="")

    def close(self) -> None:
        if self.enabled:
            print(file=sys.stderr)
