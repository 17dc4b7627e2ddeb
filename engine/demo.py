"""The bundled demo project: the *Lumen* quick-start guide and its memory.

Both files are the developers' own writing (see ``resources/demo/README.md``).
"""
from __future__ import annotations

from pathlib import Path

from engine.resources import resources_dir, user_data_dir
from engine.store import Project

DEMO_DOC = "quickstart.txt"
DEMO_TM = "memory.tmx"
SRC, TGT = "en", "de"


def demo_project_dir() -> Path:
    return user_data_dir() / "demo-project"


def ensure_demo_project(folder: str | Path | None = None) -> Path:
    """Create the demo project on first use (idempotent); return its folder.

    The guide becomes the project's document and the TMX its writable TM
    (``<project>/tm``), when the TM component is available.
    """
    folder = Path(folder) if folder else demo_project_dir()
    src = resources_dir() / "demo"
    if (folder / "project.verso").exists():
        return folder
    with Project.create(folder, src_lang=SRC, tgt_lang=TGT, name="Lumen quick-start guide (demo)") as p:
        p.import_document(src / DEMO_DOC)
        tm_dir = folder / "tm"
        try:
            from engine.tm import TranslationMemory
            from engine.formats.tmfiles import read_tm_file
        except ImportError:  # TM component absent: the project still opens
            return folder
        tm = TranslationMemory(tm_dir, src_lang=SRC, tgt_lang=TGT)
        try:
            tm.import_units(read_tm_file(src / DEMO_TM, src_lang=SRC, tgt_lang=TGT), origin=DEMO_TM)
        finally:
            tm.close()
        p.add_tm_ref("tm", writable=True)
    return folder
