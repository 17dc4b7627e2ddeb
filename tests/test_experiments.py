"""The research tooling outside the product: benchmarks/ and experiments/ stay tidy (modules, one runs
folder), their configs load, and experiments/segnmt/bands.py (which test sentences fall in which fuzzy band,
and the TM copy) works."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.nmt.config import load_config

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for folder in ("benchmarks", "experiments") for ext in ("*.py", "*.sh", "*.toml")
                 for p in (ROOT / folder).rglob(ext))


def test_no_script_reaches_outside_the_repository_for_its_imports_or_runs():
    """Scripts run as modules (python -m benchmarks.x / experiments.y.z), so none edits sys.path, and the
    runs folder is $VERSO_RUNS (benchmarks/paths.py), never a folder of one machine."""
    assert len(SCRIPTS) > 100
    bad = [f"{p.relative_to(ROOT)}: {what}" for p in SCRIPTS for what in ("sys.path.insert", "/work/runs")
           if what in p.read_text(encoding="utf-8")]
    assert not bad, "\n".join(bad)
    for folder in ("benchmarks", *sorted(str(p.parent.relative_to(ROOT)) for p in (ROOT / "experiments").glob("*/*.py"))):
        assert (ROOT / folder / "__init__.py").is_file(), folder


def test_every_experiment_has_its_readme_results_and_configs_that_load(monkeypatch, tmp_path):
    monkeypatch.setenv("VERSO_RUNS", str(tmp_path))
    experiments = sorted(p for p in (ROOT / "experiments").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert {p.name for p in experiments} >= {"segnmt", "doccontext", "gates_bridging"}
    for exp in experiments:
        for name in ("README.md", "RESULTS.md", "config/base.toml"):
            assert (exp / name).is_file(), f"{exp.name}/{name}"
        for cfg in sorted((exp / "config").rglob("*.toml")):
            text = cfg.read_text(encoding="utf-8")
            if cfg.name != "base.toml":
                assert re.search(r'^extends = "[^"]*base\.toml"$', text, re.M), cfg
            load_config(cfg)  # strict: unknown keys, wrong types and a missing base fail here


@pytest.mark.parametrize("module", ["benchmarks.tm_search", "experiments.segnmt.bands"])
def test_scripts_run_as_modules(module):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "usage:" in r.stdout, r.stderr


def test_band_files_put_each_test_sentence_in_the_band_of_its_best_tm_match(tmp_path, monkeypatch):
    from engine.tm import TranslationMemory
    monkeypatch.syspath_prepend(str(ROOT))  # as `python -m experiments.segnmt.bands` from the repository root
    from experiments.segnmt.bands import main as bands

    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("Open the file menu and choose Save.", "Öffnen Sie das Menü Datei und wählen Sie Speichern.")
        tm.add("The printer is out of paper.", "Der Drucker hat kein Papier.")
    src = ["The printer is out of paper.", "Open the file menu and choose Print.", "Quantum chromodynamics rocks."]
    (tmp_path / "test.en").write_text("\n".join(src) + "\n", encoding="utf-8")
    bands(["--tm", str(tmp_path / "tm"), "--src", str(tmp_path / "test.en"), "--out", str(tmp_path / "b")])
    out = tmp_path / "b"
    copy = (out / "tm_copy.hyp").read_text(encoding="utf-8").splitlines()
    assert copy == ["Der Drucker hat kein Papier.", "Öffnen Sie das Menü Datei und wählen Sie Speichern.", ""]
    scores = [float(x) for x in (out / "scores.txt").read_text().split()]
    assert scores[0] == 1.0 and 0.7 <= scores[1] < 1.0 and scores[2] == 0.0
    lines = {f.name: f.read_text().split() for f in out.glob("band-*.lines")}
    assert lines["band-ge0.9.lines"] == ["1"] and lines["band-lt0.3.lines"] == ["3"]
    assert sorted(sum(lines.values(), [])) == ["1", "2", "3"]   # every sentence in exactly one band
