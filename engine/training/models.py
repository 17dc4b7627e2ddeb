"""The models a project can use: shipped, trained, fine-tuned and imported.

A model is a folder with a ``manifest.json`` (checksums of its files,
safetensors weights only -- :mod:`engine.nmt.checkpoint`).  They are looked
for in the bundled ``resources/models/``, the project's ``models/`` and the
user's ``models/`` (``$VERSO_HOME``); :func:`list_models` describes those of
a language pair from their manifest and training record (no torch): size,
date, what data they saw, and their before/after table on their held-aside
test documents.  :func:`export_model` and :func:`import_model` copy a
folder after loading it with the strict loader (checksums, shapes, no
pickles); :func:`delete_model` refuses the shipped ones and the one in use.
"""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ConfigError, ModelError
from engine.langs import same_language
from engine.resources import resources_dir, user_data_dir

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class ModelInfo:
    path: Path
    name: str
    kind: str                   # shipped | trained | fine-tuned | imported
    src_lang: str
    tgt_lang: str
    parameters: int
    size_bytes: int
    date: str                   # YYYY-MM-DD of the weights
    data: str                   # what it saw, in words
    scores: dict = field(default_factory=dict)   # the test table after training ({} when unknown)
    base_model: str = ""


def search_folders(project=None) -> list[tuple[Path, str]]:
    """(folder holding model folders, kind of what it holds), most specific first."""
    out = []
    if project is not None:
        out.append((Path(project.folder) / "models", "trained"))
    out.append((user_data_dir() / "models", "imported"))
    out.append((resources_dir() / "models", "shipped"))
    return out


def _size(folder: Path, names) -> int:
    return sum((folder / n).stat().st_size for n in names if (folder / n).is_file())


def describe(folder: str | Path, kind: str = "") -> ModelInfo:
    """A model folder in a few fields (reads JSON only); ModelError when it is not a model."""
    folder = Path(folder)
    try:
        man = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = man["files"]
        best = folder / man["best"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ModelError(f"{folder / MANIFEST}: not a model folder ({e})") from None
    try:
        rec = json.loads((folder / "training.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        rec = {}
    if rec.get("kind") == "finetune":
        kind = "fine-tuned"
    elif rec and kind != "shipped":
        kind = "trained" if kind != "imported" else kind
    data = ""
    if rec.get("data"):
        srcs = ", ".join(name for name, _ in rec["data"].get("per_source", []))
        data = f"{rec['split']['train']:,} pairs from {srcs}" if rec.get("split") else srcs
    elif man.get("exported_from"):
        data = f"exported from {man['exported_from']}"
    try:
        date = time.strftime("%Y-%m-%d", time.localtime(best.stat().st_mtime))
    except OSError:
        date = ""
    return ModelInfo(folder, folder.name, kind or "trained", man.get("src_lang", ""), man.get("tgt_lang", ""),
                     int(man.get("parameters") or 0), _size(folder, files), date, data,
                     (rec.get("after") or {}).get("table", {}), (rec.get("request") or {}).get("base_model", ""))


def serves(folder: str | Path | None, src_lang: str, tgt_lang: str) -> bool:
    """Whether the model in ``folder`` translates ``src_lang`` into ``tgt_lang`` (its manifest says)."""
    if folder is None:
        return False
    try:
        man = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return same_language(man.get("src_lang", ""), src_lang) and same_language(man.get("tgt_lang", ""), tgt_lang)


def list_models(project=None, src_lang: str = "", tgt_lang: str = "") -> list[ModelInfo]:
    """The usable models (a manifest; a run still training has none yet) of the pair, each once."""
    seen: set[Path] = set()
    out = []
    for root, kind in search_folders(project):
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if (p / MANIFEST).is_file()):
            key = folder.resolve()
            if key in seen:
                continue
            seen.add(key)
            try:
                info = describe(folder, kind)
            except ModelError:
                continue
            if (src_lang and not same_language(info.src_lang, src_lang)) or (
                    tgt_lang and not same_language(info.tgt_lang, tgt_lang)):
                continue
            out.append(info)
    return out


def delete_model(folder: str | Path, *, current: str | Path | None = None) -> None:
    folder = Path(folder)
    if folder.resolve().is_relative_to(resources_dir().resolve()):
        raise ConfigError(f"{folder}: a shipped model cannot be deleted")
    if current is not None and folder.resolve() == Path(current).resolve():
        raise ConfigError(f"{folder}: the project uses this model; switch to another one first")
    if not (folder / MANIFEST).is_file() and not (folder / "training.json").is_file():
        raise ConfigError(f"{folder}: not a model folder; nothing deleted")
    shutil.rmtree(folder)


def export_model(folder: str | Path, dest: str | Path) -> Path:
    """A clean copy of a model (checked, weights as float16, no training state or data) in ``dest``."""
    from engine.nmt.checkpoint import export_model as export

    folder, dest = Path(folder), Path(dest)
    export(folder, dest)
    _copy_record(folder, dest)
    return dest


def import_model(src: str | Path, project=None) -> Path:
    """Check a model folder from anywhere with the strict loader, then copy its manifest's files into
    the user's (or the project's) models; returns the new folder."""
    from engine.nmt.checkpoint import load_model

    src = Path(src)
    if not (src / MANIFEST).is_file():
        raise ModelError(f"{src}: not a model folder (no {MANIFEST})")
    load_model(src)  # checksums, safetensors only, shapes, config: any problem is a one-line ModelError
    root = (Path(project.folder) / "models") if project is not None else user_data_dir() / "models"
    dest = root / src.name
    n = 2
    while dest.exists():
        dest = root / f"{src.name}-{n}"
        n += 1
    man = json.loads((src / MANIFEST).read_text(encoding="utf-8"))
    tmp = root / f".{dest.name}.importing"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for name in [*man["files"], MANIFEST, "history.jsonl"]:
            if (src / name).is_file():
                (tmp / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / name, tmp / name)
        _copy_record(src, tmp)
        load_model(tmp)  # the copy is whole
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _copy_record(src: Path, dest: Path) -> None:
    """The training record without the run's bookkeeping (names of files only, scores, recipe)."""
    try:
        rec = json.loads((src / "training.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for k in ("pid", "config", "hardware"):
        rec.pop(k, None)
    (dest / "training.json").write_text(json.dumps(rec, indent=2, ensure_ascii=False), encoding="utf-8")
