"""`verso` chooses between editor and command line, and explains a missing display."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import app.launcher as launcher

ROOT = Path(__file__).resolve().parents[2]


def test_no_display_is_explained():
    msg = launcher.display_problem({"PATH": "/usr/bin"})
    if sys.platform == "linux":
        assert "DISPLAY" in msg and "offscreen" in msg


def test_missing_xcb_libraries_are_named_with_the_install_command(monkeypatch):
    monkeypatch.setattr(launcher.ctypes.util, "find_library", lambda name: None if "xcb-cursor" in name else "lib")
    monkeypatch.setattr(launcher.sys, "platform", "linux")
    msg = launcher.display_problem({"DISPLAY": ":0"})
    assert "apt-get install libxcb-cursor0" in msg
    assert "libgl1" not in msg  # only what is missing


def test_offscreen_needs_nothing():
    assert launcher.display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_editor_refuses_cleanly_without_display():
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    r = subprocess.run([sys.executable, "-c", "import sys, app.launcher as l; sys.exit(l.main([]))"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "cannot open the editor" in r.stderr and "Traceback" not in r.stderr


def test_arguments_go_to_the_command_line(capsys):
    assert launcher.main(["doc", "list", "--project", "/nonexistent/verso-project"]) == 2
    err = capsys.readouterr().err
    assert "no project here" in err and "Traceback" not in err
