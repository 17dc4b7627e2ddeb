"""The one-way rule and the fast-start rule, checked on the real code."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    """import-linter: app -> engine only; engine has no Qt; TM/formats/store have no torch."""
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    r = subprocess.run(cmd + ["--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_code_is_lint_clean():
    """ruff with the project's rules (pyproject [tool.ruff]): no unused imports or variables,
    no undefined names, anywhere in the code, its tests, benchmarks, experiments and packaging."""
    exe = Path(sys.executable).with_name("ruff")
    cmd = [str(exe)] if exe.exists() else [shutil.which("ruff") or "ruff"]
    r = subprocess.run(cmd + ["check", "--no-cache", "engine", "app", "tests", "benchmarks", "experiments", "packaging"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_tm_formats_and_store_start_without_torch_or_qt():
    code = ("import sys, engine.formats, engine.store, engine.cli;"
            "import importlib;"
            "[importlib.import_module(m) for m in ('engine.tm', 'engine.formats.tmx') "
            " if importlib.util.find_spec(m)];"
            "bad = [m for m in ('torch', 'PySide6', 'sentencepiece') if m in sys.modules];"
            "print(','.join(bad))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"fast-start modules pulled in: {r.stdout.strip()}"


def test_cli_help_needs_no_torch():
    r = subprocess.run([sys.executable, "-c",
                        "import sys; from engine.cli import build_parser; build_parser();"
                        "print('torch' in sys.modules)"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
