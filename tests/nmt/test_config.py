import json

import pytest

from engine.errors import ConfigError
from engine.nmt.config import ExperimentConfig, load_config


def test_unknown_key_is_rejected_with_its_name():
    with pytest.raises(ConfigError, match="hiden"):
        ExperimentConfig.from_dict({"model": {"hiden": 512}})
    with pytest.raises(ConfigError, match="optimizer"):
        ExperimentConfig.from_dict({"optimizer": {}})


@pytest.mark.parametrize("section,key,value", [
    ("model", "hidden", "512"), ("model", "context_gate", "always"), ("model", "bridging", ["sideways"]),
    ("train", "lr", "fast"), ("data", "joint_vocab", 1), ("model", "cell", "lstm"),
])
def test_wrong_values_are_rejected(section, key, value):
    with pytest.raises(ConfigError):
        ExperimentConfig.from_dict({section: {key: value}})


def test_tie_all_needs_joint_vocab():
    with pytest.raises(ConfigError, match="joint_vocab"):
        ExperimentConfig.from_dict({"model": {"tie": "all"}, "data": {"joint_vocab": False}})


def test_toml_and_json_load_alike_with_paths_relative_to_the_file(tmp_path):
    (tmp_path / "sub").mkdir()
    toml = tmp_path / "sub" / "exp.toml"
    toml.write_text('[data]\nsrc_lang = "EN"\ntgt_lang = "de"\ntrain_src = "train.en"\n'
                    '[model]\ncontext_gate = "both"\nbridging = ["source", "direct"]\n'
                    '[train]\nlr = 1\n', encoding="utf-8")
    cfg = load_config(toml)
    assert cfg.data.train_src == str(tmp_path / "sub" / "train.en")
    assert cfg.data.src_lang == "en" and cfg.train.lr == 1.0
    js = tmp_path / "exp.json"
    js.write_text(json.dumps({"model": {"context_gate": "both", "bridging": ["source", "direct"]}}))
    assert load_config(js).model == cfg.model


def test_broken_file_names_the_file(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[model\n")
    with pytest.raises(ConfigError, match="bad.toml"):
        load_config(p)


def test_a_config_extends_a_base_key_by_key_with_paths_relative_to_each_file(tmp_path, monkeypatch):
    (tmp_path / "config" / "kde").mkdir(parents=True)
    (tmp_path / "config" / "base.toml").write_text(
        '[data]\nsrc_lang = "en"\ntgt_lang = "de"\ntrain_src = "corpus/train.en"\ndev_src = "$RUNS_X/dev.en"\n'
        '[model]\nhidden = 64\ncontext_gate = "both"\n[train]\nlr = 0.5\nseed = 1\n', encoding="utf-8")
    (tmp_path / "config" / "kde" / "middle.toml").write_text(
        'extends = "../base.toml"\n[train]\nseed = 2\n', encoding="utf-8")
    (tmp_path / "config" / "kde" / "aux-s2.toml").write_text(
        'extends = "middle.toml"\n[data]\ntrain_src = "here.en"\n[model]\ndoc_context = ["aux"]\n', encoding="utf-8")
    monkeypatch.setenv("RUNS_X", str(tmp_path / "runs"))
    cfg = load_config(tmp_path / "config" / "kde" / "aux-s2.toml")
    assert cfg.data.train_src == str(tmp_path / "config" / "kde" / "here.en")   # the override's own folder
    assert cfg.data.dev_src == str(tmp_path / "runs" / "dev.en")                # the base's, expanded
    assert cfg.model.hidden == 64 and cfg.model.context_gate == "both" and cfg.model.doc_context == ["aux"]
    assert cfg.train.lr == 0.5 and cfg.train.seed == 2
    base = load_config(tmp_path / "config" / "base.toml")
    assert base.data.train_src == str(tmp_path / "config" / "corpus" / "train.en") and base.train.seed == 1


def test_extends_errors_name_the_file_and_the_key(tmp_path, monkeypatch):
    (tmp_path / "base.toml").write_text('[train]\nlr = 0.5\nbogus = 1\n', encoding="utf-8")
    (tmp_path / "over.toml").write_text('extends = "base.toml"\n[train]\nseed = 2\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"base\.toml: \[train\]: unknown key\(s\) 'bogus'"):
        load_config(tmp_path / "over.toml")
    (tmp_path / "base.toml").write_text('[train]\nlr = 0.5\n', encoding="utf-8")
    (tmp_path / "over.toml").write_text('extends = "base.toml"\n[train]\nseed = "two"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"over\.toml: \[train\] seed: expected an integer"):
        load_config(tmp_path / "over.toml")
    (tmp_path / "over.toml").write_text('extends = "missing.toml"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"over\.toml: extends 'missing\.toml': no such file"):
        load_config(tmp_path / "over.toml")
    (tmp_path / "a.toml").write_text('extends = "b.toml"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="loop"):
        load_config(tmp_path / "a.toml")
    (tmp_path / "over.toml").write_text('extends = 3\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"over\.toml: extends: expected the path"):
        load_config(tmp_path / "over.toml")
    monkeypatch.delenv("NO_SUCH_RUNS", raising=False)
    (tmp_path / "over.toml").write_text('[data]\ntrain_src = "$NO_SUCH_RUNS/train.en"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"over\.toml: \[data\] train_src: .*\$NO_SUCH_RUNS is not set"):
        load_config(tmp_path / "over.toml")
