"""Where the bundled resources (demo project, demo model) are."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.langs import pair_text


def resources_dir() -> Path:
    """``$VERSO_RESOURCES`` or the ``resources/`` folder of the source tree."""
    env = os.environ.get("VERSO_RESOURCES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1] / "resources"


def user_data_dir() -> Path:
    """``$VERSO_HOME``, else ``$XDG_DATA_HOME/verso``, else ``~/.local/share/verso``."""
    env = os.environ.get("VERSO_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "verso"


def model_pair(folder: str | Path) -> tuple[str, str] | None:
    """(src, tgt) the model in ``folder`` was trained for, as its manifest names them; None when the
    folder holds no readable manifest."""
    from engine import folder_guard  # JSON through the guard; engine.nmt stays out of the fast layer
    from engine.errors import ModelError

    try:
        man = folder_guard.read_json(Path(folder), "manifest.json")
    except (ModelError, OSError, ValueError):
        return None
    if not isinstance(man, dict) or man.get("format") != "verso-nmt":
        return None
    src, tgt = man.get("src_lang", ""), man.get("tgt_lang", "")
    return (src, tgt) if isinstance(src, str) and isinstance(tgt, str) else ("", "")


def pair_served(pair: tuple[str, str] | None, src_lang: str, tgt_lang: str) -> bool:
    """Whether a model of ``pair`` translates ``src_lang`` into ``tgt_lang``: both its languages named
    and the same two languages (regional variants are one language: :func:`engine.langs.same_pair`).
    A model that does not say which pair it translates serves none."""
    from engine.langs import same_pair

    return (pair is not None and all(pair) and bool(src_lang) and bool(tgt_lang)
            and same_pair(pair[0], pair[1], src_lang, tgt_lang))


@dataclass(frozen=True)
class ModelChoice:
    """The model a project uses, or why there is none (one line)."""
    folder: Path | None
    why: str = ""


def model_choice(project=None) -> ModelChoice:
    """The project's model (setting ``model``), else ``$VERSO_MODEL``, else the bundled demo model --
    the first that is a model folder and, with a project, translates the project's pair.  Without
    one, ``why`` says so, naming the pair of each model passed over."""
    cands = []
    if project is not None and project.setting("model"):
        p = Path(project.setting("model"))
        cands.append(p if p.is_absolute() else Path(project.folder) / p)
    if os.environ.get("VERSO_MODEL"):
        cands.append(Path(os.environ["VERSO_MODEL"]))
    cands.append(resources_dir() / "models" / "demo")
    skipped: list[str] = []
    for c in cands:
        if not (c / "manifest.json").is_file():
            continue
        if project is None:
            return ModelChoice(c)
        pair = model_pair(c)
        if pair_served(pair, project.src_lang, project.tgt_lang):
            return ModelChoice(c)
        if pair is not None:
            skipped.append(f"{c.name}: {pair_text(*pair)}")
    if project is None:
        return ModelChoice(None, "no model found")
    why = f"no model for {pair_text(project.src_lang, project.tgt_lang)}"
    return ModelChoice(None, why + (f" ({'; '.join(dict.fromkeys(skipped))})" if skipped else ""))


def default_model_dir(project=None) -> Path | None:
    """The folder :func:`model_choice` picks: never a model of another pair than the project's."""
    return model_choice(project).folder
