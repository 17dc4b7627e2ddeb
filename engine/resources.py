"""Where the bundled resources (demo project, demo model) are."""
from __future__ import annotations

import os
from pathlib import Path


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


def default_model_dir(project=None) -> Path | None:
    """The project's model (setting ``model``), else ``$VERSO_MODEL``, else the bundled demo model."""
    cands = []
    if project is not None and project.setting("model"):
        p = Path(project.setting("model"))
        cands.append(p if p.is_absolute() else Path(project.folder) / p)
    if os.environ.get("VERSO_MODEL"):
        cands.append(Path(os.environ["VERSO_MODEL"]))
    cands.append(resources_dir() / "models" / "demo")
    for c in cands:
        if (c / "manifest.json").is_file():
            return c
    return None
