"""Weights as safetensors files, never pickles: read a file's header (names, dtypes,
shapes) without reading a tensor, load, save atomically, copy into a model.

A pickle (``.pt``, ``.bin``, ``.pkl``, ... or pickle bytes under any name) is refused
as such (:func:`pickle_error`); every file is opened through :mod:`engine.folder_guard`.
What a model folder holds, and how it is checked, is :mod:`engine.nmt.checkpoint`'s.
"""
from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from engine import folder_guard as guard
from engine.errors import ModelError

PICKLE_SUFFIXES = (".pt", ".pth", ".pkl", ".pickle", ".bin", ".ckpt", ".joblib", ".npy", ".npz")
MAX_HEADER_BYTES = 16 << 20  # a safetensors header of a Verso model is a few KB
_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8,
                "U32": 4, "U16": 2, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


# ------------------------------------------------------------------ what a folder names
def pickle_error(path: Path) -> ModelError:
    return ModelError(f"{path}: is a pickle: Verso never loads pickles; weights must be .safetensors")


def _pickle_bytes(path: Path) -> bool:
    """Whether ``path`` starts like a pickle (protocol 2+) or a torch.save zip archive."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return False
    return head[:4] == b"PK\x03\x04" or (len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5)


def read_header(path: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Names, dtypes and shapes of a safetensors file, from its header alone
    (length-capped, offsets checked against the file size): no tensor is read."""
    path = Path(path)
    if path.suffix.lower() in PICKLE_SUFFIXES:
        raise pickle_error(path)
    with guard.open_file(path.parent, path.name) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(8)
            n = int.from_bytes(head, "little") if len(head) == 8 else -1
            raw = fh.read(n) if 2 <= n <= min(MAX_HEADER_BYTES, size - 8) else None
        except OSError as e:
            raise ModelError(f"{path}: cannot read ({e.strerror or e})") from None

    def bad(why: str) -> ModelError:
        if _pickle_bytes(path):
            return pickle_error(path)
        return ModelError(f"{path}: not a readable safetensors file ({why})")

    if raw is None:
        raise bad(f"header length {n} in a file of {size} bytes")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad("header is not JSON") from None
    if not isinstance(header, dict):
        raise bad("header is not a JSON object")
    data_size = size - 8 - n
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        try:
            dtype, shape, (begin, end) = v["dtype"], v["shape"], v["data_offsets"]
            ok = (dtype in _DTYPE_BYTES and isinstance(shape, list)
                  and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
                  and all(isinstance(o, int) and not isinstance(o, bool) for o in (begin, end))
                  and 0 <= begin <= end <= data_size
                  and end - begin == math.prod(shape) * _DTYPE_BYTES[dtype])
        except (TypeError, ValueError, KeyError):
            ok = False
        if not ok:
            raise bad(f"tensor {k!r}: dtype, shape and data offsets disagree with each other or the file size")
        out[k] = (dtype, tuple(shape))
    return out


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
    """Every tensor of a safetensors file; a pickle is refused as one, never unpickled."""
    path = Path(path)
    if path.suffix.lower() in PICKLE_SUFFIXES:
        raise pickle_error(path)
    guard.checked(path.parent, path.name)
    try:
        return load_file(str(path))
    except FileNotFoundError:
        raise ModelError(f"{path}: file missing") from None
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        if _pickle_bytes(path):
            raise pickle_error(path) from None
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
            v.copy_(src)  # converting as it copies: one pass (fp16 file -> fp32 model)


def save_tensors(tensors: dict[str, torch.Tensor], path: Path, metadata: dict[str, str] | None = None) -> None:
    """Write a safetensors file atomically, with the mode any other new file of the folder gets
    (safetensors itself creates 0600 files, which a team sharing the folder could not read)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)  # the file replaced keeps its mode, as atomic_write does
    except OSError:
        tmp.unlink(missing_ok=True)
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))  # the kernel applies the umask
        mode = stat.S_IMODE(os.stat(tmp).st_mode)
    save_file(tensors, str(tmp), metadata=metadata)
    try:
        if stat.S_IMODE(os.stat(tmp).st_mode) != mode:
            os.chmod(tmp, mode)
    except OSError:  # a file system without modes (FAT) keeps its own
        pass
    tmp.replace(path)


def save_weights(model: torch.nn.Module, path: Path, dtype: torch.dtype | None = None,
                 metadata: dict[str, str] | None = None) -> None:
    save_tensors(model_tensors(model, dtype), path, metadata)
