"""The training recipe, chosen from the data, the time budget and the hardware.

A recipe is the model size, vocabulary, batch, learning rate and the step
budget of one run.  The table below is small on purpose; its throughput
column is measured (``python -m benchmarks.train_pair speed``, target tokens
per second over 40 steps on 5,000 En-Fr JRC-Acquis sentences, vocabulary
8,000, on the 2-core AMD EPYC VM without GPU, load average 1-2; the GPU
figure is the H100 run of session 9 recorded in docs/history.md).  A GPU
recipe larger than the CPU's is not in the table: none was measured.  The rules:

* **device**: CUDA when present (and not refused), with bf16 autocast;
  otherwise the CPU with one thread per core (at most 4: a GRU step's
  matrices are too small to use more).
* **model**: the largest recipe of the device whose measured throughput
  affords its :attr:`Recipe.min_steps` updates within the budget and whose
  :attr:`Recipe.min_pairs` the data reach (a big model on little data only
  memorises it); the smallest otherwise.  No budget: the largest the data
  reach.  Updates count more than size at these budgets: on the Hansards
  (138k pairs, one CPU thread, 2 hours) cpu-base made 1,482 updates to a
  dev BLEU of 9.2, while cpu-small had 7.5 after 1,398 updates in 29
  minutes and 11.5 after 1,864 in 39 (RESULTS "Your pair, your model"):
  cpu-base needs 4,000.
* **vocabulary**: a joint sentencepiece model, :func:`vocab_size` by data size.
* **steps**: what the budget affords at the measured speed, less
  :data:`EVAL_SHARE` for the dev evaluations; without a budget, epochs with
  early stopping on dev BLEU.

Every recipe trains a plain attention model with context gates; the
memory comes at translation through the nearest-neighbour memory, which
costs no training (the learned memory makes each training step about 4x
dearer -- measured, RESULTS "Training throughput" -- which a CPU budget
cannot pay) and is calibrated after training.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace

#: updates a budget must afford before a recipe is chosen (fewer leave a recurrent model far from
#: converged: the demo model's dev BLEU still rose at step 1,500); cpu-base needs more (module docstring)
MIN_STEPS = 1000
#: passes over the data a budget is cut to (small data on a fast GPU would otherwise make thousands of
#: passes; dev BLEU stops improving long before -- early stopping ends the run sooner still)
MAX_PASSES = 30
#: target tokens a batch holds, as a share of its token budget (padding and the source side take the rest)
BATCH_FILL = 0.75
#: share of a budget left to dev evaluations, checkpoints and the calibration
EVAL_SHARE = 0.2


@dataclass(frozen=True)
class Hardware:
    device: str          # "cpu" | "cuda" | "cuda:N"
    cores: int
    gpu: str = ""
    gpu_memory_gb: float = 0.0

    @property
    def cuda(self) -> bool:
        return self.device.startswith("cuda")

    @property
    def threads(self) -> int:
        return max(1, min(4, self.cores))


@dataclass(frozen=True)
class Recipe:
    name: str
    device: str                 # "cpu" | "cuda": where the recipe applies
    emb_dim: int
    hidden: int
    batch_tokens: int
    lr: float
    dropout: float
    min_pairs: int              # data below this: a smaller recipe
    tokens_per_s: dict          # measured target tokens/s: {threads (str): tok/s} on the CPU, {"gpu": tok/s}
    min_steps: int = MIN_STEPS  # a budget affording fewer updates: a smaller recipe
    vocab_size: int = 8000
    steps: int = 0              # 0: epochs with early stopping
    max_epochs: int = 30
    eval_every: int = 0
    threads: int = 0
    reason: str = ""

    def speed(self, threads: int) -> float:
        """Measured target tokens/s for ``threads`` CPU threads (or on the GPU)."""
        if self.device == "cuda":
            return float(self.tokens_per_s["gpu"])
        known = sorted(int(k) for k in self.tokens_per_s)
        best = max((k for k in known if k <= threads), default=known[0])
        return float(self.tokens_per_s[str(best)])

    def to_dict(self) -> dict:
        return asdict(self)


# Measured (see the module docstring and RESULTS.md "Your pair, your model"); tok/s = target tokens per second.
RECIPES: tuple[Recipe, ...] = (
    Recipe("cpu-tiny", "cpu", emb_dim=64, hidden=128, batch_tokens=1500, lr=2e-3, dropout=0.2, min_pairs=0,
           tokens_per_s={"1": 2977, "2": 4554}),
    Recipe("cpu-small", "cpu", emb_dim=128, hidden=256, batch_tokens=3000, lr=1e-3, dropout=0.2, min_pairs=5_000,
           tokens_per_s={"1": 1821, "2": 2770}),
    Recipe("cpu-base", "cpu", emb_dim=256, hidden=512, batch_tokens=4000, lr=5e-4, dropout=0.3, min_pairs=50_000,
           min_steps=4000, tokens_per_s={"1": 772, "2": 1247}),
    # H100, bf16 autocast, session 9: the Hansards GRU of the same size (vocabulary 16,000), 6,000-token batches
    Recipe("gpu-base", "cuda", emb_dim=256, hidden=512, batch_tokens=6000, lr=1e-3, dropout=0.2, min_pairs=0,
           tokens_per_s={"gpu": 50437}),
)


def detect_hardware(device: str = "auto") -> Hardware:
    """The machine: CUDA when present and ``device`` allows it (imports torch)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if device == "cpu":
        return Hardware("cpu", cores)
    import torch

    if torch.cuda.is_available():
        dev = device if device.startswith("cuda") else "cuda"
        idx = int(dev.split(":")[1]) if ":" in dev else 0
        props = torch.cuda.get_device_properties(idx)
        return Hardware(dev, cores, props.name, round(props.total_memory / 2**30, 1))
    if device.startswith("cuda"):
        from engine.errors import ConfigError

        raise ConfigError(f"--device {device}: no CUDA device on this machine")
    return Hardware("cpu", cores)


def vocab_size(n_pairs: int) -> int:
    """Joint subword vocabulary by data size: small data gets fewer, more frequent pieces."""
    return 2000 if n_pairs < 5_000 else 4000 if n_pairs < 20_000 else 8000 if n_pairs < 200_000 else 16000


def choose(n_pairs: int, target_tokens: int, budget_s: float, hw: Hardware, *, name: str = "") -> Recipe:
    """The recipe for ``n_pairs`` training pairs of ``target_tokens`` target words in ``budget_s``
    seconds (0: no limit) on ``hw``; ``name`` forces one."""
    kind = "cuda" if hw.cuda else "cpu"
    table = [r for r in RECIPES if r.device == kind]
    threads = hw.threads
    if name:
        found = [r for r in RECIPES if r.name == name]
        if not found:
            from engine.errors import ConfigError

            raise ConfigError(f"no recipe {name!r} (known: {', '.join(r.name for r in RECIPES)})")
        pick, why = found[0], "chosen by the user"
    else:
        fits = [r for r in table if n_pairs >= r.min_pairs] or table[:1]
        if budget_s:
            ok = [r for r in fits if _steps(r, budget_s, threads) >= r.min_steps]
            pick = ok[-1] if ok else fits[0]
            n = _steps(pick, budget_s, threads)
            passes = n * pick.batch_tokens * BATCH_FILL / max(1, target_tokens * 1.3)
            why = (f"{n_pairs:,} pairs; the budget affords {n:,} updates (~{passes:.1f} passes over the data) "
                   f"at the {pick.speed(threads):,.0f} target tokens/s measured for it")
        else:
            pick = fits[-1]
            why = f"{n_pairs:,} pairs, no time budget: the largest recipe the data size allows"
    steps, eval_every = 0, 0
    if budget_s:
        steps = max(10, _steps(pick, budget_s, threads))
        cap = int(MAX_PASSES * target_tokens * 1.3 / (pick.batch_tokens * BATCH_FILL))
        if 10 <= cap < steps:
            steps = cap
            why += f"; cut to {MAX_PASSES} passes ({steps:,} updates)"
        eval_every = max(10, steps // 10)
    return replace(pick, vocab_size=vocab_size(n_pairs), steps=steps, eval_every=eval_every,
                   threads=0 if hw.cuda else threads, reason=why)


def _steps(r: Recipe, budget_s: float, threads: int) -> int:
    """Updates ``r`` makes in ``budget_s`` at its measured speed, evaluations left aside."""
    return int(budget_s * (1 - EVAL_SHARE) * r.speed(threads) / (r.batch_tokens * BATCH_FILL))


def experiment_config(recipe: Recipe, files: dict, src_lang: str, tgt_lang: str, *, device: str,
                      seed: int = 1, max_len: int = 100) -> dict:
    """The experiment config (``engine.nmt.config``) of ``recipe`` on the split's ``files``."""
    return {
        "data": {"src_lang": src_lang, "tgt_lang": tgt_lang,
                 "train_src": str(files["train.src"]), "train_tgt": str(files["train.tgt"]),
                 "dev_src": str(files["dev.src"]), "dev_tgt": str(files["dev.tgt"]),
                 "vocab_size": recipe.vocab_size, "joint_vocab": True, "max_len": max_len},
        "model": {"emb_dim": recipe.emb_dim, "hidden": recipe.hidden, "cell": "gru", "readout": "maxout",
                  "tie": "decoder", "context_gate": "both", "dropout": recipe.dropout, "emb_dropout": 0.1},
        "train": {"seed": seed, "batch_tokens": recipe.batch_tokens, "lr": recipe.lr, "label_smoothing": 0.1,
                  "max_epochs": recipe.max_epochs if not recipe.steps else 1000, "max_steps": recipe.steps,
                  "eval_every": recipe.eval_every, "dev_beam": 1, "dev_max_sentences": 300,
                  "patience": 5, "lr_decay": 0.5, "lr_patience": 3,
                  "log_every": 10, "checkpoint_every": max(10, recipe.eval_every or 200),
                  "device": device, "amp": True, "threads": recipe.threads, "save_dtype": "float16"},
    }
