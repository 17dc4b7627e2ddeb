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


def missing_display_packages() -> list[str]:
    """Packages to install before Qt's xcb plugin can start (empty when fine)."""
    return [pkg for lib, pkg in XCB_LIBS.items() if ctypes.util.find_library(lib) is None]


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
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not (len(argv) == 1 and (Path(argv[0]) / "project.verso").is_file()):
        from engine.cli import main as cli_main

        return cli_main(argv)
    problem = display_problem()
    if problem:
        print(f"verso: cannot open the editor: {problem}", file=sys.stderr)
        return 1
    from app.main import run_editor

    return run_editor(Path(argv[0]) if argv else None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
