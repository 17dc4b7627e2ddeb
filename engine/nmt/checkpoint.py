"""The self-describing model folder.

::

    MODEL_DIR/
      config.json             experiment config (languages, model options, vocab sizes, training)
      spm.model               joint subword model  (or src.spm.model + tgt.spm.model)
      checkpoints/step-N.safetensors   weights (best ones kept; never pickle)
      manifest.json           names the best checkpoint, its dev BLEU, SHA-256 of every file
      history.jsonl           training events (evaluations, learning-rate changes, ...)
      knn.json                the nearest-neighbour memory's calibration (engine.nmt.knn), when made
      last/                   resumable state: model + optimizer tensors (safetensors) + state.json

Loading checks every file the manifest names; a missing, truncated or
altered file raises :class:`~engine.errors.ModelError` naming it.  A model
folder may come from someone else, so before anything is opened or built:

* every file is read through :mod:`engine.folder_guard`: a path it names
  (``best``, the keys of ``files``, the fixed names) must stay inside the
  folder -- no absolute path, no ``..``, no symlink leading out --, be a
  regular file and stay under a size limit for its kind;
* the manifest must checksum every file the loader reads
  (:mod:`engine.nmt.manifest`);
* a pickle (``.pt``, ``.bin``, ``.pkl``, ... or pickle bytes under any name) is
  refused as such: Verso never unpickles anything (:mod:`engine.nmt.weights`);
* the weights' safetensors header (shapes only, read with a size cap) must
  match what config.json implies; a mismatch names config.json, the option and
  the tensor, before a single tensor is allocated.

A folder written here names no folder of the machine it was made on.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from engine.errors import ConfigError, ModelError
from engine.fsutil import atomic_write
from engine.nmt.config import ExperimentConfig, portable_paths
from engine import folder_guard as guard
from engine.nmt.build import build_model
from engine.nmt.knn import KNN_FILE, KnnSettings
from engine.nmt.manifest import FORMAT, FORMAT_VERSION, MANIFEST, read_manifest, unlisted
from engine.nmt.model import RNNSearch
from engine.nmt.vocab import SubwordVocab
from engine.nmt.weights import (  # noqa: F401  (the weight files' functions: asked of checkpoint)
    PICKLE_SUFFIXES, apply_tensors, load_tensors, pickle_error, read_header, save_tensors, save_weights,
)

inside = guard.inside


def check_shapes(cfg: ExperimentConfig, header: dict[str, tuple[str, tuple[int, ...]]], weights: Path,
                 config_path: Path) -> None:
    """Refuse a config that the weights (their header) do not carry, before the
    model is built: first the sizes config.json names, then every tensor of the
    model the config makes, built on the ``meta`` device (no memory)."""
    m = cfg.model

    def shape(k):
        return header[k][1] if k in header else None

    core = [("src_emb.weight", 0, "model.src_vocab", m.src_vocab), ("src_emb.weight", 1, "model.emb_dim", m.emb_dim),
            ("encoder.weight_hh_l0", 1, "model.hidden", m.hidden), ("out_proj.bias", 0, "model.tgt_vocab", m.tgt_vocab)]
    if m.tie != "all":
        core.append(("tgt_emb.weight", 0, "model.tgt_vocab", m.tgt_vocab))
    if m.att_dim:
        core.append(("att_v.weight", 1, "model.att_dim", m.att_dim))
    for key, dim, option, value in core:
        s = shape(key)
        if s is not None and len(s) > dim and s[dim] != value:
            raise ModelError(f"{config_path}: {option} = {value} does not match the weights "
                             f"({weights.name}: {key} has shape {s})")
    try:
        with torch.device("meta"):
            meta = build_model(m)
    except (ConfigError, ValueError, RuntimeError, OverflowError) as e:
        raise ModelError(f"{config_path}: the model section cannot be built ({e})") from None
    groups: dict[int, list[str]] = {}
    state = meta.state_dict(keep_vars=True)
    for k, v in state.items():
        groups.setdefault(id(v), []).append(k)
    for names in groups.values():
        want = tuple(state[names[0]].shape)
        present = [n for n in names if n in header]
        if not present:
            raise ModelError(f"{config_path}: does not match the weights ({weights.name} lacks {names[0]}, "
                             f"shape {want}, which this configuration needs)")
        for n in present:
            if shape(n) != want:
                raise ModelError(f"{config_path}: does not match the weights ({weights.name}: {n} has shape "
                                 f"{shape(n)}, this configuration needs {want})")
    unknown = [k for k in header if k not in state]
    if unknown:
        raise ModelError(f"{config_path}: does not match the weights ({weights.name} has {unknown[0]}, "
                         f"which this configuration does not make)")


def init_from_checkpoint(model: torch.nn.Module, path, *, strict_shapes: bool = True) -> dict:
    """Copy the tensors of a baseline (a model folder's best checkpoint, or a
    ``.safetensors`` file) into ``model``; parameters the baseline lacks (the
    memory) keep their initial values.  Returns ``{"loaded": n, "new": [names]}``."""
    path = Path(path)
    if path.is_dir():
        man = read_json(path / MANIFEST) if (path / MANIFEST).is_file() else {}
        path = (inside(path, man["best"], f"{path / 'manifest.json'}, 'best'") if man.get("best")
                else path / "last" / "model.safetensors")
    tensors = load_tensors(path)
    state = model.state_dict()
    loaded, new = 0, []
    done_ptrs = set()
    with torch.no_grad():
        for k, v in state.items():
            if k not in tensors and v.data_ptr() in done_ptrs:
                continue  # a tied alias of a tensor already copied
            if k in tensors:
                done_ptrs.add(v.data_ptr())
                if tuple(tensors[k].shape) != tuple(v.shape):
                    if strict_shapes:
                        raise ModelError(f"{path}: {k} has shape {tuple(tensors[k].shape)}, the model "
                                         f"needs {tuple(v.shape)} (a different vocabulary or size?)")
                    continue
                v.copy_(tensors[k].to(v.dtype))
                loaded += 1
            else:
                new.append(k)
    unknown = sorted(set(tensors) - set(state))
    if unknown:
        raise ModelError(f"{path}: has tensors this model lacks ({unknown[:3]})")
    return {"loaded": loaded, "new": new}


# ------------------------------------------------------------------ files
def sha256(path: Path) -> str:
    path = Path(path)
    return guard.sha256(path.parent, path.name)


def write_json(path: Path, obj) -> None:
    with atomic_write(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2)
        fh.write("\n")


def read_json(path: Path) -> dict:
    """A JSON object of a model folder (through the folder guard: a link out, a huge file or deep
    nesting is a one-line ModelError)."""
    path = Path(path)
    return guard.read_json(path.parent, path.name)


def vocab_files(cfg: ExperimentConfig) -> tuple[str, str]:
    return ("spm.model", "spm.model") if cfg.data.joint_vocab else ("src.spm.model", "tgt.spm.model")


def write_manifest(folder: Path, *, best: str, best_step: int, best_bleu: float | None,
                   params: int, extra: dict | None = None) -> None:
    """(Re)write manifest.json with checksums of the files a translator needs."""
    cfg = ExperimentConfig.from_dict(read_json(folder / "config.json"))
    names = ["config.json", best, *sorted(set(vocab_files(cfg)))]
    if (folder / KNN_FILE).is_file():
        names.append(KNN_FILE)
    man = {
        "format": FORMAT, "version": FORMAT_VERSION,
        "src_lang": cfg.data.src_lang, "tgt_lang": cfg.data.tgt_lang,
        "best": best, "best_step": best_step, "best_dev_bleu": best_bleu,
        "parameters": params,
        "files": {n: sha256(folder / n) for n in names},
    }
    man.update(extra or {})
    write_json(folder / "manifest.json", man)


@dataclass
class LoadedModel:
    """A model folder in memory, ready to translate."""

    folder: Path
    cfg: ExperimentConfig
    model: RNNSearch
    src_vocab: SubwordVocab
    tgt_vocab: SubwordVocab
    manifest: dict
    knn: KnnSettings | None = None      # the nearest-neighbour memory's calibration (knn.json), if any


def load_model(folder: str | Path, *, device: str | torch.device = "cpu", verify: bool = True) -> LoadedModel:
    """Load the best checkpoint of a model folder (eval mode).

    Every path the folder names is resolved inside it before anything is
    opened, pickles are refused, and the config is checked against the
    weights' header before the model is built (see the module docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(f"{folder}: no such model folder")
    man_path = folder / MANIFEST
    if not man_path.is_file():
        pickles = sorted(p for p in folder.iterdir() if p.suffix.lower() in PICKLE_SUFFIXES)
        if pickles:  # e.g. a PyTorch / Hugging Face folder: say why it is not a model here
            raise pickle_error(pickles[0])
    man = read_manifest(folder)  # through the folder guard; types checked; lists files
    # 1. every name resolved inside the folder, pickles refused -- before any of them is opened
    best = inside(folder, man.get("best"), f"{man_path}, 'best'")
    files = man["files"]
    named = {name: inside(folder, name, f"{man_path}, 'files'") for name in files}
    for p in [best, *named.values()]:
        if p.suffix.lower() in PICKLE_SUFFIXES:
            raise pickle_error(p)
    cfg_path = inside(folder, "config.json", str(man_path))

    def all_listed(names) -> None:
        missing = unlisted(man, names)
        if missing:
            raise ModelError(f"{man_path}, 'files': does not list {missing[0]}; every file a model reads "
                             "must be checksummed")

    all_listed(["config.json", man["best"]])
    # 2. checksums
    for name, digest in files.items():
        if verify and guard.sha256(folder, name, where=f"{man_path}, 'files'") != digest:
            raise ModelError(f"{named[name]}: corrupt (checksum differs from manifest.json)")
        elif not verify:
            guard.checked(folder, name, where=f"{man_path}, 'files'")
    try:
        cfg = ExperimentConfig.from_dict(read_json(cfg_path), where=str(cfg_path))
    except ConfigError as e:
        raise ModelError(str(e)) from None
    sv, tv = vocab_files(cfg)
    has_knn = (folder / KNN_FILE).is_file()
    all_listed(sorted({sv, tv}) + ([KNN_FILE] if has_knn else []))
    src_vocab = SubwordVocab(guard.read_bytes(folder, sv, where=str(cfg_path)), name=str(folder / sv))
    tgt_vocab = src_vocab if tv == sv else SubwordVocab(guard.read_bytes(folder, tv, where=str(cfg_path)),
                                                        name=str(folder / tv))
    if len(src_vocab) != cfg.model.src_vocab or len(tgt_vocab) != cfg.model.tgt_vocab:
        raise ModelError(f"{folder / sv}: vocabulary size differs from config.json")
    # 3. the config against the weights' shapes (header only), then build and fill
    check_shapes(cfg, read_header(best), best, cfg_path)
    knn = KnnSettings.read(folder / KNN_FILE) if has_knn else None
    model = build_model(cfg.model)
    apply_tensors(model, load_tensors(best), best)
    model.to(device).eval()
    return LoadedModel(folder, cfg, model, src_vocab, tgt_vocab, man, knn)


def export_model(src: str | Path, dst: str | Path, *, dtype: str = "float16") -> Path:
    """Copy what a translator needs (config, subword models, the best weights,
    history) into a fresh folder, weights stored as ``dtype``; no resumable state.
    The copy names no folder of this machine: config paths become file names
    (:func:`~engine.nmt.config.portable_paths`), ``exported_from`` the source
    folder's name."""
    src, dst = Path(src), Path(dst)
    loaded = load_model(src)
    if dst.exists() and any(dst.iterdir()):
        raise ModelError(f"{dst}: export folder is not empty")
    # whatever is there under these names (a link leading out, a FIFO: the guard refuses them), all
    # checked before the copy begins
    names = [n for n in ["history.jsonl", KNN_FILE, *sorted(set(vocab_files(loaded.cfg)))]
             if os.path.lexists(src / n)]
    for name in names:
        guard.checked(src, name)
    dst.mkdir(parents=True, exist_ok=True)
    for name in names:
        guard.copy_file(src, name, dst)
    # config.json without the folders of the machine it was trained on (older folders have them)
    write_json(dst / "config.json", portable_paths(read_json(src / "config.json"), src))
    best = "model.safetensors"
    save_weights(loaded.model, dst / best, dtype=torch.float16 if dtype == "float16" else None)
    man = loaded.manifest
    from engine.nmt.model import count_parameters

    write_manifest(dst, best=best, best_step=man.get("best_step", 0), best_bleu=man.get("best_dev_bleu"),
                   params=count_parameters(loaded.model), extra={"exported_from": src.resolve().name})
    return dst
