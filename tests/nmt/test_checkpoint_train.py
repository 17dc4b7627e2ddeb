import json
import shutil
import threading

import pytest
import torch

from nmt.toydata import toy_config_dict
from engine.errors import ConfigError, ModelError
from engine.nmt.checkpoint import load_model
from engine.nmt.config import ExperimentConfig
from engine.nmt.data import read_lines
from engine.nmt.train import train
from engine.nmt.translator import Translator


def test_model_folder_is_self_describing(trained_model):
    names = {p.name for p in trained_model.iterdir()}
    assert {"config.json", "manifest.json", "history.jsonl", "spm.model", "checkpoints", "last"} <= names
    assert not list(trained_model.rglob("*.pt")) and not list(trained_model.rglob("*.bin"))
    man = json.loads((trained_model / "manifest.json").read_text())
    assert (trained_model / man["best"]).is_file() and man["best"].endswith(".safetensors")
    assert man["src_lang"] == "en" and man["tgt_lang"] == "de"
    evals = [json.loads(x) for x in (trained_model / "history.jsonl").read_text().splitlines()]
    evals = [e for e in evals if e["event"] == "eval"]
    assert evals and max(e["dev_bleu"] for e in evals) == man["best_dev_bleu"]


def test_training_learns_the_toy_language(trained_model):
    man = json.loads((trained_model / "manifest.json").read_text())
    assert man["best_dev_bleu"] > 50  # word-for-word toy language with a verb-final rule


def test_save_load_round_trip_gives_identical_translations(translator, trained_model, toy_corpus):
    src = read_lines(toy_corpus["dev_en"])[:6]
    again = Translator.load(trained_model)
    a, b = translator.translate(src, beam=3), again.translate(src, beam=3)
    assert [r.text for r in a] == [r.text for r in b]
    assert [r.score for r in a] == [r.score for r in b]


def _copy(trained_model, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(trained_model, dst)
    return dst, json.loads((dst / "manifest.json").read_text())


def test_missing_file_is_named(trained_model, tmp_path):
    dst, man = _copy(trained_model, tmp_path)
    (dst / man["best"]).unlink()
    with pytest.raises(ModelError, match=r"step-\d+\.safetensors: file missing"):
        load_model(dst)
    (dst / "manifest.json").unlink()
    with pytest.raises(ModelError, match="manifest.json: file missing"):
        load_model(dst)


@pytest.mark.parametrize("victim", ["best", "spm.model", "config.json"])
def test_corrupt_file_is_named(trained_model, tmp_path, victim):
    dst, man = _copy(trained_model, tmp_path)
    name = man["best"] if victim == "best" else victim
    p = dst / name
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    with pytest.raises(ModelError, match=name.split("/")[-1]):
        load_model(dst)
    # without the checksum check the file itself is still refused, by name
    with pytest.raises(ModelError, match=name.split("/")[-1]):
        load_model(dst, verify=False)


def test_cancel_and_resume_equals_an_uninterrupted_run(toy_corpus, tmp_path):
    kw = dict(model={"dropout": 0.2, "context_gate": "source", "bridging": ["direct"], "direct_pretrain_steps": 10},
              train={"max_steps": 40, "eval_every": 20, "log_every": 5, "checkpoint_every": 0})
    straight = tmp_path / "straight"
    train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **kw)), straight)

    resumed = tmp_path / "resumed"
    events = []

    def stop_at_25(ev):
        events.append(ev)
        return not (ev["event"] == "step" and ev["step"] == 25)

    last = train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **kw)), resumed, on_event=stop_at_25)
    assert last["event"] == "cancelled" and last["step"] == 25
    assert [e["step"] for e in events if e["event"] == "eval"] == [20]
    more = []
    last = train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **kw)), resumed, on_event=more.append)
    assert more[0]["event"] == "resume" and more[0]["step"] == 25
    assert last["event"] == "done" and last["step"] == 40
    a = load_model(straight).model.state_dict()
    b = load_model(resumed).model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    steps = [e for e in more if e["event"] == "step"]
    assert all({"loss", "tokens_per_s", "eta_s", "bridge_loss"} <= set(e) for e in steps)


def test_a_finished_run_goes_on_when_its_step_limit_is_raised(toy_corpus, tmp_path):
    """Raising max_steps on a finished folder continues it (the dev score was still rising):
    the result equals a run given the higher limit from the start, and no step is evaluated twice."""
    kw = dict(model={"dropout": 0.2}, train={"max_steps": 40, "eval_every": 20, "log_every": 5})
    straight = tmp_path / "straight"
    train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **kw)), straight)

    extended = tmp_path / "extended"
    short = dict(model=kw["model"], train={**kw["train"], "max_steps": 20})
    first = train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **short)), extended)
    assert first["event"] == "done" and first["reason"] == "max_steps" and first["step"] == 20
    again = train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **short)), extended)
    assert again.get("already_finished") and again["step"] == 20           # the same limit: nothing to do
    more = []
    last = train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus, **kw)), extended, on_event=more.append)
    assert more[0]["event"] == "resume" and more[0]["step"] == 20
    assert last["event"] == "done" and last["step"] == 40 and not last.get("already_finished")
    assert [e["step"] for e in more if e["event"] == "eval"] == [40]
    history = [json.loads(x) for x in (extended / "history.jsonl").read_text().splitlines()]
    assert [e["step"] for e in history if e["event"] == "eval"] == [20, 40]
    assert json.loads((extended / "config.json").read_text())["train"]["max_steps"] == 40  # the folder says so
    a = load_model(straight).model.state_dict()
    b = load_model(extended).model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_cancel_event_stops_before_the_first_step(toy_corpus, tmp_path):
    ev = threading.Event()
    ev.set()
    last = train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus)), tmp_path / "m", cancel=ev)
    assert last["event"] == "cancelled" and last["step"] == 0
    assert Translator.load(tmp_path / "m").info()["src_lang"] == "en"  # still a loadable folder


def test_a_folder_of_another_experiment_is_refused(toy_corpus, tmp_path):
    ev = threading.Event()
    ev.set()
    train(ExperimentConfig.from_dict(toy_config_dict(toy_corpus)), tmp_path / "m", cancel=ev)
    other = ExperimentConfig.from_dict(toy_config_dict(toy_corpus, model={"hidden": 64}))
    with pytest.raises(ConfigError, match="different experiment"):
        train(other, tmp_path / "m", cancel=ev)


def test_early_stopping_on_dev_bleu(toy_corpus, tmp_path):
    cfg = ExperimentConfig.from_dict(toy_config_dict(
        toy_corpus, train={"lr": 1e-7, "max_steps": 0, "max_epochs": 50, "eval_every": 5, "patience": 2,
                           "dev_max_sentences": 4}))
    last = train(cfg, tmp_path / "m")
    assert last["reason"] == "early_stop" and last["step"] < 50


def test_export_keeps_translations_and_drops_training_state(trained_model, translator, toy_corpus, tmp_path):
    from engine.nmt.checkpoint import export_model

    dst = export_model(trained_model, tmp_path / "demo", dtype="float32")
    assert not (dst / "last").exists() and (dst / "model.safetensors").is_file()
    src = read_lines(toy_corpus["dev_en"])[:4]
    assert [r.text for r in Translator.load(dst).translate(src)] == [r.text for r in translator.translate(src)]
    half = export_model(trained_model, tmp_path / "half")  # float16 weights: half the size
    assert (half / "model.safetensors").stat().st_size < 0.6 * (dst / "model.safetensors").stat().st_size
    assert Translator.load(half).translate(src[:1])[0].text


def test_int8_quantised_model_translates_like_fp32(trained_model, translator, toy_corpus):
    src = read_lines(toy_corpus["dev_en"])[:10]
    q = Translator.load(trained_model, quantize=True)
    assert q.quantized
    fp = [r.text for r in translator.translate(src, beam=3)]
    i8 = [r.text for r in q.translate(src, beam=3)]
    assert sum(a == b for a, b in zip(fp, i8)) >= 7
