"""Nearest-neighbour memory over the retrieved pairs: every model copies from the TM, untrained.

The sentence-level kNN-MT of Dai et al., *Simple and Scalable Nearest Neighbor Machine
Translation* (ICLR 2023, "SK-MT"), after Khandelwal et al., *Nearest Neighbor Machine
Translation* (ICLR 2021), as a parameter-free :class:`~engine.nmt.decoder_types.ContextSource`
that :func:`engine.nmt.build.build_model` gives every model.

Datastore (per sentence, from its K retrieved pairs (X', Y'), :mod:`engine.nmt.pairs` packing
``with_eos``): the frozen model runs teacher-forced over each pair; for every target position
tau the key is o'_tau, the vector the output layer reads (``RNNSearch.readout_vector``, R dims),
and the value is the token y'_tau, ``</s>`` included, so that a copied 100 % match ends where it
ends.  Pair encodings are cached (LRU), so a pair read again costs nothing.

Each decoder step t, with o_t the query made the same way (notation: N slots, k nearest)::

    d_n      = ||o_t - o'_n||^2                                         (B, N)
    p_kNN(y) = sum_{n in kNN, y'_n = y} softmax_{kNN}(-d_n / T)          (B, V)
    lambda_t = max(0, 1 - d_min / T_lambda)                               (B, 1)
    p(y)     = lambda_t p_kNN(y) + (1 - lambda_t) p_model(y)             (in log space)

k = 1 by default: with k = 4 the second pair's keys broke 100 % matches (the prototype's measurement, docs/history.md).
T_lambda belongs to the model: :mod:`engine.nmt.knn_calibrate` measures it on the model's dev
set and stores it in the model folder (``knn.json``, :class:`KnnSettings`).  A sentence with no
retrieved pair, or whose keys are all farther than T_lambda, gets exactly the model's output
(lambda = 0: the distribution is returned untouched).  The copy report of an emitted token is
lambda_t p_kNN(token) and its nearest slot (pair, position).
"""
from __future__ import annotations

import json
import math
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from torch import Tensor, nn

from engine import folder_guard
from engine.errors import ModelError
from engine.nmt.decoder_types import ContextSource, EncoderOutput, StepOutput
from engine.nmt.pairs import MemoryBatch
from engine.nmt.vocab import PAD

#: the calibration file in a model folder
KNN_FILE = "knn.json"
#: the memories a translation may read (``auto``: see :meth:`KnnSettings.choose`)
MEMORY_MODES = ("auto", "knn", "learned", "none")


@dataclass(frozen=True)
class KnnSettings:
    """A model's nearest-neighbour memory: ``t_lambda`` T_lambda, ``temperature`` T of p_kNN
    (defaults to T_lambda; read only when ``k`` > 1), ``k`` nearest slots, ``auto`` the memory
    ``--memory auto`` reads for a model that also has a learned one (``knn`` unless the learned
    one measured better on the model's dev set), ``calibration``: how T_lambda was found."""

    t_lambda: float
    k: int = 1
    temperature: float = 0.0
    auto: str = "knn"
    calibration: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not self.temperature:
            object.__setattr__(self, "temperature", self.t_lambda)

    def with_k(self, k: int | None) -> "KnnSettings":
        return self if k is None else KnnSettings(self.t_lambda, k, self.temperature, self.auto, self.calibration)

    @classmethod
    def read(cls, path: str | Path) -> "KnnSettings":
        """Read ``knn.json`` strictly: an error names the file and the key."""
        path = Path(path)
        data = folder_guard.read_json(path.parent, path.name)  # a link out, a huge file: one-line errors
        unknown = sorted(set(data) - {"t_lambda", "k", "temperature", "auto", "calibration"})
        if unknown:
            raise ModelError(f"{path}, '{unknown[0]}': unknown key")

        def number(key: str, default=None) -> float:
            v = data.get(key, default)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise ModelError(f"{path}, '{key}': expected a positive number")
            return float(v)

        k = data.get("k", 1)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 64:
            raise ModelError(f"{path}, 'k': expected a whole number from 1 to 64")
        auto = data.get("auto", "knn")
        if auto not in ("knn", "learned"):
            raise ModelError(f"{path}, 'auto': expected \"knn\" or \"learned\"")
        cal = data.get("calibration", {})
        if not isinstance(cal, dict):
            raise ModelError(f"{path}, 'calibration': expected an object")
        t = number("t_lambda")
        return cls(t, k, number("temperature", t), auto, cal)

    def write(self, path: str | Path) -> None:
        from engine.fsutil import atomic_write

        with atomic_write(Path(path), "w", encoding="utf-8") as fh:
            json.dump(asdict(self), fh, indent=2)
            fh.write("\n")


@dataclass
class KnnInput:
    """The nearest-neighbour memory's input for a batch: the packed pairs (``</s>`` slots
    included) and the settings; ``settings`` None builds the datastore but mixes nothing
    (calibration reads the distances)."""

    batch: MemoryBatch
    settings: KnnSettings | None


class KnnMemory(ContextSource):
    """The datastore of the retrieved pairs and the interpolation with the model's distribution."""

    inference_only = True
    CACHE_PAIRS = 256

    def __init__(self, model: nn.Module):
        super().__init__()
        object.__setattr__(self, "_owner", model)  # a back reference, not a submodule

    # ---------------------------------------------------------------- datastore
    def prepare(self, enc: EncoderOutput, knn: KnnInput | None = None, **_) -> None:
        """Keys o' (B, N, R), tokens y' (B, N) and provenance of every slot into ``enc.extras["knn"]``."""
        if knn is None:
            return
        mb = knn.batch
        keys = self._readouts(mb)                                        # (P, T', R)
        P, T = mb.tgt_in.shape
        idx = mb.slot_index
        enc.extras["knn"] = {
            "keys": keys.reshape(P * T, -1)[idx].float(),                 # (B, N, R)
            "tokens": mb.tgt_out.reshape(-1)[idx],                        # (B, N)
            "mask": mb.slot_mask, "pair": mb.slot_pair, "pos": mb.slot_pos,
            "settings": knn.settings,
        }

    @torch.no_grad()
    def _pair_pass(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor) -> Tensor:
        """(P, T', R) readout vectors o' of P pairs, teacher-forced, reading nothing else."""
        m = self._owner
        menc = m.encode(src, src_mask)                       # no memory inputs here: no recursion
        state = m.init_state(menc)
        y = m.embed_target(tgt_in)
        outs = []
        for i in range(tgt_in.size(1)):
            out, state = m.step(y[:, i], state, menc)
            outs.append(m.readout_vector(out.hidden, out.prev_emb, out.ctx))
        return torch.stack(outs, 1)

    def _readouts(self, mb: MemoryBatch) -> Tensor:
        cache: OrderedDict = self.__dict__.setdefault("_pair_cache", OrderedDict())
        P, T = mb.tgt_in.shape
        s_len = mb.src_mask.sum(1).tolist()
        t_len = (mb.tgt_out != PAD).sum(1).tolist()
        names = [(tuple(mb.src[p, :s_len[p]].tolist()), tuple(mb.tgt_out[p, :t_len[p]].tolist())) for p in range(P)]
        todo = [p for p in range(P) if names[p] not in cache]
        if todo:
            rows = torch.tensor(todo, device=mb.src.device)
            S2, T2 = max(s_len[p] for p in todo), max(t_len[p] for p in todo)
            o = self._pair_pass(mb.src.index_select(0, rows)[:, :S2], mb.src_mask.index_select(0, rows)[:, :S2],
                                mb.tgt_in.index_select(0, rows)[:, :T2])
            for j, p in enumerate(todo):
                cache[names[p]] = o[j, :t_len[p]]
        first = cache[names[0]]
        keys = first.new_zeros(P, T, first.size(-1))
        for p in range(P):
            cache.move_to_end(names[p])
            keys[p, :t_len[p]] = cache[names[p]]
        while len(cache) > self.CACHE_PAIRS:
            cache.popitem(last=False)
        return keys

    def train(self, mode: bool = True):
        self.__dict__.pop("_pair_cache", None)  # weights may change: encodings are stale
        return super().train(mode)

    # ---------------------------------------------------------------- the mixture
    @staticmethod
    def distances(mem: dict, query: Tensor) -> Tensor:
        """(B, N) squared distances of the queries (B, R) to every slot; +inf at padding."""
        d = ((mem["keys"] - query.float().unsqueeze(1)) ** 2).sum(-1)
        return d.masked_fill(~mem["mask"], math.inf)

    def fuse_output(self, enc: EncoderOutput, out: StepOutput, log_probs: Tensor) -> Tensor:
        mem = enc.extras.get("knn")
        if mem is None or mem["settings"] is None:
            return log_probs
        s: KnnSettings = mem["settings"]
        d = self.distances(mem, out.readout)                                    # (B, N)
        dk, ik = d.topk(min(s.k, d.size(1)), dim=-1, largest=False)             # (B, k)
        lam = (1.0 - dk[:, :1] / s.t_lambda).clamp(min=0.0)                     # (B, 1); 0 where d = inf
        w = torch.softmax(-dk / s.temperature, dim=-1).nan_to_num(0.0)          # (B, k); all-padding rows: 0
        tok = mem["tokens"].gather(1, ik)                                       # (B, k)
        out.extras["knn"] = {"lam": lam, "w": w, "tok": tok, "slot": ik}
        if not bool((lam > 0).any()):  # every slot far: the model's own distribution, no (B, V) work
            return log_probs
        # p_kNN is zero but at the k tokens, where log(lambda * 0) = -inf leaves (1 - lambda) p_model as it
        # is: the mixture is computed at those k tokens only (the same numbers as over all V; a dense
        # p_kNN and its log over V were ~12 ms a long sentence with pairs, demo model, 2-core VM)
        lp = log_probs.float()
        lam = lam.to(lp.dtype)
        p_tok = torch.zeros_like(w)                                             # (B, k): p_kNN at tok
        for j in range(tok.size(1)):  # summed in slot order, as a scatter_add over V would
            p_tok += w[:, j:j + 1] * (tok == tok[:, j:j + 1])
        keep = lp + torch.log1p(-lam)                                           # (B, V)
        mixed = keep.scatter(1, tok, torch.logaddexp(keep.gather(1, tok), torch.log(lam * p_tok)))
        return torch.where(lam > 0, mixed, lp).to(log_probs.dtype)

    def copy_report(self, enc: EncoderOutput, out: StepOutput, rows: Tensor, tokens: Tensor) -> Tensor | None:
        """[lambda p_kNN(token), lambda, pair, pos]: pair/pos the nearest slot holding the token."""
        mem, step = enc.extras.get("knn"), out.extras.get("knn")
        if mem is None or step is None:
            return None
        tok = step["tok"].index_select(0, rows)                                 # (n, k)
        hit = tok == tokens.unsqueeze(1)
        w = step["w"].index_select(0, rows) * hit
        mass = w.sum(-1)
        first = hit.float().argmax(-1, keepdim=True)                            # the nearest holding it
        slot = step["slot"].index_select(0, rows).gather(1, first)              # (n, 1)
        found = hit.any(-1)
        none = torch.full_like(mass, -1.0)
        pair = torch.where(found, mem["pair"].index_select(0, rows).gather(1, slot).squeeze(1).to(mass.dtype), none)
        pos = torch.where(found, mem["pos"].index_select(0, rows).gather(1, slot).squeeze(1).to(mass.dtype), none)
        lam = step["lam"].index_select(0, rows).squeeze(-1).to(mass.dtype)
        return torch.stack([lam * mass, lam, pair, pos], 1)


def knn_source(model: nn.Module) -> KnnMemory | None:
    """The model's nearest-neighbour memory (every model built by ``build_model`` has one)."""
    for cs in model.context_sources:
        if isinstance(cs, KnnMemory):
            return cs
    return None
