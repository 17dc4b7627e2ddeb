"""A `verso translate` process and the editor's engine process start torch without numpy
(engine/nmt/heap.import_torch_alone, 0.05-0.1 s of CPU each): the command prints the same translations as
a process that has numpy, says nothing about numpy on stderr, and a TM, whose index reads numpy, still
serves its matches; the engine process translates as the translator does (tests/nmt/test_engine_process.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.nmt.data import read_lines

ROOT = Path(__file__).resolve().parents[2]


def _translate(args: list[str], lines: list[str], flag: Path, numpy_first: bool = False) -> subprocess.CompletedProcess:
    """A fresh `python -m engine translate` process (``numpy_first``: numpy imported before it starts);
    ``flag`` gets whether numpy was loaded when it ended (the exit handlers run at its end)."""
    code = ("import atexit, pathlib, sys; "
            + ("import numpy; " if numpy_first else "")
            + f"atexit.register(lambda: pathlib.Path({str(flag)!r}).write_text(str('numpy' in sys.modules))); "
            "from engine.cli import main; "
            f"sys.argv = ['verso', 'translate', *{args!r}]; sys.exit(main())")
    return subprocess.run([sys.executable, "-c", code], input="\n".join(lines) + "\n", text=True,
                          capture_output=True, cwd=ROOT, timeout=300)


def test_translate_without_numpy_prints_what_a_process_with_numpy_prints(trained_model, toy_corpus, tmp_path):
    src = read_lines(toy_corpus["dev_en"])[:6]
    args = ["--model", str(trained_model), "--threads", "1", "--beam", "3"]
    alone = _translate(args, src, tmp_path / "alone")
    assert alone.returncode == 0 and alone.stderr == ""
    assert (tmp_path / "alone").read_text() == "False"
    with_numpy = _translate(args, src, tmp_path / "with", numpy_first=True)
    assert with_numpy.returncode == 0, with_numpy.stderr
    assert (tmp_path / "with").read_text() == "True"
    assert alone.stdout == with_numpy.stdout and len(alone.stdout.splitlines()) == len(src)


def test_a_tm_read_after_torch_still_serves_its_exact_match(trained_model, toy_corpus, tmp_path):
    from engine.tm import TranslationMemory

    src = read_lines(toy_corpus["dev_en"])[:2]
    own = "Das steht so im Speicher."
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add(src[0], own)
    r = _translate(["--model", str(trained_model), "--threads", "1", "--tm", str(tmp_path / "tm")], src,
                   tmp_path / "flag")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == own and r.stdout.splitlines()[1] != own


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads the engine process's mapped libraries")
def test_the_editors_engine_process_runs_without_numpy(trained_model):
    from engine.nmt.remote import RemoteTranslator
    from engine.nmt.results import TranslationRequest

    remote = RemoteTranslator(trained_model, threads=1)
    try:
        assert remote.suggest(TranslationRequest("the dog"), beam=2).text
        maps = Path(f"/proc/{remote.proc.pid}/maps").read_text()
    finally:
        remote.close()
    assert "libtorch_cpu" in maps and "_multiarray_umath" not in maps
