"""Typed, strict configuration of an NMT experiment.

An experiment config has three sections, each a dataclass that rejects
unknown keys and values of the wrong type with :class:`~engine.errors.ConfigError`::

    [data]   languages, train/dev files, subword vocabulary
    [model]  RNNSearch knobs: sizes, decoder cell, readout, context gate, bridging
    [train]  optimiser, batches, schedule, early stopping, device

Files are JSON or TOML.  Relative data paths are resolved against the
folder of the file that names them; ``$VARS`` and ``~`` are expanded (an unset
variable is an error).  A file may start from another one, nanoGPT-style: a
top-level ``extends = "base.toml"`` (relative to the file) reads the base, then
the file's own keys replace the base's, key by key within each section; bases
may extend further bases.  The config.json a
model folder stores names no folder of the machine it was made on
(:func:`portable_paths`).
"""
from __future__ import annotations

import dataclasses
import json
import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.errors import ConfigError
from engine.langs import normalize_lang

GateKind = Literal["none", "source", "target", "both"]
CellKind = Literal["gru", "tanh"]
ReadoutKind = Literal["maxout", "tanh"]
TieKind = Literal["none", "decoder", "all"]
MemoryKind = Literal["none", "shallow", "deep"]
BRIDGING_KINDS = ("source", "target", "direct")


@dataclass
class DataConfig:
    """Corpus and subword settings.

    ``joint_vocab``: one sentencepiece model for both languages (required
    for ``tie = "all"``).  ``tag_symbols``: how many inline-tag characters
    (U+E001 onwards, see :mod:`engine.inline`) are reserved as single pieces.
    """

    src_lang: str = ""
    tgt_lang: str = ""
    train_src: str = ""
    train_tgt: str = ""
    dev_src: str = ""
    dev_tgt: str = ""
    # document ids (one per line of train_src / dev_src) for cross-sentence context;
    # without them, '<d>' marker lines in the text files start documents
    train_docs: str = ""
    dev_docs: str = ""
    vocab_size: int = 8000
    joint_vocab: bool = True
    tag_symbols: int = 32
    max_len: int = 80            # subwords, longer training pairs are dropped
    spm_sample: int = 2_000_000  # sentences sentencepiece trains on (at most)
    character_coverage: float = 1.0


@dataclass
class ModelConfig:
    """RNNSearch with a conditional GRU decoder (dl4mt / Nematus style).

    ``cell``: ``gru`` (conditional GRU) or ``tanh`` (the "vanilla" RNN of
    Tu et al. 2017).  ``context_gate``: Eq. 4 and Sec. 3.2 of that paper.
    ``bridging``: any of ``source``, ``target``, ``direct`` (Kuang et al.
    2018).  ``direct_weight``: weight of the auxiliary embedding loss;
    ``direct_pretrain_steps``: steps trained with the NMT loss alone before
    the auxiliary loss is switched on (the paper's pre-training schedule).
    Vocabulary sizes are filled in by training.
    """

    emb_dim: int = 256
    hidden: int = 512
    att_dim: int = 0             # 0: same as hidden
    cell: CellKind = "gru"
    readout: ReadoutKind = "maxout"
    tie: TieKind = "decoder"
    context_gate: GateKind = "none"
    bridging: list[str] = field(default_factory=list)
    direct_weight: float = 1.0
    direct_pretrain_steps: int = 0
    dropout: float = 0.2
    emb_dropout: float = 0.1
    src_vocab: int = 0
    tgt_vocab: int = 0
    # search-engine guided NMT (Gu et al. 2018; engine.nmt.memory): key-value memory of
    # retrieved TM pairs, mixed into the output ("shallow", Eq. 6) or the readout ("deep", Eq. 5)
    memory: MemoryKind = "none"
    memory_coverage: bool = True     # coverage penalty lambda * beta (Eq. 7)
    memory_gate_bias: float = -1.0   # initial bias of the gate zeta (sigmoid(-1) = 0.27)
    memory_metric_init: float = 1.0  # initial diagonal of M (the paper: identity); "cosine": initial temperature
    # how c_t is matched against the keys c'_tau: "bilinear" c_t^T M c'_tau (Eq. 4, the paper), or "cosine":
    # s * cos(D c_t, D c'_tau) with D diagonal (from I) and the temperature s learnt -- a key equal to the
    # query then always scores highest, which the dot product does not ensure (not in Gu et al.)
    memory_match: Literal["bilinear", "cosine"] = "bilinear"
    # the fuzzy score of each retrieved pair as an input: a learnt bias of the matching towards
    # closer pairs and the memory's score-weighted mean (sum_tau q s_tau) as an input of the gate
    # (not in Gu et al., whose gate sees only c_t, z_t, z~_t: a 100 % and a 90 % match look alike)
    memory_score: bool = False
    # cross-sentence context (Wang et al. 2017; engine.nmt.doccontext): a hierarchical summary D
    # of the doc_k previous source sentences of the document, used by any of the strategies
    # "init-enc", "init-dec", "aux", "gated-aux" (aux and gated-aux exclude each other)
    doc_context: list[str] = field(default_factory=list)
    doc_k: int = 3
    doc_hidden: int = 0              # size of the sentence and document GRUs (0: hidden)

    def validate(self) -> None:
        if self.doc_context:
            from engine.nmt.documents import validate_doc_config

            validate_doc_config(self.doc_context, self.doc_k, self.doc_hidden)
        for b in self.bridging:
            if b not in BRIDGING_KINDS:
                raise ConfigError(f"model.bridging: unknown kind {b!r} (use {', '.join(BRIDGING_KINDS)})")
        if len(set(self.bridging)) != len(self.bridging):
            raise ConfigError("model.bridging: a kind is listed twice")
        for name in ("emb_dim", "hidden"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"model.{name} must be positive")
        if not 0.0 <= self.dropout < 1.0 or not 0.0 <= self.emb_dropout < 1.0:
            raise ConfigError("model.dropout and model.emb_dropout must be in [0, 1)")
        if self.memory_metric_init <= 0:
            raise ConfigError("model.memory_metric_init must be positive")


@dataclass
class TrainConfig:
    """Optimisation and schedule.

    ``batch_tokens``: token budget of a batch (source or target, whichever
    is longer, padding included).  ``eval_every``: steps between dev
    evaluations (0: once per epoch).  ``patience``: evaluations without a
    dev-BLEU gain before early stopping; ``lr_patience``: before the
    learning rate is multiplied by ``lr_decay``.
    """

    seed: int = 1
    batch_tokens: int = 4000
    # batches per optimiser step and process (gradient accumulation): a step's global batch is
    # processes x accumulate batches; one process with accumulate = N follows N processes' loss curve
    accumulate: int = 1
    lr: float = 5e-4
    clip: float = 1.0
    label_smoothing: float = 0.1
    max_epochs: int = 30
    max_steps: int = 0           # 0: no limit
    eval_every: int = 0
    dev_beam: int = 1
    dev_max_sentences: int = 0   # 0: whole dev set
    patience: int = 5
    lr_decay: float = 0.5
    lr_patience: int = 2
    min_lr: float = 1e-6
    log_every: int = 20
    checkpoint_every: int = 500  # steps between resumable "last" checkpoints
    # seconds of training between them too, whichever comes first (0: by steps only): a kill loses at
    # most this much work (500 steps of a CPU recipe took over 400 s on the 2-core VM)
    checkpoint_every_s: float = 60.0
    keep_checkpoints: int = 1    # best checkpoints kept besides "last"
    device: str = "auto"         # auto | cpu | cuda | cuda:N
    amp: bool = True             # bf16 autocast on CUDA (ignored on CPU)
    threads: int = 0             # CPU threads (0: torch default)
    save_dtype: Literal["float32", "float16"] = "float32"
    # "length": length-bucketed batches; "window": runs of consecutive corpus sentences (documents in
    # order), so that a document-context batch shares its previous-sentence summaries
    batching: Literal["length", "window"] = "length"
    # search-engine guided NMT (model.memory != "none"; Algorithm 2 of Gu et al. 2018)
    memory_k_train: int = 1      # retrieved pairs per training pair (never the pair itself)
    memory_cache: str = ""       # training TM + retrieval cache folder ("" = OUT/memory)
    init_from: str = ""          # model folder or .safetensors to start from (matching tensors)
    memory_only: bool = False    # with init_from: train only the memory parts
    # with init_from and model.doc_context: train only the document-context parts; the projections
    # of D start at zero, so training starts from the baseline's own translations
    context_only: bool = False
    # share of training pairs (drawn anew each epoch) that read themselves as a 100 % match
    # (score 1.0) in place of their best neighbour.  Not in Gu et al., who never show a pair
    # itself; without it a model never sees a 100 % match in training (use with model.memory_score)
    memory_exact_rate: float = 0.0
    # after training: calibrate the nearest-neighbour memory (engine.nmt.knn_calibrate) on the dev set
    # with pairs from a TM of the training data, and save it in the model folder (knn.json)
    knn_calibrate: bool = True


@dataclass
class ExperimentConfig:
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict, *, where: str = "config") -> "ExperimentConfig":
        if not isinstance(d, dict):
            raise ConfigError(f"{where}: expected a table/object at the top level")
        _reject_unknown(d, {"data", "model", "train"}, where)
        cfg = cls(
            data=build_strict(DataConfig, d.get("data", {}), f"{where}: [data]"),
            model=build_strict(ModelConfig, d.get("model", {}), f"{where}: [model]"),
            train=build_strict(TrainConfig, d.get("train", {}), f"{where}: [train]"),
        )
        cfg.data.src_lang = normalize_lang(cfg.data.src_lang)
        cfg.data.tgt_lang = normalize_lang(cfg.data.tgt_lang)
        try:
            cfg.model.validate()
        except ConfigError as e:
            raise ConfigError(f"{where}: {e}") from None
        if cfg.train.accumulate < 1:
            raise ConfigError(f"{where}: train.accumulate must be at least 1")
        if cfg.train.checkpoint_every < 0 or not 0.0 <= cfg.train.checkpoint_every_s < float("inf"):
            raise ConfigError(f"{where}: train.checkpoint_every and train.checkpoint_every_s cannot be negative")
        if not 0.0 <= cfg.train.memory_exact_rate <= 1.0:
            raise ConfigError(f"{where}: train.memory_exact_rate must be in [0, 1]")
        if cfg.train.memory_exact_rate > 0 and cfg.model.memory == "none":
            raise ConfigError(f"{where}: train.memory_exact_rate needs a memory model (model.memory)")
        if cfg.train.memory_only and cfg.model.memory == "none":
            raise ConfigError(f"{where}: train.memory_only needs a memory model (model.memory)")
        if cfg.train.context_only and (not cfg.model.doc_context or not cfg.train.init_from):
            raise ConfigError(f"{where}: train.context_only needs model.doc_context and train.init_from")
        if cfg.model.tie == "all" and not cfg.data.joint_vocab:
            raise ConfigError(f"{where}: model.tie = 'all' needs data.joint_vocab = true")
        return cfg


def load_config(path: str | Path) -> ExperimentConfig:
    """Read a JSON or TOML experiment config (following ``extends``); data paths become absolute."""
    path = Path(path)
    return ExperimentConfig.from_dict(_read_merged(path, ()), where=str(path))


def _read_raw(path: Path) -> dict:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        if path.suffix.lower() == ".toml":  # only a training config: tomllib is 1.7 ms of a translator's start
            import tomllib

            d = tomllib.loads(raw.decode("utf-8"))
        else:
            d = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise ConfigError(f"{path}: not valid {'TOML' if path.suffix.lower() == '.toml' else 'JSON'}: {e}") from None
    if not isinstance(d, dict):
        raise ConfigError(f"{path}: expected a table/object at the top level")
    return d


def _absolute(value: str, base: Path, where: str) -> str:
    expanded = os.path.expanduser(os.path.expandvars(value))
    if "$" in expanded:
        var = expanded[expanded.index("$"):].split("/")[0]
        raise ConfigError(f"{where}: {value!r}: the environment variable {var} is not set")
    p = Path(expanded)
    return str(p if p.is_absolute() else (base / p).resolve())


def _read_merged(path: Path, seen: tuple[Path, ...]) -> dict:
    """``path``'s sections over those of the file it ``extends``, each file's paths made absolute
    against its own folder; every key checked in the file that holds it."""
    d = _read_raw(path)
    where = str(path)
    _reject_unknown(d, {"extends", "data", "model", "train"}, where)
    for section in ("data", "model", "train"):
        sec = d.get(section, {})
        if not isinstance(sec, dict):
            raise ConfigError(f"{where}: [{section}]: expected a table/object")
        cls = {"data": DataConfig, "model": ModelConfig, "train": TrainConfig}[section]
        build_strict(cls, sec, f"{where}: [{section}]")  # unknown keys and wrong types, named in this file
    folder = path.resolve().parent
    for section, names in PATH_FIELDS.items():
        sec = d.get(section, {})
        for name in names:
            v = sec.get(name)
            if isinstance(v, str) and v:
                sec[name] = _absolute(v, folder, f"{where}: [{section}] {name}")
    parent = d.pop("extends", None)
    if parent is None:
        return d
    if not isinstance(parent, str) or not parent:
        raise ConfigError(f"{where}: extends: expected the path of a base config, got {parent!r}")
    base_path = folder / os.path.expanduser(parent)
    key = base_path.resolve()
    if key in seen or key == path.resolve():
        raise ConfigError(f"{where}: extends {parent!r}: the configs extend each other in a loop")
    if not base_path.is_file():
        raise ConfigError(f"{where}: extends {parent!r}: no such file ({base_path})")
    merged = _read_merged(base_path, seen + (path.resolve(),))
    for section in ("data", "model", "train"):
        if section in d:
            merged[section] = {**merged.get(section, {}), **d[section]}
    return merged


# file paths of a config, by section
PATH_FIELDS = {"data": ("train_src", "train_tgt", "dev_src", "dev_tgt", "train_docs", "dev_docs"),
               "train": ("memory_cache", "init_from")}


def portable_path(value: str, folder: str | Path) -> str:
    """``value`` as a model folder stores it: a path inside ``folder``
    relative to it (``/``-separated), a plain relative path as it is, any
    other path (absolute, ``..``, ``~``, ``$VAR``) its last name alone."""
    if not value:
        return value
    p = Path(value)
    if not p.is_absolute() and ".." not in p.parts and not value.startswith("~") and "$" not in value:
        return p.as_posix()
    if p.is_absolute():
        try:
            return p.resolve().relative_to(Path(folder).resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):
            pass
    return p.name


def portable_paths(d: dict, folder: str | Path) -> dict:
    """A copy of config dict ``d`` whose file paths name no folder of this
    machine (:func:`portable_path` against the model folder ``folder``): what
    a model folder's config.json holds, so that sharing a model does not
    reveal its maker's folders.  Anything not a path is unchanged."""
    if not isinstance(d, dict):
        return d
    out = dict(d)
    for section, names in PATH_FIELDS.items():
        sec = out.get(section)
        if isinstance(sec, dict):
            out[section] = {k: portable_path(v, folder) if k in names and isinstance(v, str) else v
                            for k, v in sec.items()}
    return out


# ------------------------------------------------------------------ helpers
def _reject_unknown(d: dict, known: set[str], where: str) -> None:
    unknown = sorted(set(d) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))} "
                          f"(known: {', '.join(sorted(known))})")


def build_strict(cls, d: Any, where: str):
    """``cls(**d)`` for a dataclass, refusing unknown keys and wrong types with errors naming ``where``."""
    if not isinstance(d, dict):
        raise ConfigError(f"{where}: expected a table/object")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    _reject_unknown(d, names, where)
    kw = {k: _check_type(v, hints[k], f"{where} {k}") for k, v in d.items()}
    return cls(**kw)


def _check_type(v: Any, tp: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if origin is Literal:
        if v not in typing.get_args(tp):
            raise ConfigError(f"{where}: {v!r} is not one of {', '.join(map(repr, typing.get_args(tp)))}")
        return v
    if origin is list:
        (inner,) = typing.get_args(tp)
        if not isinstance(v, list):
            raise ConfigError(f"{where}: expected a list, got {type(v).__name__}")
        return [_check_type(x, inner, where) for x in v]
    if tp is bool:
        if not isinstance(v, bool):
            raise ConfigError(f"{where}: expected true/false, got {v!r}")
        return v
    if tp is int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{where}: expected an integer, got {v!r}")
        return v
    if tp is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {v!r}")
        return float(v)
    if tp is str:
        if not isinstance(v, str):
            raise ConfigError(f"{where}: expected a string, got {v!r}")
        return v
    return v  # pragma: no cover - every field type is handled above
