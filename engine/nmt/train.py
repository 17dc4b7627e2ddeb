"""Training, readable top to bottom.

``train(cfg, out_dir)`` builds (or resumes) a model folder (steps 1-2: :mod:`engine.nmt.train_data`):

1. subword models are trained on the training data (or loaded from the folder);
2. the corpus is encoded and cut into length-bucketed token-budget batches;
3. Adam steps with dropout, gradient clipping and optional label smoothing
   (plus the direct-bridging loss after its pre-training steps);
4. every ``eval_every`` steps (or each epoch) the dev set is translated and
   scored with sacrebleu; the best checkpoint is kept, the learning rate is
   decayed after ``lr_patience`` evaluations without a gain and training
   stops after ``patience``;
5. a resumable state (weights, optimizer tensors, RNG, position in the
   epoch) is saved regularly and on cancel, so a second call continues;
   a run that stopped at its ``max_steps`` / ``max_epochs`` goes on when
   called again with a higher limit.

Progress goes to ``on_event(dict)``; returning ``False`` from it, or setting
``cancel``, stops training cleanly.  Runs on CUDA (bf16 autocast) when
present, on the CPU otherwise.

Several processes or GPUs (``torchrun --nproc-per-node N -m engine train ...``):
DistributedDataParallel, NCCL on CUDA, gloo on the CPU.  Every rank cuts the
same batches (same seed and epoch); an optimiser step takes the next
``world x train.accumulate`` of them and rank ``r`` trains on every world-th one
from ``r``, so over an epoch the ranks together see every training example
exactly once.  When the epoch's last step has fewer batches than ranks, a rank
without one still runs a batch with weight 0 (DDP needs every rank in every
gradient all-reduce) -- nothing is dropped and nothing is counted twice.  The
loss of a step is the mean over all its target tokens, on every rank alike (see
the loop).  Rank 0 builds the subword models first, evaluates, and writes
every file; resuming reads them on every rank.  ``train.accumulate`` also works
on one process: one GPU with ``accumulate = N`` follows the loss curve of N GPUs.
"""
from __future__ import annotations

import json
import os
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Callable

import torch
import torch.nn.functional as F

from engine.errors import ConfigError
from engine.nmt import checkpoint as ckpt
from engine.nmt.config import ExperimentConfig
from engine.nmt.data import collate, make_batches
from engine.nmt.evaluate import bleu
from engine.nmt.build import build_model
from engine.nmt.laststate import SaveClock, load_last, save_last
from engine.nmt.model import count_parameters
from engine.nmt.devtranslate import Stopped, translate_ids
from engine.nmt.train_data import build_vocabs, prepare_data  # noqa: F401  (build_vocabs: asked of train)
from engine.training.stopping import writing

EventFn = Callable[[dict], "bool | None"]
#: longest wait between two ``step`` events (loss, ETA): a large recipe on a CPU takes seconds a
#: step, so every ``log_every`` steps alone left the translator without a loss for minutes
LOG_S = 10.0


# ------------------------------------------------------------------ setup helpers
def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"train.device = {name!r} but no CUDA device is available")
    return torch.device(name)


def dist_info() -> tuple[int, int, int]:
    """(rank, world size, local rank) from torchrun's environment."""
    return (int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)),
            int(os.environ.get("LOCAL_RANK", 0)))



def _append_history(folder: Path, ev: dict) -> None:
    with open(folder / "history.jsonl", "a", encoding="utf-8") as fh:  # append-only log
        fh.write(json.dumps(ev, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------ the loop
def train(cfg: ExperimentConfig, out_dir: str | Path, *, on_event: EventFn | None = None,
          cancel: threading.Event | None = None, on_rank: Callable[[dict], None] | None = None) -> dict:
    """Train (or resume training) into ``out_dir``; returns the last event.

    ``on_event`` gets rank 0's events.  ``on_rank`` (tests, diagnostics) is called on
    EVERY rank: ``{"event": "batch", "rank", "epoch", "step", "indices"}`` for each
    batch trained on (``indices``: the examples' corpus lines; a weight-0 filler batch
    is not reported) and, at the end, ``{"event": "weights", "rank", "step", "sha256"}``
    (a digest of the rank's parameters)."""
    tc, folder = cfg.train, Path(out_dir)
    rank, world, local_rank = dist_info()
    is_main = rank == 0
    if world > 1:
        import torch.distributed as dist

        backend = "nccl" if torch.cuda.is_available() else "gloo"
        dist.init_process_group(backend)
        device = torch.device(f"cuda:{local_rank}") if torch.cuda.is_available() else torch.device("cpu")
        if device.type == "cuda":
            torch.cuda.set_device(device)
    else:
        device = pick_device(tc.device)
    if tc.threads:
        torch.set_num_threads(tc.threads)

    def emit(ev: dict) -> bool:
        if not is_main:
            return True
        if ev["event"] not in ("step",):
            _append_history(folder, ev)
        r = on_event(ev) if on_event else None
        return r is not False

    # -- 1. folder, config, subwords; 2. data (engine.nmt.train_data)
    data = prepare_data(cfg, folder, is_main=is_main, world=world)
    resuming = (folder / "last" / "state.json").is_file()
    src_lines, tgt_lines, dev_src, dev_ref = data.src_lines, data.tgt_lines, data.dev_src, data.dev_ref
    tv, examples, dev_ids = data.tv, data.examples, data.dev_ids
    doc_table, dev_table, mem_feed = data.doc_table, data.dev_table, data.mem_feed

    # -- 3. model and optimizer
    torch.manual_seed(tc.seed)
    model = build_model(cfg.model).to(device)
    if tc.init_from or tc.memory_only:  # start from a baseline's weights / train only the memory
        from engine.nmt.memory_feed import start_from_baseline

        start_from_baseline(model, tc, resuming=resuming)
    opt = torch.optim.Adam(model.parameters(), lr=tc.lr)
    st = {"step": 0, "epoch": 0, "batch": 0, "best_bleu": -1.0, "best_step": 0, "bad_evals": 0,
          "lr_bad_evals": 0, "tokens": 0, "evals": 0, "best_files": []}
    if resuming:
        st.update(load_last(folder, model, opt))
    params = count_parameters(model)
    # a run stopped by its step or epoch limit goes on when the limit is raised (as nanoGPT's max_iters):
    # the same folder, optimiser state and best-checkpoint bookkeeping, as if the limit had been higher
    if ((st.get("finished") == "max_steps" and tc.max_steps and st["step"] < tc.max_steps)
            or (st.get("finished") == "max_epochs" and st["epoch"] < tc.max_epochs)):
        del st["finished"]
        evaluated_at = st["step"]  # the last step was evaluated when the run stopped: not again
    else:
        evaluated_at = -1
    if st.get("finished"):
        last = {"event": "done", "reason": st["finished"], "step": st["step"], "epoch": st["epoch"],
                "best_bleu": st["best_bleu"], "best_step": st["best_step"], "already_finished": True}
        emit(last)
        return last
    train_model = model
    if world > 1:
        from torch.nn.parallel import DistributedDataParallel as DDP

        train_model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    use_amp = device.type == "cuda" and tc.amp
    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if use_amp else nullcontext

    batcher = make_batches
    if tc.batching == "window":  # consecutive sentences: context summaries shared within a batch
        from engine.nmt.doccontext import window_batches as batcher
    accum = max(1, tc.accumulate)
    group = world * accum  # batches per optimiser step, over all ranks
    # the batch count of an epoch does not depend on its shuffle: ceil, so that no batch is left out
    steps_per_epoch = max(1, -(-len(batcher(examples, tc.batch_tokens, seed=tc.seed, epoch=0)) // group))
    total_steps = tc.max_steps or tc.max_epochs * steps_per_epoch
    emit({"event": "resume" if resuming else "start", "step": st["step"], "epoch": st["epoch"],
          "parameters": params, "train_pairs": len(examples), "dev_sentences": len(dev_ids),
          "steps_per_epoch": steps_per_epoch, "total_steps": total_steps, "device": str(device),
          "world_size": world, "accumulate": accum})

    # -- 4. evaluation, checkpointing
    def dev_inputs(rows: list[int]) -> dict:
        x = {"doc": dev_table.batch(rows)} if dev_table else {}
        return {**x, **mem_feed.dev_inputs(rows)} if mem_feed else x

    def evaluate() -> dict:
        # one process gives an evaluation up on cancel (the steps trained are saved at once); ranks
        # wait for rank 0's evaluation, so under torchrun it runs to its end
        hyp_ids = translate_ids(model, dev_ids, beam=tc.dev_beam, device=device,
                                inputs_fn=dev_inputs if (dev_table or mem_feed) else None,
                                cancel=cancel if world == 1 else None)
        hyps = [tv.decode(h) for h in hyp_ids]
        model.train()
        return {"bleu": round(bleu(hyps, dev_ref), 2), "sample": hyps[:1]}

    def save_best(step: int, bleu_: float | None) -> str:
        with writing():  # the checkpoint and the manifest naming it, together (an older one is deleted)
            name = _save_best(step)
            ckpt.write_manifest(folder, best=name, best_step=step, best_bleu=bleu_, params=params)
        return name

    def _save_best(step: int) -> str:
        name = f"checkpoints/step-{step:07d}.safetensors"
        dtype = torch.float16 if tc.save_dtype == "float16" else None
        ckpt.save_weights(model, folder / name, dtype=dtype)
        st["best_files"] = ([name] + [f for f in st["best_files"] if f != name])
        for old in st["best_files"][max(1, tc.keep_checkpoints):]:
            (folder / old).unlink(missing_ok=True)
        st["best_files"] = st["best_files"][:max(1, tc.keep_checkpoints)]
        return name

    def checkpoint_and_eval() -> str | None:
        """Returns a stop reason, or None to go on."""
        stop = None
        if is_main:
            try:
                res = evaluate()
            except Stopped:
                model.train()
                return "cancelled"
            st["evals"] += 1
            improved = res["bleu"] > st["best_bleu"]
            if improved:
                st.update(best_bleu=res["bleu"], best_step=st["step"], bad_evals=0, lr_bad_evals=0)
                save_best(st["step"], res["bleu"])
            else:
                st["bad_evals"] += 1
                st["lr_bad_evals"] += 1
            emit({"event": "eval", "step": st["step"], "epoch": st["epoch"], "dev_bleu": res["bleu"],
                  "best_bleu": st["best_bleu"], "best_step": st["best_step"], "improved": improved,
                  "lr": opt.param_groups[0]["lr"], "sample": res["sample"]})
            if st["lr_bad_evals"] >= tc.lr_patience and tc.lr_decay < 1.0:
                for g in opt.param_groups:
                    g["lr"] = max(tc.min_lr, g["lr"] * tc.lr_decay)
                st["lr_bad_evals"] = 0
                emit({"event": "lr", "step": st["step"], "lr": opt.param_groups[0]["lr"]})
            if tc.patience and st["bad_evals"] >= tc.patience:
                stop = "early_stop"
        if world > 1:  # every rank learns rank 0's decision and learning rate
            flag = torch.tensor([1.0 if stop else 0.0, opt.param_groups[0]["lr"]], device=device,
                                dtype=torch.float64)
            dist.broadcast(flag, 0)
            stop = "early_stop" if flag[0] > 0 else None
            for g in opt.param_groups:
                g["lr"] = float(flag[1])
        return stop

    clock = SaveClock(tc.checkpoint_every, tc.checkpoint_every_s)  # by steps or by time, whichever first

    def save_resumable() -> None:
        if is_main:
            save_last(folder, model, opt, st)
            emit({"event": "checkpoint", "step": st["step"], "epoch": st["epoch"]})
        clock.saved()

    # -- 5. the loop
    model.train()
    reason = "max_epochs"
    t0, tok0, step0 = time.time(), st["tokens"], st["step"]
    logged = t0
    loss_sum, loss_tok = 0.0, 0
    asked_stop = False  # on_event returned False (rank 0)

    def prepare(batch):
        b = collate(batch)
        if doc_table is not None:
            b.inputs["doc"] = doc_table.batch(b.indices)
        if mem_feed is not None:
            b.inputs.update(mem_feed.train_inputs(b.indices, epoch=st["epoch"]))
        return b.to(device)

    while st["epoch"] < tc.max_epochs:
        batches = batcher(examples, tc.batch_tokens, seed=tc.seed, epoch=st["epoch"])
        # st["batch"]: how many of the epoch's batches (all ranks together) were trained on
        while st["batch"] < len(batches):
            stop_asked = asked_stop or (cancel is not None and cancel.is_set())
            if stop_asked and world == 1:
                reason = "cancelled"
                break
            step_batches = batches[st["batch"]:st["batch"] + group]
            mine = step_batches[rank::world]
            real = len(mine)  # 0 only for ranks beyond the epoch's last batches: a filler of weight 0
            micro = mine or batches[:1]
            # The step's loss is the mean over ALL its target tokens (every rank's, every accumulated
            # batch): rank r's sum is scaled by world / n_step, since DDP averages the ranks' gradients
            # (divides by world).  Each rank dividing by its own count (sum/n_r) would weigh a token of
            # a short batch more than one of a long batch whenever the ranks' token counts differ, and
            # the step would not be the single-process step over the same batches.
            counts = torch.tensor([float(sum(len(e.tgt) for x in mine for e in x)), float(real), float(stop_asked)],
                                  dtype=torch.float64, device=device)
            if world > 1:
                dist.all_reduce(counts)  # (also: a stop asked on any rank stops every rank at the same step)
                if counts[2] > 0:
                    reason = "cancelled"
                    break
            n_step, m_step = float(counts[0]), float(counts[1])
            opt.zero_grad(set_to_none=True)
            for i, x in enumerate(micro):
                b = prepare(x)  # (one batch at a time on the device)
                weight = 1.0 if i < real else 0.0
                last_micro = i == len(micro) - 1
                with (nullcontext() if world == 1 or last_micro else train_model.no_sync()):  # one all-reduce a step
                    with autocast():
                        res = train_model(b.src, b.src_mask, b.tgt_in, tgt_out=b.tgt_out, **b.inputs)
                        # context sources that fuse per step give log-probabilities (log_softmax leaves them as they are)
                        logits = res["logits"] if "logits" in res else res["log_probs"]
                    nll_sum = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), b.tgt_out.reshape(-1),
                                              ignore_index=0, label_smoothing=tc.label_smoothing, reduction="sum")
                    loss = nll_sum * (weight * world / n_step)
                    if "bridge_loss" in res:  # a per-batch mean: averaged over the step's batches
                        w = cfg.model.direct_weight if st["step"] >= cfg.model.direct_pretrain_steps else 0.0
                        loss = loss + (weight * world / m_step) * w * res["bridge_loss"].float()
                    loss.backward()
                if weight:
                    loss_sum += nll_sum.item()
                    loss_tok += b.n_tgt
                    if on_rank is not None:
                        on_rank({"event": "batch", "rank": rank, "epoch": st["epoch"], "step": st["step"] + 1,
                                 "indices": [int(k) for k in b.indices]})
            torch.nn.utils.clip_grad_norm_(model.parameters(), tc.clip)
            opt.step()
            st["step"] += 1
            st["batch"] += len(step_batches)
            st["tokens"] += int(n_step)
            if (st["step"] % tc.log_every == 0 or st["step"] == total_steps or st["step"] == step0 + 1
                    or (world == 1 and time.time() - logged >= LOG_S)):  # (ranks log at the same steps)
                logged = time.time()
                if world > 1:  # the loss of all ranks' tokens (the same step on every rank: all join)
                    both = torch.tensor([loss_sum, float(loss_tok)], dtype=torch.float64, device=device)
                    dist.all_reduce(both)
                    loss_sum, loss_tok = float(both[0]), int(both[1])
                el = max(time.time() - t0, 1e-9)
                sps = (st["step"] - step0) / el
                ev = {"event": "step", "step": st["step"], "epoch": st["epoch"], "loss": round(loss_sum / loss_tok, 4),
                      "tokens_per_s": round((st["tokens"] - tok0) / el, 1), "lr": opt.param_groups[0]["lr"],
                      "total_steps": total_steps,
                      "eta_s": round((total_steps - st["step"]) / sps, 1) if sps > 0 else None}
                if "bridge_loss" in res:
                    ev["bridge_loss"] = round(res["bridge_loss"].item(), 4)
                loss_sum, loss_tok = 0.0, 0
                if not emit(ev):
                    if world > 1:  # rank 0 alone hears it: every rank stops before the next step
                        asked_stop = True
                    else:
                        reason = "cancelled"
                        break
            stop = None
            if tc.eval_every and st["step"] % tc.eval_every == 0 and st["step"] != evaluated_at:
                stop = checkpoint_and_eval()
                save_resumable()
            elif clock.due(st["step"]):
                save_resumable()
            if stop:
                reason = stop
                break
            if tc.max_steps and st["step"] >= tc.max_steps:
                reason = "max_steps"
                break
        if reason in ("cancelled", "early_stop", "max_steps"):
            break
        st["epoch"] += 1
        st["batch"] = 0
        if not tc.eval_every:
            stop = checkpoint_and_eval()
            save_resumable()
            if stop:
                reason = stop
                break
    if reason == "max_steps" and (not tc.eval_every or st["step"] % tc.eval_every):
        checkpoint_and_eval()
    if reason != "cancelled":
        st["finished"] = reason
    save_resumable()
    if is_main and not (folder / "manifest.json").is_file():  # cancelled before any evaluation
        save_best(st["step"], None)
    if is_main and reason != "cancelled" and tc.knn_calibrate:
        from engine.nmt.knn_calibrate import calibrate_training

        emit(calibrate_training(cfg, folder, src_lines, tgt_lines, dev_src, dev_ref))
    last = {"event": "cancelled" if reason == "cancelled" else "done", "reason": reason,
            "step": st["step"], "epoch": st["epoch"], "best_bleu": st["best_bleu"],
            "best_step": st["best_step"], "elapsed_s": round(time.time() - t0, 1),
            "tokens_per_s": round((st["tokens"] - tok0) / max(time.time() - t0, 1e-9), 1)}
    emit(last)
    if on_rank is not None:
        import hashlib

        h = hashlib.sha256()
        for name, t in model.state_dict().items():
            h.update(name.encode())
            h.update(t.detach().cpu().contiguous().numpy().tobytes())
        on_rank({"event": "weights", "rank": rank, "step": st["step"], "sha256": h.hexdigest()})
    if world > 1:  # every rank past its last collective before any closes the group: a rank whose peer
        dist.barrier()  # closed it mid-call aborted ("terminate called without an active exception")
        dist.destroy_process_group()
    return last
