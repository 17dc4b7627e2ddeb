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
