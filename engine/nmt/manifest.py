"""``manifest.json``, read strictly (no torch): what the loader, the model
list and import rely on, each field checked for its type.

A manifest makes a folder a *checksummed* model only if it lists files: one
whose ``files`` is empty or missing would let every file go unchecked, so it
is refused; the loader then requires every file it reads to be listed
(:func:`unlisted`).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from engine.errors import ModelError
from engine import folder_guard as guard

MANIFEST = "manifest.json"
FORMAT = "verso-nmt"
FORMAT_VERSION = 1
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def read_manifest(folder: str | Path) -> dict:
    """The manifest of ``folder``, read through the folder guard, every field the readers use checked."""
    folder = Path(folder)
    where = folder / MANIFEST
    man = guard.read_json(folder, MANIFEST)
    if man.get("format") != FORMAT:
        raise ModelError(f"{where}: not a Verso NMT model manifest")
    version = man.get("version", 0)
    if not _whole(version):
        raise ModelError(f"{where}, 'version': expected a whole number, not {version!r}")
    if version > FORMAT_VERSION:
        raise ModelError(f"{where}: made by a newer Verso (format {version})")
    files = man.get("files")
    if not isinstance(files, dict) or not all(isinstance(k, str) for k in files):
        raise ModelError(f"{where}, 'files': expected an object of file names and SHA-256 sums")
    if not files:
        raise ModelError(f"{where}, 'files': lists no files, so nothing could be checked: "
                         "not a checksummed model")
    bad = next((k for k, v in files.items() if not isinstance(v, str) or not _SHA256.fullmatch(v)), None)
    if bad is not None:
        raise ModelError(f"{where}, 'files', {bad!r}: expected a SHA-256 sum (64 hex digits)")
    for key in ("src_lang", "tgt_lang", "exported_from"):
        if not isinstance(man.get(key, ""), str):
            raise ModelError(f"{where}, {key!r}: expected a string, not {man[key]!r}")
    for key in ("parameters", "best_step"):
        if not _whole(man.get(key, 0)):
            raise ModelError(f"{where}, {key!r}: expected a whole number, not {man[key]!r}")
    bleu = man.get("best_dev_bleu")
    if bleu is not None and (isinstance(bleu, bool) or not isinstance(bleu, (int, float)) or not math.isfinite(bleu)):
        raise ModelError(f"{where}, 'best_dev_bleu': expected a number, not {bleu!r}")
    return man


def unlisted(man: dict, names) -> list[str]:
    """The names among ``names`` that the manifest does not checksum."""
    files = man.get("files") or {}
    listed = {k.replace("\\", "/") for k in files}
    return [n for n in names if n.replace("\\", "/") not in listed]


__all__ = ["MANIFEST", "FORMAT", "FORMAT_VERSION", "read_manifest", "unlisted"]
