"""``verso finetune``: fine-tune a model on the translator's own data -- the
same flow as ``verso train --tm`` (:mod:`engine.training.flow`) starting
from a base model, which is never modified.  ``--events`` (what the editor
reads) prints one JSON event per line on stdout.

SIGTERM or Ctrl+C cancels cleanly within 5 s, in any phase
(:mod:`engine.training.stopping`): the base model is untouched, a
``cancelled`` event and one line on stderr are printed (exit 130); the same
command goes on from the last checkpoint.
"""
from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("finetune", help="fine-tune an NMT model on TMs / TMX / bilingual files "
                                        "(JSON-lines progress events)")
    p.add_argument("--base", required=True, metavar="MODEL_DIR", help="model folder to start from (not modified)")
    p.add_argument("--out", required=True, metavar="MODEL_DIR", help="new model folder (empty, or a cancelled run)")
    p.add_argument("--data", action="append", default=[], metavar="PATH",
                   help="a TM folder or postgresql:// URL, TMX or bilingual CSV/TSV/PO/XLIFF file "
                        "(repeat for several)")
    p.add_argument("--corpus", action="append", nargs="+", default=[], metavar="FILE",
                   help="line-aligned SRC TGT [DOCS] files (repeat for several)")
    p.add_argument("--src-lang", default="")
    p.add_argument("--tgt-lang", default="")
    p.add_argument("--epochs", type=int, default=3, help="epoch budget (default 3)")
    p.add_argument("--max-steps", type=int, default=0, help="step budget (0: none)")
    p.add_argument("--time-budget", type=float, default=0.0, metavar="SECONDS", help="stop training after this long")
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--batch-tokens", type=int, default=2000)
    p.add_argument("--eval-every", type=int, default=0, help="steps between dev evaluations (0: each epoch)")
    p.add_argument("--device", default="auto", help="auto (GPU when present), cpu, cuda, cuda:N")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch default)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--beam", type=int, default=5, help="beam of the before/after scoring (default 5)")
    p.add_argument("--events", action="store_true", help="print every event as a JSON line on stdout")
    p.set_defaults(handler=cmd_finetune)


def cmd_finetune(a) -> int:
    from pathlib import Path

    from engine.cli.train import _run_flow
    from engine.training.flow import TrainRequest

    from engine.errors import ConfigError

    if not a.data and not a.corpus:
        raise ConfigError("give the data to fine-tune on: --data TM_OR_FILE or --corpus SRC TGT")
    tms = [d for d in a.data if "://" in d or Path(d).is_dir()]
    files = [[d] for d in a.data if d not in tms] + [list(c) for c in a.corpus]
    req = TrainRequest.from_dict({
        "out": a.out, "base_model": a.base, "tms": tms, "corpora": files, "src_lang": a.src_lang,
        "tgt_lang": a.tgt_lang, "epochs": a.epochs, "max_steps": a.max_steps, "time_budget_s": a.time_budget,
        "lr": a.lr, "batch_tokens": a.batch_tokens, "eval_every": a.eval_every, "device": a.device,
        "threads": a.threads, "seed": a.seed, "beam": a.beam}, where="verso finetune")
    return _run_flow(req, a.events)
