"""The models a project can use: shipped, trained, fine-tuned and imported.

A model is a folder with a ``manifest.json`` (checksums of its files,
safetensors weights only -- :mod:`engine.nmt.checkpoint`).  They are looked
for in the bundled ``resources/models/``, the project's ``models/`` and the
user's ``models/`` (``$VERSO_HOME``); :func:`list_models` describes those of
a language pair from their manifest and training record (no torch): size,
date, what data they saw, and their before/after table on their held-aside
test documents; a folder that cannot be read is listed with the reason, so
one bad folder never hides the others.  :func:`export_model` and
:func:`import_model` copy a folder after loading it with the strict loader
(checksums, shapes, no pickles), every file read through
:mod:`engine.folder_guard`; :func:`delete_model` refuses the shipped
ones and the one in use.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from engine.errors import ConfigError, ModelError
from engine.fsutil import atomic_write
from engine.langs import pair_text
from engine import folder_guard as guard
from engine.nmt.manifest import MANIFEST, read_manifest
from engine.resources import model_pair, pair_served, resources_dir, user_data_dir
from engine.training.events import ScoreTable
from engine.urls import strip_in

RECORD = "training.json"
HISTORY = "history.jsonl"


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
    scores: ScoreTable | None = None   # the test table after training (None when unknown)
    base_model: str = ""
    error: str = ""             # why the folder cannot be used (one line), "" when it can

    @property
    def usable(self) -> bool:
        return not self.error

    @property
    def pair(self) -> str:
        """``en -> de``: the pair it was trained for (``?`` for a side its info does not name)."""
        return pair_text(self.src_lang, self.tgt_lang)

    def serves(self, src_lang: str, tgt_lang: str) -> bool:
        """Whether it translates ``src_lang`` into ``tgt_lang`` (regional variants are one language)."""
        return pair_served((self.src_lang, self.tgt_lang), src_lang, tgt_lang)


def search_folders(project=None) -> list[tuple[Path, str]]:
    """(folder holding model folders, kind of what it holds), most specific first."""
    out = []
    if project is not None:
        out.append((Path(project.folder) / "models", "trained"))
    out.append((user_data_dir() / "models", "imported"))
    out.append((resources_dir() / "models", "shipped"))
    return out


def _size(folder: Path, names) -> int:
    total = 0
    for n in names:
        try:
            total += guard.inside(folder, n, str(folder / MANIFEST)).stat().st_size
        except (ModelError, OSError):
            continue
    return total


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _scores_table(table, where: str) -> ScoreTable | None:
    """The before/after table as the Models dialog reads it: BLEU numbers overall and per band."""
    def bleu(d, place: str) -> None:
        if not isinstance(d, dict) or not all(isinstance(k, str) and _number(v) for k, v in d.items()):
            raise ModelError(f"{where}, {place}: expected BLEU scores (an object of numbers)")

    if not isinstance(table, dict):
        raise ModelError(f"{where}: expected a score table (an object), not {type(table).__name__}")
    if not table:
        return None
    overall = table.get("overall")
    if not isinstance(overall, dict):
        raise ModelError(f"{where}, 'overall': expected an object")
    bleu(overall.get("bleu", {}), "'overall', 'bleu'")
    bands = table.get("bands", [])
    if not isinstance(bands, list):
        raise ModelError(f"{where}, 'bands': expected a list")
    for i, b in enumerate(bands):
        if not isinstance(b, dict) or not isinstance(b.get("band"), str):
            raise ModelError(f"{where}, 'bands' [{i}]: expected an object with a band name")
        bleu(b.get("bleu", {}), f"'bands' [{i}], 'bleu'")
    return ScoreTable.from_json(table)


def _record_fields(rec: dict, path: Path) -> tuple[str, str, ScoreTable | None, str]:
    """(kind of run, what it saw in words, score table, base model) of a training record."""
    def obj(key: str) -> dict:
        v = rec.get(key)
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise ModelError(f"{path}, {key!r}: expected an object, not {type(v).__name__}")
        return v

    kind = rec.get("kind", "")
    if not isinstance(kind, str):
        raise ModelError(f"{path}, 'kind': expected a string")
    data, split, after, request = obj("data"), obj("split"), obj("after"), obj("request")
    words = ""
    if data:
        per_source = data.get("per_source", [])
        if not isinstance(per_source, list) or not all(
                isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) for x in per_source):
            raise ModelError(f"{path}, 'data', 'per_source': expected a list of [name, pairs]")
        words = ", ".join(name for name, _ in per_source)
        if split:
            train = split.get("train")
            if not isinstance(train, int) or isinstance(train, bool):
                raise ModelError(f"{path}, 'split', 'train': expected a whole number")
            words = f"{train:,} pairs from {words}"
    base = request.get("base_model", "")
    if not isinstance(base, str):
        raise ModelError(f"{path}, 'request', 'base_model': expected a string")
    return kind, words, _scores_table(after.get("table", {}), f"{path}, 'after', 'table'"), base


def describe(folder: str | Path, kind: str = "") -> ModelInfo:
    """A model folder in a few fields (reads JSON only, through the folder guard).

    ModelError when its manifest cannot be read; a model whose training
    record cannot be read comes back with ``error`` saying why."""
    folder = Path(folder)
    man = read_manifest(folder)
    best = guard.inside(folder, man.get("best"), f"{folder / MANIFEST}, 'best'")
    try:
        date = time.strftime("%Y-%m-%d", time.localtime(best.stat().st_mtime))
    except OSError:
        date = ""
    info = ModelInfo(folder, folder.name, kind or "trained", man.get("src_lang", ""), man.get("tgt_lang", ""),
                     man.get("parameters", 0), _size(folder, man["files"]), date,
                     f"exported from {man['exported_from']}" if man.get("exported_from") else "")
    if not _present(folder, RECORD):
        return info
    try:
        run_kind, data, scores, base = _record_fields(guard.read_json(folder, RECORD), folder / RECORD)
    except ModelError as e:
        return replace(info, error=str(e))
    if run_kind == "finetune":
        kind = "fine-tuned"
    elif kind != "shipped":
        kind = "trained" if kind != "imported" else kind
    return replace(info, kind=kind or "trained", data=data or info.data, scores=scores, base_model=base)


def serves(folder: str | Path | None, src_lang: str, tgt_lang: str) -> bool:
    """Whether the model in ``folder`` translates ``src_lang`` into ``tgt_lang`` (its manifest names
    both languages and they are the pair's; regional variants are one language)."""
    return folder is not None and pair_served(model_pair(folder), src_lang, tgt_lang)


def _unreadable(folder: Path, kind: str, why: str) -> ModelInfo:
    return ModelInfo(folder, folder.name, kind, "", "", 0, 0, "", "", error=why)


def list_models(project=None, src_lang: str = "", tgt_lang: str = "") -> list[ModelInfo]:
    """The models (a manifest; a run still training has none yet) of the pair, each once.  A folder
    that cannot be read is listed with its reason (``error``) whatever the pair, never raised."""
    seen: set[Path] = set()
    out = []
    for root, kind in search_folders(project):
        try:
            folders = sorted(p for p in root.iterdir() if (p / MANIFEST).is_file() or (p / MANIFEST).is_symlink())
        except OSError:  # no such folder, or not readable
            continue
        for folder in folders:
            try:
                key = folder.resolve()
            except (OSError, RuntimeError):
                key = folder
            if key in seen:
                continue
            seen.add(key)
            try:
                info = describe(folder, kind)
            except ModelError as e:
                out.append(_unreadable(folder, kind, str(e)))
                continue
            except OSError as e:
                out.append(_unreadable(folder, kind, f"{folder}: cannot read ({e.strerror or e})"))
                continue
            if src_lang and tgt_lang and not info.serves(src_lang, tgt_lang):
                continue
            out.append(info)
    return out


def delete_model(folder: str | Path, *, current: str | Path | None = None) -> None:
    folder = Path(folder)
    if folder.resolve().is_relative_to(resources_dir().resolve()):
        raise ConfigError(f"{folder}: a shipped model cannot be deleted")
    if current is not None and folder.resolve() == Path(current).resolve():
        raise ConfigError(f"{folder}: the project uses this model; switch to another one first")
    if not (folder / MANIFEST).is_file() and not (folder / RECORD).is_file():
        raise ConfigError(f"{folder}: not a model folder; nothing deleted")
    shutil.rmtree(folder)


def export_model(folder: str | Path, dest: str | Path) -> Path:
    """A clean copy of a model (checked, weights as float16, no training state or data) in ``dest``."""
    from engine.nmt.checkpoint import export_model as export

    folder, dest = Path(folder), Path(dest)
    export(folder, dest)
    _copy_record(folder, dest)
    return dest


def _present(folder: Path, name: str) -> bool:
    """Whether ``name`` is there in any form -- a link leading out, a FIFO -- so that the guard refuses it."""
    return os.path.lexists(folder / name)


def import_model(src: str | Path, project=None) -> Path:
    """Check a model folder from anywhere with the strict loader, then copy its manifest's files into
    the user's (or the project's) models; returns the new folder.  Every file is read through the
    folder guard: one that is a link out of the folder, not a regular file or too large refuses the
    import."""
    from engine.nmt.checkpoint import load_model

    src = Path(src)
    if not (src / MANIFEST).is_file():
        raise ModelError(f"{src}: not a model folder (no {MANIFEST})")
    load_model(src)  # checksums, safetensors only, shapes, config: any problem is a one-line ModelError
    man = read_manifest(src)
    names = [*man["files"], MANIFEST, *([HISTORY] if _present(src, HISTORY) else [])]
    for name in names:  # the optional files too, before anything is written
        guard.checked(src, name, where=str(src / MANIFEST) if name in man["files"] else "")
    root = (Path(project.folder) / "models") if project is not None else user_data_dir() / "models"
    dest = root / src.name
    n = 2
    while dest.exists():
        dest = root / f"{src.name}-{n}"
        n += 1
    tmp = root / f".{dest.name}.importing"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for name in names:
            guard.copy_file(src, name, tmp)
        _copy_record(src, tmp)
        load_model(tmp)  # the copy is whole
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _copy_record(src: Path, dest: Path) -> None:
    """The training record without the run's bookkeeping (names of files only, scores, recipe) and
    without any password an older record kept; an unreadable record is left out."""
    if not _present(src, RECORD):
        return
    try:
        rec = guard.read_json(src, RECORD)
    except ModelError:
        return
    for k in ("pid", "config", "hardware"):
        rec.pop(k, None)
    with atomic_write(dest / RECORD, "w", encoding="utf-8") as fh:
        json.dump(strip_in(rec), fh, indent=2, ensure_ascii=False)
