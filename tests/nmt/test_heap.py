"""torch and a model are loaded without the cyclic collector, which runs again afterwards: a
translating process (the CLI, the editor's engine) must not grow without collection."""
from __future__ import annotations

import gc
import io
import sys

import pytest

from engine.nmt.heap import loaded_for_good


@pytest.fixture(autouse=True)
def _collector_restored():
    was = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if was else gc.disable)()


def test_the_collector_runs_again_after_the_load_and_what_was_loaded_is_frozen():
    gc.enable()
    with loaded_for_good():
        assert not gc.isenabled()
        kept = [[] for _ in range(100)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)


def test_a_failed_load_leaves_the_collector_running():
    gc.enable()
    with pytest.raises(ValueError), loaded_for_good():
        raise ValueError("bad model")
    assert gc.isenabled()


def test_a_caller_that_had_the_collector_off_keeps_it_off():
    gc.disable()
    with loaded_for_good():
        pass
    assert not gc.isenabled()


def test_translate_with_a_missing_model_says_so_and_collects_again(tmp_path, monkeypatch, capsys):
    from engine.cli import main

    gc.enable()
    monkeypatch.setattr(sys, "stdin", io.StringIO("Hello.\n"))
    assert main(["translate", "--model", str(tmp_path / "none")]) == 2
    assert "none" in capsys.readouterr().err
    assert gc.isenabled()
