"""The resumable state of a training folder, ``FOLDER/last/``: weights, optimizer tensors and RNG
in safetensors, the loop's counters in ``state.json`` (:func:`engine.nmt.train.train` saves it
regularly and on cancel, and reads it to go on)."""
from __future__ import annotations

import time
from pathlib import Path

import torch

from engine.errors import ModelError
from engine.nmt import checkpoint as ckpt
from engine.training.stopping import writing


class SaveClock:
    """When the next resumable checkpoint is due: every ``steps`` steps or ``seconds`` of training,
    whichever comes first (0: not by that)."""

    def __init__(self, steps: int, seconds: float):
        self.steps, self.seconds, self.at = steps, seconds, time.monotonic()

    def due(self, step: int) -> bool:
        return bool((self.steps and step % self.steps == 0)
                    or (self.seconds and time.monotonic() - self.at >= self.seconds))

    def saved(self) -> None:
        self.at = time.monotonic()


def save_last(folder: Path, model, opt, state: dict) -> None:
    """Weights, optimizer tensors and RNG in safetensors; counters in state.json (the three written
    together: a stop on a signal waits for them)."""
    with writing():
        _save_last(folder, model, opt, state)


def _save_last(folder: Path, model, opt, state: dict) -> None:
    last = folder / "last"
    ckpt.save_weights(model, last / "model.safetensors")
    tensors, groups = {}, []
    sd = opt.state_dict()
    for pid, st in sd["state"].items():
        for name, v in st.items():
            tensors[f"state.{pid}.{name}"] = v.detach().cpu().contiguous() if torch.is_tensor(v) else torch.tensor(v)
    groups = sd["param_groups"]
    tensors["rng.cpu"] = torch.get_rng_state()
    if torch.cuda.is_available():
        tensors["rng.cuda"] = torch.cuda.get_rng_state()
    ckpt.save_tensors(tensors, last / "optim.safetensors")
    ckpt.write_json(last / "state.json", {**state, "param_groups": groups})


def load_last(folder: Path, model, opt) -> dict:
    last = folder / "last"
    state = ckpt.read_json(last / "state.json")
    ckpt.apply_tensors(model, ckpt.load_tensors(last / "model.safetensors"), last / "model.safetensors")
    t = ckpt.load_tensors(last / "optim.safetensors")
    per: dict[int, dict] = {}
    for k, v in t.items():
        if k.startswith("state."):
            _, pid, name = k.split(".", 2)
            per.setdefault(int(pid), {})[name] = v
    try:
        opt.load_state_dict({"state": per, "param_groups": state.pop("param_groups")})
    except (ValueError, KeyError) as e:
        raise ModelError(f"{last / 'optim.safetensors'}: does not match the model ({e})") from None
    torch.set_rng_state(t["rng.cpu"])
    if "rng.cuda" in t and torch.cuda.is_available():
        torch.cuda.set_rng_state(t["rng.cuda"])
    return state
