"""Issue 37 item 4: loading a model and choosing its thread count cost what they should."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from engine.nmt import threads

ROOT = Path(__file__).resolve().parents[2]


def test_loading_a_model_folder_does_not_import_torch_dynamo(trained_model):
    # the folder check's model on the meta device initialised its weights through torch's meta
    # kernels, which import torch._dynamo: 1.1 s of CPU in every `verso translate`
    code = ("import sys; from engine.nmt.translator import Translator; "
            f"Translator.load({str(trained_model)!r}); print('torch._dynamo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_config_the_weights_do_not_carry_is_still_refused(trained_model, tmp_path):
    # the meta-device build still runs (uninitialised): an option the weights lack is named
    import hashlib
    import json
    import shutil

    from engine.errors import ModelError
    from engine.nmt.translator import Translator

    folder = tmp_path / "m"
    shutil.copytree(trained_model, folder)
    cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    cfg["model"].update(context_gate="none", bridging=["direct"])   # weights have gate_lin, lack bridge_W
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    man["files"]["config.json"] = hashlib.sha256((folder / "config.json").read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    with pytest.raises(ModelError, match="gate_lin|bridge_W"):
        Translator.load(folder)


def test_loading_sets_the_automatic_thread_count(trained_model, monkeypatch):
    from engine.nmt.translator import Translator

    monkeypatch.setattr(threads, "_explicit", None)
    torch.set_num_threads(3)
    try:
        Translator.load(trained_model)
        assert torch.get_num_threads() == threads.auto_threads()
    finally:
        torch.set_num_threads(1)


def test_an_explicit_count_outlives_a_later_automatic_load(trained_model, monkeypatch):
    from engine.nmt.translator import Translator

    monkeypatch.setattr(threads, "_explicit", None)
    try:
        Translator.load(trained_model, threads=3)
        assert torch.get_num_threads() == 3
        Translator.load(trained_model)                      # e.g. the flow's scoring after `--threads 3`
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(1)


@pytest.mark.parametrize("cores, expected", [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4), (64, 4)])
def test_the_automatic_count_is_half_the_cores_at_most_four(cores, expected):
    assert threads.auto_threads(cores, env={}) == expected


def test_omp_num_threads_is_the_user_s_choice():
    assert threads.auto_threads(2, env={"OMP_NUM_THREADS": "2"}) == 2
    assert threads.auto_threads(2, env={"OMP_NUM_THREADS": "lots"}) == 1


def test_a_negative_count_is_refused():
    with pytest.raises(ValueError, match="threads"):
        threads.inference_threads(-1)


def test_translate_takes_its_thread_count_from_the_one_rule(trained_model, toy_corpus, monkeypatch, capsys):
    import io

    from engine.cli import main
    from engine.nmt.data import read_lines

    monkeypatch.setattr(threads, "_explicit", None)
    line = read_lines(toy_corpus["dev_en"])[0] + "\n"
    torch.set_num_threads(3)
    try:
        monkeypatch.setattr(sys, "stdin", io.StringIO(line))
        assert main(["translate", "--model", str(trained_model)]) == 0
        assert torch.get_num_threads() == threads.auto_threads()
        monkeypatch.setattr(sys, "stdin", io.StringIO(line))
        assert main(["translate", "--model", str(trained_model), "--threads", "2"]) == 0
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(1)


def test_a_negative_thread_count_on_the_command_line_is_one_line(trained_model, capsys):
    from engine.cli import main

    with pytest.raises(SystemExit) as e:
        main(["translate", "--model", str(trained_model), "--threads", "-2"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--threads" in err and "Traceback" not in err


def test_fine_tuning_trains_on_the_machines_threads_not_the_inference_count(tmp_path):
    """The flow scores the base model (a translate: the inference count, one thread on 2 cores)
    before it fine-tunes; the fine-tune config names its own count, which train() then sets."""
    from engine.training import setup
    from engine.training.flow import TrainRequest
    from engine.training.recipes import Hardware

    req = TrainRequest.from_dict({"out": str(tmp_path / "m"), "src_lang": "en", "tgt_lang": "de",
                                  "base_model": str(tmp_path / "base")}, where="test")
    files = {k: tmp_path / k for k in ("train.src", "train.tgt", "dev.src", "dev.tgt")}
    for cores, want in ((2, 2), (3, 3), (16, 4)):
        d, _ = setup.experiment(req, tmp_path / "base", {"train": {}}, files, None, "en", "de",
                                Hardware(device="cpu", cores=cores))
        assert d["train"]["threads"] == want
    d, _ = setup.experiment(req, tmp_path / "base", {"train": {}}, files, None, "en", "de",
                            Hardware(device="cuda:0", cores=2))
    assert d["train"]["threads"] == 0


def test_knn_calibrate_keeps_the_thread_count_asked_for(monkeypatch):
    """``verso knn calibrate --threads N``: the count is the one the model's automatic load keeps."""
    from engine.cli import build_parser

    class Seen(Exception):
        pass

    def read_parallel(*_):
        raise Seen(torch.get_num_threads())

    monkeypatch.setattr(threads, "_explicit", None)
    monkeypatch.setattr("engine.cli.nmt._read_parallel", read_parallel)
    a = build_parser().parse_args(["knn", "calibrate", "--model", "m", "--src", "s", "--ref", "r", "--tm", "t",
                                   "--threads", "3"])
    try:
        with pytest.raises(Seen) as seen:
            a.handler(a)
        assert seen.value.args == (3,) and threads.inference_threads(0) == 3
    finally:
        torch.set_num_threads(1)


def test_a_model_loaded_for_translation_holds_its_files_weights_and_translates_as_before(trained_model):
    """Translator.load builds the model without random initialisation (every tensor is then read
    from the weights file): the same tensors, ties and translations as a build initialised first."""
    from engine.nmt.checkpoint import load_model
    from engine.nmt.translator import Translator

    torch.manual_seed(0)
    plain = load_model(trained_model).model  # initialised at random, then filled from the file
    tr = Translator.load(trained_model, threads=1)
    fast = tr.loaded.model
    a, b = plain.state_dict(), fast.state_dict()
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert all(torch.isfinite(v).all() for v in b.values() if v.is_floating_point())
    tied = [(n, p) for n, p in fast.named_parameters(remove_duplicate=False)]
    assert len({id(p) for _, p in tied}) == len({id(p) for _, p in plain.named_parameters(remove_duplicate=False)})
    other = Translator(load_model(trained_model), quantize=False)
    sents = ["the cat sees the dog", "a small house"]
    assert [r.text for r in tr.translate(sents, beam=3)] == [r.text for r in other.translate(sents, beam=3)]
