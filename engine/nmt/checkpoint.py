"""The self-describing model folder.

::

    MODEL_DIR/
      config.json             experiment config (languages, model options, vocab sizes, training)
      spm.model               joint subword model  (or src.spm.model + tgt.spm.model)
      checkpoints/step-N.safetensors   weights (best ones kept; never pickle)
      manifest.json           names the best checkpoint, its dev BLEU, SHA-256 of every file
      history.jsonl           training events (evaluations, learning-rate changes, ...)
      last/                   resumable state: model + optimizer tensors (safetensors) + state.json

Loading checks every file the manifest names; a missing, truncated or
altered file raises :class:`~engine.errors.ModelError` naming it.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from engine.errors import ConfigError, ModelError
from engine.fsutil import atomic_write
from engine.nmt.config import ExperimentConfig
from engine.nmt.model import RNNSearch
from engine.nmt.vocab import SubwordVocab

FORMAT = "verso-nmt"
FORMAT_VERSION = 1


# ------------------------------------------------------------------ tensors
def model_tensors(model: torch.nn.Module, dtype: torch.dtype | None = None) -> dict[str, torch.Tensor]:
    """State dict without tied duplicates (safetensors refuses shared storage)."""
    out, seen = {}, set()
    for k, v in model.state_dict().items():
        key = (v.data_ptr(), tuple(v.shape))
        if key in seen:
            continue
        seen.add(key)
        v = v.detach()
        if dtype is not None and v.is_floating_point():
            v = v.to(dtype)
        out[k] = v.contiguous().cpu()
    return out


def load_tensors(path: Path) -> dict[str, torch.Tensor]:
    try:
        return load_file(str(path))
    except FileNotFoundError:
        raise ModelError(f"{path}: file missing") from None
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise ModelError(f"{path}: not a readable safetensors file ({e})") from None


def apply_tensors(model: torch.nn.Module, tensors: dict[str, torch.Tensor], path: Path) -> None:
    """Copy ``tensors`` into ``model``; tied aliases may be absent, nothing else."""
    state = model.state_dict()
    by_ptr: dict[int, str] = {}
    for k, v in state.items():
        by_ptr.setdefault(v.data_ptr(), k)
    unknown = sorted(set(tensors) - set(state))
    if unknown:
        raise ModelError(f"{path}: weights do not match config.json (unexpected {unknown[:3]})")
    with torch.no_grad():
        for k, v in state.items():
            src = tensors.get(k, tensors.get(by_ptr[v.data_ptr()]))
            if src is None:
                raise ModelError(f"{path}: weights do not match config.json (missing {k!r})")
            if tuple(src.shape) != tuple(v.shape):
                raise ModelError(f"{path}: weights do not match config.json "
                                 f"({k}: {tuple(src.shape)} vs {tuple(v.shape)})")
            v.copy_(src.to(v.dtype))


def save_weights(model: torch.nn.Module, path: Path, dtype: torch.dtype | None = None,
                 metadata: dict[str, str] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    save_file(model_tensors(model, dtype), str(tmp), metadata=metadata)
    tmp.replace(path)


# ------------------------------------------------------------------ files
def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_json(path: Path, obj) -> None:
    with atomic_write(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2)
        fh.write("\n")


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path}: file missing") from None
    except (OSError, ValueError) as e:
        raise ModelError(f"{path}: not valid JSON ({e})") from None


def vocab_files(cfg: ExperimentConfig) -> tuple[str, str]:
    return ("spm.model", "spm.model") if cfg.data.joint_vocab else ("src.spm.model", "tgt.spm.model")


def write_manifest(folder: Path, *, best: str, best_step: int, best_bleu: float | None,
                   params: int, extra: dict | None = None) -> None:
    """(Re)write manifest.json with checksums of the files a translator needs."""
    cfg = ExperimentConfig.from_dict(read_json(folder / "config.json"))
    names = ["config.json", best, *sorted(set(vocab_files(cfg)))]
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


def load_model(folder: str | Path, *, device: str | torch.device = "cpu", verify: bool = True) -> LoadedModel:
    """Load the best checkpoint of a model folder (eval mode)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(f"{folder}: no such model folder")
    man = read_json(folder / "manifest.json")
    if man.get("format") != FORMAT:
        raise ModelError(f"{folder / 'manifest.json'}: not a Verso NMT model manifest")
    if int(man.get("version", 0)) > FORMAT_VERSION:
        raise ModelError(f"{folder / 'manifest.json'}: made by a newer Verso (format {man.get('version')})")
    files = man.get("files") or {}
    for name, digest in files.items():
        p = folder / name
        if not p.is_file():
            raise ModelError(f"{p}: file missing")
        if verify and sha256(p) != digest:
            raise ModelError(f"{p}: corrupt (checksum differs from manifest.json)")
    try:
        cfg = ExperimentConfig.from_dict(read_json(folder / "config.json"), where=str(folder / "config.json"))
    except ConfigError as e:
        raise ModelError(str(e)) from None
    sv, tv = vocab_files(cfg)
    src_vocab = SubwordVocab.load(folder / sv)
    tgt_vocab = src_vocab if tv == sv else SubwordVocab.load(folder / tv)
    if len(src_vocab) != cfg.model.src_vocab or len(tgt_vocab) != cfg.model.tgt_vocab:
        raise ModelError(f"{folder / sv}: vocabulary size differs from config.json")
    model = RNNSearch(cfg.model)
    best = folder / str(man.get("best", ""))
    apply_tensors(model, load_tensors(best), best)
    model.to(device).eval()
    return LoadedModel(folder, cfg, model, src_vocab, tgt_vocab, man)


def export_model(src: str | Path, dst: str | Path, *, dtype: str = "float16") -> Path:
    """Copy what a translator needs (config, subword models, the best weights,
    history) into a fresh folder, weights stored as ``dtype``; no resumable state."""
    import shutil

    src, dst = Path(src), Path(dst)
    loaded = load_model(src)
    if dst.exists() and any(dst.iterdir()):
        raise ModelError(f"{dst}: export folder is not empty")
    dst.mkdir(parents=True, exist_ok=True)
    for name in ["config.json", "history.jsonl", *sorted(set(vocab_files(loaded.cfg)))]:
        if (src / name).is_file():
            shutil.copyfile(src / name, dst / name)
    best = "model.safetensors"
    save_weights(loaded.model, dst / best, dtype=torch.float16 if dtype == "float16" else None)
    man = loaded.manifest
    from engine.nmt.model import count_parameters

    write_manifest(dst, best=best, best_step=man.get("best_step", 0), best_bleu=man.get("best_dev_bleu"),
                   params=count_parameters(loaded.model), extra={"exported_from": str(src)})
    return dst
