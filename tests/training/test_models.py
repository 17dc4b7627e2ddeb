"""The model list and a model's exported record (issue 35): one folder that cannot be read is
listed as unreadable with its reason while the others list, and no password of an older
record reaches an export."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.training import models

SHA = "0" * 64


def _fake_model(folder: Path, *, record=None, **manifest) -> Path:
    """A folder whose JSON files are those of a de->en model (listing reads JSON only)."""
    folder.mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(b"\0" * 64)
    man = {"format": "verso-nmt", "version": 1, "src_lang": "de", "tgt_lang": "en", "best": "model.safetensors",
           "best_step": 10, "best_dev_bleu": 1.0, "parameters": 1234,
           "files": {"config.json": SHA, "model.safetensors": SHA, "spm.model": SHA}, **manifest}
    (folder / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    if record is not None:
        (folder / "training.json").write_text(record if isinstance(record, str) else json.dumps(record),
                                              encoding="utf-8")
    return folder


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    return SimpleNamespace(folder=tmp_path / "p")


@pytest.mark.parametrize("name, record, manifest, says", [
    ("list-record", [1, 2], {}, "training.json: expected a JSON object, not list"),
    ("wordy", None, {"parameters": "many"}, "'parameters': expected a whole number, not 'many'"),
    ("nested", "[" * 50_000 + "]" * 50_000, {}, "training.json: not valid JSON (nested too deeply)"),
    ("bad-table", {"kind": "train", "after": {"table": {"overall": {"bleu": {"model": "high"}}}}}, {},
     "'after', 'table', 'overall', 'bleu': expected BLEU scores"),
    ("no-files", None, {"files": {}}, "lists no files"),
])
def test_one_unreadable_model_folder_is_listed_with_its_reason_and_the_others_still_list(project, name, record,
                                                                                           manifest, says):
    root = Path(project.folder) / "models"
    _fake_model(root / "good", record={"kind": "train", "data": {"per_source": [["tm", 40]]},
                                       "split": {"train": 40}})
    _fake_model(root / name, record=record, **manifest)
    infos = {i.name: i for i in models.list_models(project, "de", "en")}
    assert infos["good"].usable and infos["good"].data == "40 pairs from tm" and infos["good"].parameters == 1234
    bad = infos[name]
    assert not bad.usable and says in bad.error and "\n" not in bad.error
    assert str(root / name) in bad.error  # the reason names the file


def test_a_manifest_linked_out_of_its_folder_lists_as_unreadable(project, tmp_path):
    root = Path(project.folder) / "models"
    _fake_model(root / "good")
    elsewhere = _fake_model(tmp_path / "elsewhere")
    (root / "linked").mkdir()
    (root / "linked" / "manifest.json").symlink_to(elsewhere / "manifest.json")
    infos = {i.name: i for i in models.list_models(project, "de", "en")}
    assert infos["good"].usable
    assert "outside the model folder" in infos["linked"].error


def test_an_exported_model_keeps_no_password_an_older_record_held(pair_model, tmp_path):
    src = tmp_path / "old-model"
    shutil.copytree(pair_model, src)
    rec = json.loads((src / "training.json").read_text(encoding="utf-8"))
    rec["request"]["tms"] = ["tm=team&password=hunter2", "postgresql://ann:hunter2@db.example/tm?tm=team"]
    rec["data"]["per_source"] = [["tm=team&sslpassword=hunter2", 120]]
    (src / "training.json").write_text(json.dumps(rec), encoding="utf-8")
    out = models.export_model(src, tmp_path / "clean")
    text = (out / "training.json").read_text(encoding="utf-8")
    assert "hunter2" not in text
    copied = json.loads(text)
    assert copied["request"]["tms"] == ["tm=team", "postgresql://ann@db.example/tm?tm=team"]
    assert "pid" not in copied and "config" not in copied


def test_a_models_test_table_lists_by_band_with_all_sentences_last(project):
    root = Path(project.folder) / "models"
    table = {"overall": {"sentences": 30, "bleu": {"tm_copy": 20.0, "model": 25.5, "model_memory": 27.25}},
             "bands": [{"band": "75-84%", "sentences": 12, "bleu": {"tm_copy": 31.0, "model": 30.0}}]}
    _fake_model(root / "scored", record={"kind": "train", "after": {"table": table}})
    _fake_model(root / "unscored", record={"kind": "train"})
    infos = {i.name: i for i in models.list_models(project, "de", "en")}
    got = infos["scored"].scores
    assert [(r.band, r.sentences) for r in got.rows] == [("75-84%", 12), ("all", 30)]
    assert got.overall.bleu["model_memory"] == 27.25 and infos["unscored"].scores is None
