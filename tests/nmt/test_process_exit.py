"""A `verso translate` process that loaded torch ends without tearing torch down (engine/cli,
end_process): it still prints every translation, exits with the command's status and runs the exit
handlers; called in-process with arguments, the command line returns as before."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], stdin: str = "", code: str | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "engine", *args]
    return subprocess.run(cmd, input=stdin, text=True, capture_output=True, cwd=ROOT, timeout=300)


def test_a_translate_process_prints_every_line_and_exits_zero(trained_model):
    lines = ["the cat sees the dog", "a small house", "the dog"] * 40
    r = _run(["translate", "--model", str(trained_model), "--threads", "1"], "\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert len(out) == len(lines) and all(out)


def test_a_refused_command_after_torch_loaded_keeps_its_status_and_message(trained_model, tmp_path):
    r = _run(["translate", "--model", str(trained_model), "--threads", "1", "--prefixes", str(tmp_path / "none.txt")],
             "a small house\n")
    assert r.returncode == 2
    assert "verso: error" in r.stderr and "Traceback" not in r.stderr


def test_exit_handlers_still_run_and_in_process_callers_get_the_status_back(trained_model, tmp_path):
    flag = tmp_path / "handler-ran"
    code = ("import atexit, pathlib, sys; "
            f"atexit.register(pathlib.Path({str(flag)!r}).write_text, 'yes'); "
            "import io; sys.stdin = io.StringIO('a small house\\n'); "
            "from engine.cli import main; "
            f"rc = main(['translate', '--model', {str(trained_model)!r}, '--threads', '1']); "
            "print('returned', rc); "
            f"sys.argv = ['verso', 'translate', '--model', {str(trained_model)!r}, '--threads', '1']; "
            "sys.stdin = io.StringIO('the dog\\n'); main(); print('not reached')")
    r = _run([], code=code)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert "returned 0" in out and "not reached" not in out and len(out) == 3
    assert flag.read_text() == "yes"
