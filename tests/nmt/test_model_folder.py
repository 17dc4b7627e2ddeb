"""A model folder a translator receives from someone else (issue 23).

Loading refuses, in one line naming the file and the place, a configuration
the weights do not carry (before anything is built), any path that leaves the
folder (before it is opened) and pickles (never unpickled).  A folder written
by training, fine-tuning or export names no folder of the machine it came from.
Every file of a folder is read, checksummed and copied through one guard
(issue 35): a regular file inside the folder, under a size limit, JSON
nesting a one-line error; weights are written with the folder's usual mode.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import stat
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
import torch

from nmt.toydata import toy_config_dict
from engine.errors import ModelError
from engine.nmt import checkpoint as ckpt
from engine.nmt.checkpoint import export_model, load_model

DEMO = Path(__file__).resolve().parents[2] / "resources" / "models" / "demo"
PICKLE_MSG = "is a pickle: Verso never loads pickles; weights must be .safetensors"


# ------------------------------------------------------------------ helpers
def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _copy(trained_model: Path, tmp_path: Path) -> tuple[Path, dict]:
    dst = tmp_path / "shared-model"
    shutil.copytree(trained_model, dst)
    return dst, json.loads((dst / "manifest.json").read_text(encoding="utf-8"))


def _write_manifest(folder: Path, man: dict) -> None:
    (folder / "manifest.json").write_text(json.dumps(man, indent=2), encoding="utf-8")


def _edit_config(folder: Path, man: dict, **model) -> None:
    """Change config.json's model section and its checksum (a consistent, hostile folder)."""
    cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    cfg["model"].update(model)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    man["files"]["config.json"] = _sha(folder / "config.json")
    _write_manifest(folder, man)


def _one_line(e: pytest.ExceptionInfo) -> str:
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


@pytest.fixture
def no_real_model_built(monkeypatch):
    """Fails the test if a model is built anywhere but on the 'meta' device (no memory)."""
    from engine.nmt import model as model_mod

    real_init = model_mod.RNNSearch.__init__
    built = []

    def spy(self, cfg, sources=()):
        dev = torch.get_default_device()
        if dev.type != "meta":
            built.append((cfg.emb_dim, cfg.hidden))
            raise AssertionError(f"a model was built on {dev} (emb_dim={cfg.emb_dim}, hidden={cfg.hidden})")
        real_init(self, cfg, sources)

    monkeypatch.setattr(model_mod.RNNSearch, "__init__", spy)
    return built


@pytest.fixture
def nothing_unpickled(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a pickle was loaded")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(torch, "load", refuse)


def _json_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _absolute_paths(folder: Path, *machine_dirs: Path) -> list[str]:
    """Every absolute path (or machine folder) a JSON / JSONL file of ``folder`` mentions."""
    found = []
    for p in _json_files(folder):
        text = p.read_text(encoding="utf-8")
        for d in machine_dirs:
            if str(d) and str(d) != os.sep and str(d) in text:
                found.append(f"{p.name}: mentions {d}")
        docs = [json.loads(x) for x in text.splitlines() if x.strip()] if p.suffix == ".jsonl" else [json.loads(text)]
        for doc in docs:
            for s in _strings(doc):
                if os.path.isabs(s) or s.startswith("~"):
                    found.append(f"{p.name}: {s!r}")
    return found


# ------------------------------------------------------------------ 1. config vs weights
@pytest.mark.parametrize("change, key", [({"hidden": 100_000}, "model.hidden"),
                                         ({"emb_dim": 65_536, "hidden": 65_536}, "model.emb_dim")])
def test_a_config_asking_for_huge_dimensions_is_refused_in_one_line_before_a_model_is_built(
        trained_model, tmp_path, no_real_model_built, change, key):
    dst, man = _copy(trained_model, tmp_path)
    _edit_config(dst, man, **change)
    with pytest.raises(ModelError) as e:
        load_model(dst)
    msg = _one_line(e)
    assert "config.json" in msg and key in msg and man["best"].split("/")[-1] in msg
    assert not no_real_model_built


def test_a_config_whose_options_the_weights_lack_is_refused_naming_the_first_tensor(
        trained_model, tmp_path, no_real_model_built):
    dst, man = _copy(trained_model, tmp_path)
    _edit_config(dst, man, context_gate="none", bridging=["direct"])  # weights have gate_lin, lack bridge_W
    with pytest.raises(ModelError) as e:
        load_model(dst)
    msg = _one_line(e)
    assert "config.json" in msg and ("gate_lin" in msg or "bridge_W" in msg)
    assert not no_real_model_built


def test_a_weights_header_claiming_more_data_than_the_file_holds_is_refused(trained_model, tmp_path):
    dst, man = _copy(trained_model, tmp_path)
    best = dst / man["best"]
    raw = best.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    k = next(k for k in header if k != "__metadata__")
    header[k]["shape"] = [10 ** 9, 10 ** 6]
    new = json.dumps(header).encode()
    best.write_bytes(len(new).to_bytes(8, "little") + new + raw[8 + n:])
    man["files"][man["best"]] = _sha(best)
    _write_manifest(dst, man)
    with pytest.raises(ModelError) as e:
        load_model(dst)
    assert best.name in _one_line(e)


# ------------------------------------------------------------------ 2. paths stay inside the folder
def _outside_weights(trained_model: Path, tmp_path: Path, man: dict) -> Path:
    out = tmp_path / "outside.safetensors"
    shutil.copyfile(trained_model / man["best"], out)
    return out


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "files-entry"])
def test_a_manifest_naming_a_file_outside_the_model_folder_is_refused_before_it_is_opened(
        trained_model, tmp_path, monkeypatch, how):
    dst, man = _copy(trained_model, tmp_path)
    outside = _outside_weights(trained_model, tmp_path, man)
    if how == "dotdot":
        man["best"] = "../outside.safetensors"
    elif how == "absolute":
        man["best"] = str(outside)
    elif how == "symlink":
        (dst / "link.safetensors").symlink_to(outside)
        man["best"] = "link.safetensors"
    if how == "files-entry":
        man["files"]["../outside.safetensors"] = _sha(outside)
    else:
        man["files"][man["best"]] = _sha(outside)
    _write_manifest(dst, man)

    opened = []
    from engine.nmt import weights

    real_open, real_load = open, weights.load_file

    def spy_open(file, *a, **k):
        opened.append(os.path.realpath(file) if isinstance(file, (str, Path)) else file)
        return real_open(file, *a, **k)

    def spy_load(file, *a, **k):
        opened.append(os.path.realpath(file))
        return real_load(file, *a, **k)

    real_os_open = os.open

    def spy_os_open(file, *a, **k):
        opened.append(os.path.realpath(file))
        return real_os_open(file, *a, **k)

    monkeypatch.setattr("builtins.open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    monkeypatch.setattr(weights, "load_file", spy_load)
    with pytest.raises(ModelError) as e:
        load_model(dst)
    msg = _one_line(e)
    assert "manifest.json" in msg and "outside the model folder" in msg
    assert os.path.realpath(outside) not in opened


def test_a_model_folder_reached_through_a_symlink_still_loads(trained_model, tmp_path):
    (tmp_path / "alias").symlink_to(trained_model, target_is_directory=True)
    assert load_model(tmp_path / "alias").cfg.data.src_lang == "en"


def _pickle_weights(path: Path, trained_model: Path, man: dict) -> None:
    from safetensors.torch import load_file

    torch.save(load_file(str(trained_model / man["best"])), path)


@pytest.mark.parametrize("name", ["model.pt", "model.bin", "model.pkl", "disguised.safetensors"])
def test_a_pickle_in_a_model_folder_is_refused_and_never_unpickled(trained_model, tmp_path, nothing_unpickled,
                                                                      name):
    dst, man = _copy(trained_model, tmp_path)
    _pickle_weights(dst / name, trained_model, man)
    del man["files"][man["best"]]
    man["best"] = name
    man["files"][name] = _sha(dst / name)
    _write_manifest(dst, man)
    for verify in (True, False):
        with pytest.raises(ModelError) as e:
            load_model(dst, verify=verify)
        msg = _one_line(e)
        assert name in msg and PICKLE_MSG in msg and "header too large" not in msg


def test_a_folder_holding_only_pickled_weights_says_pickles_are_never_loaded(trained_model, tmp_path,
                                                                              nothing_unpickled):
    dst, man = _copy(trained_model, tmp_path)
    _pickle_weights(dst / "pytorch_model.bin", trained_model, man)
    (dst / "manifest.json").unlink()
    with pytest.raises(ModelError) as e:
        load_model(dst)
    msg = _one_line(e)
    assert "pytorch_model.bin" in msg and PICKLE_MSG in msg


def test_pickled_weights_given_as_a_file_are_refused_as_a_pickle(trained_model, tmp_path, nothing_unpickled):
    man = json.loads((trained_model / "manifest.json").read_text(encoding="utf-8"))
    _pickle_weights(tmp_path / "weights.safetensors", trained_model, man)
    with pytest.raises(ModelError) as e:
        ckpt.load_tensors(tmp_path / "weights.safetensors")
    assert PICKLE_MSG in _one_line(e)


# ------------------------------------------------------------------ 3. no absolute paths written
def test_a_freshly_trained_model_folder_names_no_folder_of_the_machine(trained_model, tmp_path_factory):
    found = _absolute_paths(trained_model, tmp_path_factory.getbasetemp(), Path.home())
    assert not found, found
    cfg = json.loads((trained_model / "config.json").read_text(encoding="utf-8"))
    assert cfg["data"]["train_src"] == "train.en" and cfg["data"]["dev_tgt"] == "dev.de"


def test_an_exported_model_folder_names_no_folder_of_the_machine(trained_model, tmp_path, tmp_path_factory):
    dst = export_model(trained_model, tmp_path / "export")
    found = _absolute_paths(dst, tmp_path_factory.getbasetemp(), Path.home())
    assert not found, found
    assert load_model(dst).cfg.data.src_lang == "en"


def test_resuming_a_run_accepts_its_own_folder_and_refuses_other_data(toy_corpus, tmp_path):
    import threading

    from engine.errors import ConfigError
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train

    ev = threading.Event()
    ev.set()
    cfg = toy_config_dict(toy_corpus)
    train(ExperimentConfig.from_dict(cfg), tmp_path / "m", cancel=ev)
    assert train(ExperimentConfig.from_dict(cfg), tmp_path / "m", cancel=ev)["event"] == "cancelled"
    other = {**cfg, "data": {**cfg["data"], "train_src": cfg["data"]["dev_src"]}}
    with pytest.raises(ConfigError, match="different experiment"):
        train(ExperimentConfig.from_dict(other), tmp_path / "m", cancel=ev)


def test_a_fine_tuned_model_folder_names_no_folder_of_the_machine(trained_model, toy_corpus, tmp_path,
                                                                   tmp_path_factory):
    from engine.training.flow import TrainRequest, run

    src = toy_corpus["dev_en"].read_text(encoding="utf-8").splitlines()[:20]
    tgt = toy_corpus["dev_de"].read_text(encoding="utf-8").splitlines()[:20]
    csv = tmp_path / "mine.csv"
    csv.write_text("en,de\n" + "".join(f'"{s}","{t}"\n' for s, t in zip(src, tgt)), encoding="utf-8")
    out = tmp_path / "tuned"
    final = run(TrainRequest(out=str(out), base_model=str(trained_model), corpora=[[str(csv)]], max_steps=2,
                             epochs=1, device="cpu", threads=1, beam=1))
    assert final["event"] == "finished"
    found = _absolute_paths(out, tmp_path_factory.getbasetemp(), Path.home())
    assert not found, found
    cfg = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert cfg["data"]["train_src"] == "data/train.src"
    assert cfg["train"]["init_from"] == "" and cfg["train"]["memory_cache"] == ""
    assert load_model(out).cfg.data.tgt_lang == "de"


def test_an_old_model_folder_with_absolute_paths_still_loads(trained_model, tmp_path):
    dst, man = _copy(trained_model, tmp_path)
    cfg = json.loads((dst / "config.json").read_text(encoding="utf-8"))
    cfg["data"]["train_src"] = "/work/runs/demo-data/train.en"
    cfg["train"]["init_from"] = "/work/runs/demo-small"
    (dst / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    man["files"]["config.json"] = _sha(dst / "config.json")
    man["exported_from"] = "/work/runs/gpu9/seg/kde-best"
    _write_manifest(dst, man)
    assert load_model(dst).cfg.data.train_src == "/work/runs/demo-data/train.en"


def test_the_shipped_demo_model_names_no_folder_and_its_checksums_hold():
    assert not _absolute_paths(DEMO, Path.home())
    man = json.loads((DEMO / "manifest.json").read_text(encoding="utf-8"))
    for name, digest in man["files"].items():
        assert _sha(DEMO / name) == digest, name
    assert "model.safetensors" in man["files"] and "config.json" in man["files"]
    assert load_model(DEMO).cfg.data.tgt_lang == "de"


# ------------------------------------------------------------------ 4. one guard for every file of the folder
def _private_file(tmp_path: Path) -> Path:
    p = tmp_path / "id_private"
    p.write_text("PRIVATE-KEY-BYTES\n", encoding="utf-8")
    p.chmod(0o600)
    return p


def _holding(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and needle in p.read_bytes()]


@pytest.mark.parametrize("how", ["import", "export"])
def test_a_history_linked_to_a_private_file_outside_the_folder_is_never_copied(trained_model, tmp_path,
                                                                               monkeypatch, how):
    from engine.training import models

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    dst, _ = _copy(trained_model, tmp_path)
    (dst / "history.jsonl").unlink()
    (dst / "history.jsonl").symlink_to(_private_file(tmp_path))
    with pytest.raises(ModelError) as e:
        if how == "import":
            models.import_model(dst)
        else:
            models.export_model(dst, tmp_path / "exported")
    msg = _one_line(e)
    assert "history.jsonl" in msg and "outside the model folder" in msg
    for root in (tmp_path / "home", tmp_path / "exported"):
        if root.exists():
            assert not _holding(root, b"PRIVATE-KEY-BYTES")
    assert not (tmp_path / "exported").exists() and not (tmp_path / "home").exists()  # refused before any write


def test_a_history_that_is_a_fifo_is_refused_at_once_not_waited_on(trained_model, tmp_path, monkeypatch):
    from engine.training import models

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    dst, _ = _copy(trained_model, tmp_path)
    (dst / "history.jsonl").unlink()
    os.mkfifo(dst / "history.jsonl")
    result = []
    worker = threading.Thread(target=lambda: result.append(_import_error(models, dst)), daemon=True)
    worker.start()
    worker.join(30)
    assert result, "the import waited on a FIFO"
    assert "history.jsonl" in result[0] and "not a regular file" in result[0]


def _import_error(models, folder: Path) -> str:
    try:
        models.import_model(folder)
    except ModelError as e:
        return str(e)
    return "imported"


def test_a_huge_manifest_is_refused_within_seconds_without_being_read(tmp_path):
    from engine.training import models

    folder = tmp_path / "huge"
    folder.mkdir()
    with open(folder / "manifest.json", "wb") as fh:  # 300 MB, sparse: cheap to make, costly to read whole
        fh.write(b'{"format": "verso-nmt", "files": {"config.json": "')
        fh.truncate(300 << 20)
    tracemalloc.start()
    t0 = time.thread_time()  # this thread's CPU: a busy machine's other processes do not count
    try:
        for attempt in (lambda: load_model(folder), lambda: models.describe(folder)):
            with pytest.raises(ModelError) as e:
                attempt()
            msg = _one_line(e)
            assert "manifest.json" in msg and "314,572,800 bytes" in msg
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.thread_time() - t0 < 2.0
    assert peak < 4 << 20, peak


@pytest.mark.parametrize("name", ["manifest.json", "config.json", "knn.json"])
def test_deeply_nested_json_in_a_model_folder_is_a_one_line_error_naming_the_file(trained_model, tmp_path, name):
    dst, man = _copy(trained_model, tmp_path)
    (dst / name).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    if name != "manifest.json":
        man["files"][name] = _sha(dst / name)
        _write_manifest(dst, man)
    with pytest.raises(ModelError) as e:
        load_model(dst)
    msg = _one_line(e)
    assert name in msg and "nested too deeply" in msg


@pytest.mark.parametrize("change, says", [
    (lambda man: man.update(files={}), "lists no files"),
    (lambda man: man.pop("files"), "'files'"),
    (lambda man: man["files"].pop("spm.model"), "does not list spm.model"),
    (lambda man: man["files"].pop("config.json"), "does not list config.json"),
], ids=["empty", "missing", "no-subword-model", "no-config"])
def test_a_manifest_that_does_not_checksum_every_file_is_not_a_checksummed_model(trained_model, tmp_path, change,
                                                                                 says):
    dst, man = _copy(trained_model, tmp_path)
    change(man)
    _write_manifest(dst, man)
    for verify in (True, False):
        with pytest.raises(ModelError) as e:
            load_model(dst, verify=verify)
        msg = _one_line(e)
        assert "manifest.json" in msg and says in msg


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_weights_are_written_with_the_mode_the_umask_gives_every_new_file(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        ckpt.save_weights(torch.nn.Linear(3, 2), tmp_path / "w.safetensors")
        ckpt.write_json(tmp_path / "other.json", {})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "w.safetensors").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "other.json").stat().st_mode) == mode  # as the rest of the folder


def test_an_exported_model_folder_is_readable_by_the_team(trained_model, tmp_path):
    old = os.umask(0o022)
    try:
        dst = export_model(trained_model, tmp_path / "team")
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in dst.iterdir() if p.is_file()}
    assert modes["model.safetensors"] == 0o644 and set(modes.values()) == {0o644}, modes
