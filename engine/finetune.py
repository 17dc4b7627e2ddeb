"""Fine-tune an NMT model on the translator's own data (headless; the editor
runs it in a separate process through ``verso finetune``).

Steps, each reported as an event (a JSON-serialisable dict with ``event``):

1. ``gather``: pairs from the project's TMs (folders), TMX files and bilingual
   files (CSV/TSV, PO, XLIFF), deduplicated;
2. ``split``: a slice is held aside (deterministic shuffle) -- it is the
   dev set of training and the test of before/after;
3. ``before``: the base model's BLEU on the held-aside slice;
4. training with :func:`engine.nmt.train.train`, starting from the base
   model's weights (its ``start``/``step``/``eval``/``done`` events pass
   through: live loss, dev BLEU, ETA);
5. ``after``: the new model's BLEU on the same slice; ``finished`` with both
   scores.  The base model is never modified: the new model is a new folder,
   and the caller decides which one to keep.

A time budget stops training cleanly (the best checkpoint so far is kept);
``cancel`` (a :class:`threading.Event`) stops it and reports ``cancelled``.
"""
from __future__ import annotations

import dataclasses
import random
import shutil
import threading
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.errors import ConfigError, VersoError
from engine.fsutil import atomic_write
from engine.langs import normalize_lang, same_language

EventFn = Callable[[dict], None]
MARKER = "finetune.json"


@dataclass
class FinetuneConfig:
    """What to fine-tune on, and how long.  Unknown keys are refused.

    ``sources``: TM folders, TMX files, bilingual CSV/TSV/PO/XLIFF files.
    ``dev_fraction`` / ``dev_max`` / ``dev_min``: size of the held-aside slice.
    ``max_epochs`` / ``max_steps`` / ``time_budget_s``: the training budget
    (0 = no limit for steps and time).  ``device``: auto | cpu | cuda[:N].
    """

    base_model: str
    out: str
    sources: list[str] = field(default_factory=list)
    src_lang: str = ""
    tgt_lang: str = ""
    dev_fraction: float = 0.1
    dev_max: int = 200
    dev_min: int = 1
    max_epochs: int = 3
    max_steps: int = 0
    time_budget_s: float = 0.0
    lr: float = 2e-4
    batch_tokens: int = 2000
    eval_every: int = 0
    log_every: int = 5
    device: str = "auto"
    threads: int = 0
    seed: int = 1
    beam: int = 1

    @classmethod
    def from_dict(cls, d: dict) -> "FinetuneConfig":
        if not isinstance(d, dict):
            raise ConfigError("fine-tune config: expected an object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ConfigError(f"fine-tune config: unknown key(s) {', '.join(map(repr, unknown))}")
        for req in ("base_model", "out"):
            if not d.get(req):
                raise ConfigError(f"fine-tune config: {req} is required")
        hints = typing.get_type_hints(cls)
        kw = {}
        for k, v in d.items():
            tp = hints[k]
            if tp is float and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            ok = (isinstance(v, list) and all(isinstance(x, str) for x in v)) if tp == list[str] else (
                isinstance(v, tp) and not (tp is int and isinstance(v, bool)))
            if not ok:
                raise ConfigError(f"fine-tune config: {k} has the wrong type ({v!r})")
            kw[k] = v
        cfg = cls(**kw)
        if not 0.0 < cfg.dev_fraction < 1.0:
            raise ConfigError("fine-tune config: dev_fraction must be between 0 and 1")
        return cfg

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# ------------------------------------------------------------------ data
def _clean(s: str) -> str:
    return " ".join(s.split())


def gather_pairs(sources: list[str], src_lang: str, tgt_lang: str,
                 problems: list[str] | None = None) -> list[tuple[str, str]]:
    """Unique (source, target) texts from TM folders and TM/bilingual files."""
    from engine.formats.tmfiles import read_tm_file
    from engine.tm import TranslationMemory

    problems = problems if problems is not None else []
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []

    def add(s: str, t: str) -> None:
        s, t = _clean(s), _clean(t)
        if s and t and (s, t) not in seen:
            seen.add((s, t))
            out.append((s, t))

    for src in sources:
        p = Path(src)
        if p.is_dir():
            with TranslationMemory(p, create=False) as tm:
                for e in tm.entries():
                    if same_language(e.src_lang, src_lang) and same_language(e.tgt_lang, tgt_lang):
                        add(e.source.text, e.target.text)
                    elif same_language(e.src_lang, tgt_lang) and same_language(e.tgt_lang, src_lang):
                        add(e.target.text, e.source.text)
            continue
        for u in read_tm_file(p, src_lang=src_lang, tgt_lang=tgt_lang, problems=problems):
            s = next((v for k, v in u.variants.items() if same_language(k, src_lang)), None)
            t = next((v for k, v in u.variants.items() if same_language(k, tgt_lang)), None)
            if s is not None and t is not None:
                add(s.text, t.text)
    return out


def split_pairs(pairs: list[tuple[str, str]], *, fraction: float, dev_max: int, dev_min: int,
                seed: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(train, held aside): a deterministic shuffle, then the first slice held aside."""
    if len(pairs) < dev_min + 1:
        raise ConfigError(f"only {len(pairs)} usable pair(s): fine-tuning needs at least {dev_min + 1}")
    order = list(pairs)
    random.Random(seed).shuffle(order)
    n_dev = max(dev_min, min(dev_max, int(round(len(order) * fraction))))
    n_dev = min(n_dev, len(order) - 1)
    return order[n_dev:], order[:n_dev]


def _write_lines(path: Path, lines: list[str]) -> None:
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


# ------------------------------------------------------------------ scoring
def score_model(model_dir: str | Path, pairs: list[tuple[str, str]], *, beam: int = 1,
                device: str = "cpu") -> float:
    """Corpus BLEU (sacrebleu) of a model folder on ``pairs``."""
    from engine.nmt.evaluate import bleu
    from engine.nmt.translator import Translator

    tr = Translator.load(model_dir, device=device)
    hyps = [r.text for r in tr.translate([s for s, _ in pairs], beam=beam)]
    return round(bleu(hyps, [t for _, t in pairs]), 2)


# ------------------------------------------------------------------ the run
def _seed_folder(base: Path, out: Path, cfg_dict: dict, lr: float) -> None:
    """Make ``out`` a resumable training folder whose weights are the base model's."""
    import torch

    from engine.nmt import checkpoint as ckpt
    from engine.nmt.config import ExperimentConfig, portable_paths
    from engine.nmt.train import save_last

    cfg = ExperimentConfig.from_dict(cfg_dict)
    for name in sorted(set(ckpt.vocab_files(cfg))):
        shutil.copyfile(base / name, out / name)
    ckpt.write_json(out / "config.json", portable_paths(cfg.to_dict(), out))  # names no folder of this machine
    loaded = ckpt.load_model(base)
    opt = torch.optim.Adam(loaded.model.parameters(), lr=lr)
    state = {"step": 0, "epoch": 0, "batch": 0, "best_bleu": -1.0, "best_step": 0, "bad_evals": 0,
             "lr_bad_evals": 0, "tokens": 0, "evals": 0, "best_files": []}
    save_last(out, loaded.model, opt, state)


def run(cfg: FinetuneConfig, on_event: EventFn | None = None,
        cancel: threading.Event | None = None) -> dict:
    """Fine-tune; returns the last event (``finished`` or ``cancelled``)."""
    from engine.nmt.checkpoint import read_json
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import pick_device, train

    emit = on_event or (lambda ev: None)
    cancel = cancel or threading.Event()
    base, out = Path(cfg.base_model), Path(cfg.out)
    base_cfg = read_json(base / "config.json")
    src_lang = normalize_lang(cfg.src_lang or base_cfg.get("data", {}).get("src_lang", ""))
    tgt_lang = normalize_lang(cfg.tgt_lang or base_cfg.get("data", {}).get("tgt_lang", ""))
    if out.exists() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise ConfigError(f"{out}: folder exists and is not a fine-tuning folder; choose an empty one")
    if out.resolve() == base.resolve():
        raise ConfigError(f"{out}: the new model must go to another folder than the base model")
    device = str(pick_device(cfg.device))
    t0 = time.time()

    problems: list[str] = []
    pairs = gather_pairs(cfg.sources, src_lang, tgt_lang, problems)
    emit({"event": "gather", "pairs": len(pairs), "sources": len(cfg.sources), "skipped": len(problems),
          "problems": problems[:20], "src_lang": src_lang, "tgt_lang": tgt_lang, "device": device})
    train_pairs, dev_pairs = split_pairs(pairs, fraction=cfg.dev_fraction, dev_max=cfg.dev_max,
                                         dev_min=cfg.dev_min, seed=cfg.seed)
    emit({"event": "split", "train": len(train_pairs), "held_aside": len(dev_pairs)})

    out.mkdir(parents=True, exist_ok=True)
    data = out / "finetune-data"
    data.mkdir(exist_ok=True)
    files = {}
    for name, rows, k in (("train.src", train_pairs, 0), ("train.tgt", train_pairs, 1),
                          ("dev.src", dev_pairs, 0), ("dev.tgt", dev_pairs, 1)):
        files[name] = data / name
        _write_lines(files[name], [r[k] for r in rows])
    with atomic_write(out / MARKER, "w", encoding="utf-8") as fh:
        import json

        # file names only: the new model folder may be shared, and must not reveal the translator's folders
        shown = {**cfg.to_dict(), "base_model": base.resolve().name, "out": out.resolve().name,
                 "sources": [Path(x).name for x in cfg.sources]}
        json.dump({"config": shown, "base_model": base.resolve().name}, fh, indent=2)

    if cancel.is_set():
        return _cancelled(emit, out)
    before = score_model(base, dev_pairs, beam=cfg.beam, device=device)
    emit({"event": "before", "bleu": before, "held_aside": len(dev_pairs)})

    d = dict(base_cfg)
    d["data"] = {**base_cfg["data"], "train_src": str(files["train.src"]), "train_tgt": str(files["train.tgt"]),
                 "dev_src": str(files["dev.src"]), "dev_tgt": str(files["dev.tgt"])}
    d["train"] = {**base_cfg.get("train", {}), "lr": cfg.lr, "batch_tokens": cfg.batch_tokens,
                  "max_epochs": cfg.max_epochs, "max_steps": cfg.max_steps, "eval_every": cfg.eval_every,
                  "log_every": cfg.log_every, "device": cfg.device, "threads": cfg.threads, "seed": cfg.seed,
                  "dev_beam": cfg.beam, "dev_max_sentences": 0, "patience": 0,
                  # the base model's own training folders mean nothing here: the retrieval cache goes to
                  # OUT/memory and the weights come from the base (train.context_only needs a name)
                  "memory_cache": "",
                  "init_from": base.resolve().name if base_cfg.get("train", {}).get("context_only") else ""}
    exp = ExperimentConfig.from_dict(d, where=str(out / MARKER))
    if not (out / "last" / "state.json").is_file():
        _seed_folder(base, out, exp.to_dict(), cfg.lr)

    reason = {"budget": False}

    def on_train(ev: dict):
        if ev.get("event") in ("done", "cancelled"):
            return None  # our own final events follow
        emit({**ev, "phase": "train", "elapsed_s": round(time.time() - t0, 1)})
        if cfg.time_budget_s and time.time() - t0 > cfg.time_budget_s:
            reason["budget"] = True
            return False
        return None

    last = train(exp, out, on_event=on_train, cancel=cancel)
    if last.get("event") == "cancelled" and not reason["budget"]:
        return _cancelled(emit, out)
    if reason["budget"]:
        emit({"event": "budget", "step": last.get("step"), "elapsed_s": round(time.time() - t0, 1)})
    after = score_model(out, dev_pairs, beam=cfg.beam, device=device)
    emit({"event": "after", "bleu": after, "held_aside": len(dev_pairs)})
    final = {"event": "finished", "before": before, "after": after, "better": after >= before,
             "model": str(out), "base_model": str(base), "steps": last.get("step"),
             "held_aside": len(dev_pairs), "train_pairs": len(train_pairs),
             "elapsed_s": round(time.time() - t0, 1)}
    emit(final)
    return final


def _cancelled(emit: EventFn, out: Path) -> dict:
    ev = {"event": "cancelled", "model": str(out),
          "message": "fine-tuning cancelled; the base model is unchanged"}
    emit(ev)
    return ev


__all__ = ["FinetuneConfig", "gather_pairs", "split_pairs", "score_model", "run", "VersoError"]
