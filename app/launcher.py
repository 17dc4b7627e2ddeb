"""The ``verso`` entry point.

``verso`` with no arguments (or ``verso PROJECT_DIR``) opens the editor; any
other arguments go to the headless command line (:func:`engine.cli.main`).
Qt is imported only when the editor is opened, so ``verso tm search`` starts
without it.
"""
from __future__ import annotations

import ctypes.util
import os
import sys
from pathlib import Path
from typing import Sequence

# Debian/Ubuntu packages Qt's xcb platform plugin needs, by the library it loads.
XCB_LIBS = {
    "xcb-cursor": "libxcb-cursor0",
    "xkbcommon-x11": "libxkbcommon-x11-0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-image": "libxcb-image0",
    "xcb-render-util": "libxcb-render-util0",
    "xcb-xinerama": "libxcb-xinerama0",
    "xcb-shape": "libxcb-shape0",
    "EGL": "libegl1",
    "GL": "libgl1",
}


def bundled_library(lib: str) -> bool:
    """Whether a frozen (PyInstaller) bundle carries ``lib<lib>.so*`` itself."""
    base = getattr(sys, "_MEIPASS", None)
    return bool(getattr(sys, "frozen", False) and base and any(Path(base).glob(f"lib{lib}.so*")))


def missing_display_packages() -> list[str]:
    """Packages to install before Qt's xcb plugin can start (empty when fine)."""
    return [pkg for lib, pkg in XCB_LIBS.items()
            if ctypes.util.find_library(lib) is None and not bundled_library(lib)]


# Files a file manager hands to `verso FILE` (the .desktop entry's MIME types).
DOCUMENT_SUFFIXES = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".po")


def document_languages(path: Path) -> tuple[str, str] | None:
    """Source and target language an XLIFF or PO file declares (PO: source ``en``), else None."""
    import re

    head = path.read_bytes()[:16384].decode("utf-8", "replace")
    if path.suffix.lower() == ".po":
        m = re.search(r'"Language:\s*([A-Za-z]{2,3}(?:[_-][A-Za-z0-9]+)?)', head)
        return ("en", m.group(1).replace("_", "-")) if m else None
    src = re.search(r'\b(?:source-language|srcLang)="([^"]+)"', head)
    tgt = re.search(r'\b(?:target-language|trgLang)="([^"]+)"', head)
    return (src.group(1), tgt.group(1)) if src and tgt else None


def project_for_file(path: Path) -> Path | None:
    """The project folder to open for a double-clicked file, importing it when needed.

    A file inside a project opens that project; an XLIFF or PO file elsewhere is
    imported (as ``verso doc import``) into ``<user data>/projects/NAME-HASH``
    the first time.  None (the editor opens as ``verso`` alone does, after a
    message) for a TMX or a document whose languages cannot be told.
    """
    path = path.resolve()
    for folder in path.parents:
        if (folder / "project.verso").is_file():
            return folder
    if path.suffix.lower() not in DOCUMENT_SUFFIXES:
        print(f"verso: {path.name} is a translation memory: import it with `verso tm import` "
              "or File ▸ Import TMX in the editor", file=sys.stderr)
        return None
    import hashlib

    from engine.resources import user_data_dir

    folder = user_data_dir() / "projects" / f"{path.stem}-{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    if (folder / "project.verso").is_file():
        return folder
    langs = document_languages(path)
    if langs is None:
        print(f"verso: {path.name} does not say its languages; import it with "
              f"`verso doc import FILE --project DIR --src-lang L --tgt-lang L`", file=sys.stderr)
        return None
    from engine.cli import main as cli_main

    if cli_main(["doc", "import", str(path), "--project", str(folder), "--src-lang", langs[0], "--tgt-lang", langs[1]]):
        return None
    return folder


def display_problem(env: dict | None = None) -> str | None:
    """Why the editor cannot open a window here, with what to do; None if it can."""
    env = os.environ if env is None else env
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal", "vnc", "wayland", "eglfs")) or sys.platform != "linux":
        return None
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return ("no display found (DISPLAY is not set). Run Verso in a desktop session, under Xvfb "
                "(xvfb-run verso), or headless with QT_QPA_PLATFORM=offscreen.")
    if env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        missing = missing_display_packages()
        if missing:
            return ("Qt cannot load its X11 (xcb) platform plugin: these libraries are missing. Install them with\n"
                    f"    sudo apt-get install {' '.join(missing)}\n"
                    "(or run headless with QT_QPA_PLATFORM=offscreen).")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    given = argv is not None
    argv = list(sys.argv[1:] if argv is None else argv)
    opens_file = (len(argv) == 1 and Path(argv[0]).suffix.lower() in (*DOCUMENT_SUFFIXES, ".tmx")
                  and Path(argv[0]).is_file())
    if argv and not opens_file and not (len(argv) == 1 and (Path(argv[0]) / "project.verso").is_file()):
        from engine.cli import main as cli_main

        return cli_main(argv if given else None)  # None: the process's own command (engine.cli.main)
    problem = display_problem()
    if problem:
        print(f"verso: cannot open the editor: {problem}", file=sys.stderr)
        return 1
    from app.main import run_editor

    if opens_file:
        return run_editor(project_for_file(Path(argv[0])))
    return run_editor(Path(argv[0]) if argv else None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
