"""One flow for training a model for the project's pair and for fine-tuning
one: ``verso train --tm ...``, ``verso finetune`` and the editor's
*Tools › Train a model* all run :func:`run`.

Steps, each reported as an event (a JSON-serialisable dict with ``event``):

1. ``gather`` -- pairs from TMs (folders or URLs), TM files and line-aligned
   corpora, cleaned and deduplicated (:mod:`engine.training.data`);
2. ``split`` -- whole documents held aside: a dev slice (training's
   evaluations) and a test slice (the before/after table);
3. ``before`` -- the test table before: the TM copy, and the base model when
   fine-tuning (``progress`` events: ``phase``, ``system``, ``done`` of ``total``
   sentences; ``after`` reports the same way);
4. ``recipe`` -- the recipe chosen from data, budget and hardware
   (:mod:`engine.training.recipes`), the base model's config when
   fine-tuning, or the user's full config;
5. training (:func:`engine.nmt.train.train`: ``start``/``step``/``eval``
   events pass through with ``phase: "train"``) until its steps are done or
   the time budget is spent (``budget``);
6. ``knn`` -- the nearest-neighbour memory calibrated on the dev slice;
7. ``after`` -- the test table after: TM copy, model, model with memory;
   ``finished`` with both overall scores.

The run folder ``OUT`` is the new model folder (the base model is never
modified); ``OUT/training.json`` records what the run saw and reached
(file names only: a model folder may be shared), ``OUT/data/`` the split.
``cancel`` is looked at between the steps and their chunks; the command line's
signal handling (:mod:`engine.training.stopping`) ends a step deaf to it within
5 s, the record then saying ``cancelled`` (a run not yet split leaves nothing).
A run stopped by ``cancel``, a kill or a crash goes on from its last
checkpoint when :func:`run` is called again on ``OUT``: the same split, the
same config, and the time already spent counts against the budget.  A run
refused before its data was split (no data, a file that cannot be read)
leaves no record behind; one that fails later is recorded as ``failed``
(never left ``running``).  No password reaches the record or an event:
every string goes through :func:`engine.urls.strip_credentials`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.errors import ConfigError, ModelError
from engine.fsutil import atomic_write
from engine.langs import normalize_lang
from engine import folder_guard
from engine.training import data as tdata
from engine.training import setup, stopping
from engine.training.runs import LAUNCH_FILES
from engine.urls import strip_in

EventFn = Callable[[dict], None]
#: the run's record in the model folder
RECORD = "training.json"


@dataclass
class TrainRequest:
    """What to train on, from what, and how long.  Unknown keys are refused.

    ``tms``: TM folders or ``postgresql://`` URLs.  ``corpora``: each ``[FILE]`` (TMX or bilingual
    file), ``[SRC, TGT]`` or ``[SRC, TGT, DOCS]`` (line-aligned).  ``base_model``: fine-tune it
    (else a new model).  ``config``: a full experiment config instead of the chosen recipe.
    ``time_budget_s`` / ``max_steps`` / ``epochs``: the budget (0: the recipe's).  ``current_model``:
    the model in use now, scored beside the new one (fine-tuning: the base model).
    """

    out: str
    src_lang: str = ""
    tgt_lang: str = ""
    tms: list[str] = field(default_factory=list)
    corpora: list[list[str]] = field(default_factory=list)
    base_model: str = ""
    current_model: str = ""
    config: str = ""
    recipe: str = ""
    time_budget_s: float = 0.0
    max_steps: int = 0
    epochs: int = 0
    lr: float = 0.0
    batch_tokens: int = 0
    eval_every: int = 0
    device: str = "auto"
    threads: int = 0
    seed: int = 1
    beam: int = 5
    dev_size: int = 0
    test_size: int = 0

    @classmethod
    def from_dict(cls, d: dict, where: str = "training request") -> "TrainRequest":
        from engine.nmt.config import build_strict

        if isinstance(d, dict) and not d.get("out"):
            raise ConfigError(f"{where}: out is required")
        req = build_strict(cls, d, where)  # the experiment config's strict reader: unknown keys, wrong types
        if req.time_budget_s < 0 or req.max_steps < 0 or req.epochs < 0:
            raise ConfigError(f"{where}: budgets cannot be negative")
        return req

    def sources(self) -> list[tdata.Corpus]:
        return ([tdata.Corpus(t, tm=True) for t in self.tms]
                + [tdata.Corpus.from_args(list(c)) for c in self.corpora])


# ------------------------------------------------------------------ the record
def read_record(out: str | Path) -> dict:
    p = Path(out) / RECORD
    if not (p.is_file() or p.is_symlink()):
        return {}
    try:
        return folder_guard.read_json(p.parent, p.name)
    except ModelError as e:
        raise ConfigError(f"{e} (not a training record)") from None


def _write_record(out: Path, rec: dict) -> None:
    with stopping.writing(), atomic_write(out / RECORD, "w", encoding="utf-8") as fh:
        json.dump(strip_in(rec), fh, indent=2, ensure_ascii=False)


def _shown(req: TrainRequest) -> dict:
    """The request with file names only (the folder may be shared; it must not reveal the user's folders)."""
    def name(p: str) -> str:
        return tdata.Corpus(p, tm=True).name if "://" in p else Path(p).name

    return {**dataclasses.asdict(req), "out": Path(req.out).resolve().name,
            "base_model": Path(req.base_model).resolve().name if req.base_model else "",
            "current_model": Path(req.current_model).resolve().name if req.current_model else "",
            "config": Path(req.config).name if req.config else "",
            "tms": [name(t) for t in req.tms], "corpora": [[name(x) for x in c] for c in req.corpora]}


# ------------------------------------------------------------------ the run
def run(req: TrainRequest, on_event: EventFn | None = None, cancel: threading.Event | None = None) -> dict:
    """Train (or fine-tune, or resume) into ``req.out``; returns the last event
    (``finished`` or ``cancelled``)."""
    from engine.training import recipes

    emit = _stripped(on_event)
    cancel = cancel or threading.Event()
    out = Path(req.out)
    rec = read_record(out)
    if out.exists() and any(p.name not in LAUNCH_FILES for p in out.iterdir()) and not rec:
        raise ConfigError(f"{out}: folder exists and is not a training folder; choose an empty one")
    if req.base_model and out.resolve() == Path(req.base_model).resolve():
        raise ConfigError(f"{out}: the new model must go to another folder than the base model")
    if rec.get("status") == "finished":
        final = {**rec["final"], "model": str(out), "already_finished": True}
        emit(final)
        return final
    base = Path(req.base_model) if req.base_model else None
    base_cfg = setup.read_base_config(base) if base else {}
    src_lang = normalize_lang(req.src_lang or base_cfg.get("data", {}).get("src_lang", ""))
    tgt_lang = normalize_lang(req.tgt_lang or base_cfg.get("data", {}).get("tgt_lang", ""))
    if not src_lang or not tgt_lang:
        raise ConfigError("the languages of the pair are needed: give --src-lang and --tgt-lang")
    hw = recipes.detect_hardware(req.device)
    out_existed = out.exists()
    resuming = bool(rec.get("split"))
    if not resuming:
        rec = {"format": "verso-training", "version": 1, "kind": "finetune" if base else "train",
               "request": _shown(req), "src_lang": src_lang, "tgt_lang": tgt_lang, "status": "running",
               "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "spent_s": 0.0}
    rec.update(pid=os.getpid(), status="running",
               hardware={"device": hw.device, "cores": hw.cores, "gpu": hw.gpu})
    out.mkdir(parents=True, exist_ok=True)
    _write_record(out, rec)
    try:
        with stopping.at_hard_stop(lambda: _hard_stopped(out, rec, out_existed, emit)):
            return _steps(req, out, rec, emit, cancel, base, base_cfg, src_lang, tgt_lang, hw, resuming)
    except BaseException as e:
        _stopped(out, rec, out_existed, e)
        raise


def _stopped(out: Path, rec: dict, out_existed: bool, error: BaseException) -> None:
    """After an error: a run refused before its split leaves nothing of its own behind (a corrected
    command starts afresh); a later one is recorded as failed and can be resumed."""
    if not rec.get("split"):
        if not out_existed:
            shutil.rmtree(out, ignore_errors=True)
            return
        shutil.rmtree(out / "data", ignore_errors=True)
        (out / RECORD).unlink(missing_ok=True)
        return
    text = str(error).strip()
    rec.update(status="failed", error=text.splitlines()[0] if text else type(error).__name__)
    rec.pop("pid", None)
    try:
        _write_record(out, rec)
    except OSError:  # the disk that failed the run may refuse this too: the dead pid still says "not running"
        pass


def _hard_stopped(out: Path, rec: dict, out_existed: bool, emit: EventFn) -> None:
    """The process is ending in the middle of a step (:mod:`engine.training.stopping`): a run not yet
    split leaves nothing of its own, a later one is recorded as cancelled (resumable)."""
    if not rec.get("split"):
        _stopped(out, rec, out_existed, RuntimeError("cancelled"))
        emit(_cancel_event(out, resumable=False))
        return
    _cancelled(emit, out, rec)


def _stripped(on_event: EventFn | None) -> EventFn:
    """``on_event`` receiving every event without credentials (events go to a file and the screen)."""
    if on_event is None:
        return lambda ev: None
    return lambda ev: on_event(strip_in(ev))


def _steps(req: TrainRequest, out: Path, rec: dict, emit: EventFn, cancel: threading.Event, base: Path | None,
           base_cfg: dict, src_lang: str, tgt_lang: str, hw, resuming: bool) -> dict:
    t0 = time.time()
    folder = out / "data"

    # -- 1, 2: the data and its split
    if resuming:
        split = tdata.read_split(folder)
        files = {f"{n}.{s}": folder / f"{n}.{s}" for n in ("train", "dev", "test") for s in ("src", "tgt", "doc")}
        emit({"event": "resume", "phase": "data", **rec["split"]})
    else:
        got = tdata.gather(req.sources(), src_lang, tgt_lang)
        emit({"event": "gather", "pairs": len(got.pairs), "sources": len(got.per_source),
              "per_source": [list(x) for x in got.per_source], "duplicates": got.duplicates,
              "filtered": got.filtered, "skipped": len(got.problems), "problems": got.problems[:20],
              "src_lang": src_lang, "tgt_lang": tgt_lang, "device": hw.device})
        dev_n, test_n = tdata.held_aside_sizes(len(got.pairs))
        split = tdata.split_by_documents(got.pairs, dev=req.dev_size or dev_n, test=req.test_size or test_n,
                                         seed=req.seed)
        with stopping.writing():  # the split and the record naming it, together
            files = tdata.write_split(split, folder)
            rec["data"] = {"pairs": len(got.pairs), "per_source": [list(x) for x in got.per_source],
                           "duplicates": got.duplicates, "filtered": got.filtered}
            rec["split"] = {"train": len(split.train), "dev": len(split.dev), "test": len(split.test),
                            "documents": split.documents()}
            _write_record(out, rec)
        emit({"event": "split", "train": len(split.train), "held_aside": len(split.dev) + len(split.test),
              "dev": len(split.dev), "test": len(split.test), "documents": split.documents()})
    if cancel.is_set():
        return _cancelled(emit, out, rec)

    # -- 3: before
    from engine.training.scoring import Cancelled, retrieved_pairs, score_model

    device = "cuda" if hw.cuda else "cpu"
    memories = best = None
    if "before" not in rec:
        emit({"event": "progress", "phase": "before", "system": "tm_copy", "done": 0, "total": len(split.test)})
        memories, best = retrieved_pairs(out, files, split.train, split.test, src_lang, tgt_lang)
        current = base or (Path(req.current_model) if req.current_model else None)  # what the new one replaces
        try:
            table = score_model(current, split.test, memories, best, beam=req.beam, device=device,
                                progress=lambda ev: emit({"event": "progress", "phase": "before", **ev}),
                                cancel=cancel)
        except Cancelled:
            return _cancelled(emit, out, rec)
        key = "model_memory" if "model_memory" in table["overall"]["bleu"] else "model" if current else "tm_copy"
        rec["before"] = {"system": key, "bleu": table["overall"]["bleu"][key], "table": table}
        _write_record(out, rec)
    emit({"event": "before", "bleu": rec["before"]["bleu"], "system": rec["before"]["system"],
          "held_aside": len(split.test), "table": rec["before"]["table"]})

    # -- 4: the recipe / config
    from engine.nmt.config import ExperimentConfig, portable_paths

    if "config" not in rec:
        d, rec["recipe"] = setup.experiment(req, base, base_cfg, files, split, src_lang, tgt_lang, hw)
        rec["config"] = portable_paths(d, out)  # the record names no folder of this machine
        _write_record(out, rec)
    exp = ExperimentConfig.from_dict(setup.with_data(rec["config"], files, src_lang, tgt_lang), where=str(out / RECORD))
    emit({"event": "recipe", **rec["recipe"]})
    if cancel.is_set():
        return _cancelled(emit, out, rec)
    if base and not (out / "last" / "state.json").is_file():
        setup.seed_folder(base, out, exp.to_dict(), exp.train.lr)

    # -- 5: training, within the budget (time spent by earlier attempts counts)
    if not rec.get("trained"):
        last = _train(exp, out, rec, req, emit, cancel)
        if last.get("event") == "cancelled" and not rec.get("budget_spent"):
            return _cancelled(emit, out, rec)
        rec["trained"] = True
        rec["steps"] = last.get("step")
        _write_record(out, rec)
        if rec.get("budget_spent") and exp.train.knn_calibrate:  # train() calibrates only runs it finished
            from engine.nmt.knn_calibrate import calibrate_training

            emit(calibrate_training(exp, out, [p.source for p in split.train], [p.target for p in split.train],
                                    [p.source for p in split.dev], [p.target for p in split.dev]))
    if cancel.is_set():
        return _cancelled(emit, out, rec)

    # -- 7: after
    if memories is None:
        memories, best = retrieved_pairs(out, files, split.train, split.test, src_lang, tgt_lang)
    try:
        table = score_model(out, split.test, memories, best, beam=req.beam, device=device,
                            progress=lambda ev: emit({"event": "progress", "phase": "after", **ev}),
                            cancel=cancel)
    except Cancelled:
        return _cancelled(emit, out, rec)
    key = "model_memory" if "model_memory" in table["overall"]["bleu"] else "model"
    rec["after"] = {"system": key, "bleu": table["overall"]["bleu"][key], "table": table}
    emit({"event": "after", "bleu": rec["after"]["bleu"], "system": key, "held_aside": len(split.test),
          "table": table})
    from engine.training.events import verdict

    now = rec["before"]["bleu"] if rec["before"]["system"] != "tm_copy" else None  # the current model's
    tm_copy = table["overall"]["bleu"]["tm_copy"]
    final = {"event": "finished", "before": rec["before"]["bleu"], "after": rec["after"]["bleu"],
             "current": now, "tm_copy": tm_copy, **verdict(rec["after"]["bleu"], tm_copy, now).to_json(), "model": str(out),
             "base_model": str(base) if base else "", "steps": rec.get("steps"),
             "held_aside": len(split.test), "train_pairs": len(split.train),
             "elapsed_s": round(time.time() - t0, 1), "training_s": round(rec.get("spent_s", 0.0), 1)}
    # the record names no folder of this machine: file names only
    rec.update(status="finished", final={**final, "model": out.resolve().name,
                                         "base_model": base.resolve().name if base else ""},
               finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    rec.pop("pid", None)
    _write_record(out, rec)
    emit(final)
    return final


def _train(exp, out: Path, rec: dict, req: TrainRequest, emit: EventFn, cancel: threading.Event) -> dict:
    from engine.nmt.train import train

    spent0, t_start = float(rec.get("spent_s", 0.0)), time.time()
    last_save = [t_start]

    def on_train(ev: dict):
        if ev.get("event") in ("done", "cancelled"):
            return None  # the flow's own final events follow
        spent = spent0 + time.time() - t_start
        emit({**ev, "phase": "train", "training_s": round(spent, 1),
              **({"budget_s": req.time_budget_s} if req.time_budget_s else {})})
        if ev.get("event") == "eval" or time.time() - last_save[0] > 30:
            rec["spent_s"] = round(spent, 1)
            _write_record(out, rec)
            last_save[0] = time.time()
        if req.time_budget_s and spent > req.time_budget_s:
            rec["budget_spent"] = True
            return False
        return None

    last = train(exp, out, on_event=on_train, cancel=cancel)
    rec["spent_s"] = round(spent0 + time.time() - t_start, 1)
    _write_record(out, rec)
    if rec.get("budget_spent"):
        emit({"event": "budget", "step": last.get("step"), "training_s": rec["spent_s"]})
    return last


def _cancelled(emit: EventFn, out: Path, rec: dict) -> dict:
    rec["status"] = "cancelled"
    rec.pop("pid", None)
    _write_record(out, rec)
    ev = _cancel_event(out)
    emit(ev)
    return ev


def _cancel_event(out: Path, resumable: bool = True) -> dict:
    return {"event": "cancelled", "model": str(out), "resumable": resumable,
            "message": "training cancelled; the current model is unchanged"
                       + (" (the run can be resumed)" if resumable else " (nothing was kept: the run starts afresh)")}


__all__ = ["TrainRequest", "run", "read_record", "RECORD"]
