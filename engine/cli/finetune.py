"""``verso finetune``: fine-tune a model on the translator's own data,
printing one JSON event per line on stdout (the editor reads them).

SIGTERM or Ctrl+C cancels cleanly: training stops at the next batch, the
base model is untouched and a ``cancelled`` event is printed (exit 130).
"""
from __future__ import annotations

import json
import signal
import threading


def register(sub) -> None:
    p = sub.add_parser("finetune", help="fine-tune an NMT model on TMs / TMX / bilingual files "
                                        "(JSON-lines progress events)")
    p.add_argument("--base", required=True, metavar="MODEL_DIR", help="model folder to start from (not modified)")
    p.add_argument("--out", required=True, metavar="MODEL_DIR", help="new model folder (empty, or a cancelled run)")
    p.add_argument("--data", action="append", default=[], metavar="PATH", required=True,
                   help="a TM folder, TMX or bilingual CSV/TSV/PO/XLIFF file (repeat for several)")
    p.add_argument("--src-lang", default="")
    p.add_argument("--tgt-lang", default="")
    p.add_argument("--epochs", type=int, default=3, help="epoch budget (default 3)")
    p.add_argument("--max-steps", type=int, default=0, help="step budget (0: none)")
    p.add_argument("--time-budget", type=float, default=0.0, metavar="SECONDS", help="stop training after this long")
    p.add_argument("--dev-fraction", type=float, default=0.1, help="share of the pairs held aside (default 0.1)")
    p.add_argument("--dev-max", type=int, default=200)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--batch-tokens", type=int, default=2000)
    p.add_argument("--eval-every", type=int, default=0, help="steps between dev evaluations (0: each epoch)")
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--device", default="auto", help="auto (GPU when present), cpu, cuda, cuda:N")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch default)")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(handler=cmd_finetune)


def cmd_finetune(a) -> int:
    from engine.cli import print_json
    from engine.finetune import FinetuneConfig, run

    cfg = FinetuneConfig.from_dict({
        "base_model": a.base, "out": a.out, "sources": a.data, "src_lang": a.src_lang, "tgt_lang": a.tgt_lang,
        "dev_fraction": a.dev_fraction, "dev_max": a.dev_max, "max_epochs": a.epochs, "max_steps": a.max_steps,
        "time_budget_s": a.time_budget, "lr": a.lr, "batch_tokens": a.batch_tokens, "eval_every": a.eval_every,
        "log_every": a.log_every, "device": a.device, "threads": a.threads, "seed": a.seed,
    })
    cancel = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: cancel.set())
    last = run(cfg, on_event=lambda ev: print_json(_jsonable(ev), lines=True), cancel=cancel)
    return 130 if last["event"] == "cancelled" else 0


def _jsonable(ev: dict) -> dict:
    try:
        json.dumps(ev)
        return ev
    except TypeError:
        return {k: (v if isinstance(v, (str, int, float, bool, list, dict, type(None))) else str(v))
                for k, v in ev.items()}
