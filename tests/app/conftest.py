"""Fixtures of the editor tests: offscreen Qt, settings in a temporary folder,
the demo project, a small project with an empty writable TM, and a tiny NMT
model trained once per session (a few seconds, one thread)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

NMT_TESTS = Path(__file__).resolve().parents[1] / "nmt"


@pytest.fixture(autouse=True, scope="session")
def _isolated_settings(tmp_path_factory):
    """QSettings (presets, recent projects) and VERSO_HOME never touch the user's own."""
    from PySide6.QtCore import QSettings

    base = tmp_path_factory.mktemp("settings")
    QSettings.setDefaultFormat(QSettings.IniFormat)
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(base))
    os.environ["VERSO_HOME"] = str(base / "home")
    yield


@pytest.fixture(autouse=True)
def _fresh_settings():
    from PySide6.QtCore import QSettings

    from app.preferences import settings

    from engine import identity

    QSettings("Verso", "Verso").clear()
    settings().clear()  # the editor's own, under VERSO_HOME
    identity.use("")  # the name a window passed to the engine goes with its settings
    yield


@pytest.fixture(autouse=True)
def _garbage_collected_on_the_ui_thread(qapp):
    """As in the editor (app/main.py): a job thread never frees a cycle holding a Qt object.  Given
    back after each test: the tests run after the editor's have no event loop to collect."""
    from app.uipost import collect_on_ui_thread, stop_collecting_on_ui_thread

    collect_on_ui_thread()
    yield
    stop_collecting_on_ui_thread()


@pytest.fixture(autouse=True)
def _jobs_end_with_their_test(_no_modal_message_boxes, _garbage_collected_on_the_ui_thread):
    """The next test starts with idle thread pools: a closed window's jobs (a spelling dictionary
    loading for up to 5 s, an import's last step) ran on into the next test, taking the CPU and the
    pool's threads from its own jobs, and read their project while it was closed.  (Torn down after
    the test's windows closed: autouse fixtures are set up first; and before the test's patches and
    the refusal of message boxes are undone, since the jobs' slots run meanwhile: a real modal box
    nobody answers would hang the run.)"""
    yield
    import time
    import warnings

    from PySide6.QtCore import QCoreApplication, QThreadPool

    from app.controllers.delivery import spell_pool

    end = time.monotonic() + 30  # (events delivered meanwhile: a job may wait for the UI thread)
    for pool in (QThreadPool.globalInstance(), spell_pool()):
        while not pool.waitForDone(20) and time.monotonic() < end:
            QCoreApplication.processEvents()
        if pool.activeThreadCount():
            warnings.warn(f"{pool.activeThreadCount()} job(s) of the test still running after 30 s")


@pytest.fixture(autouse=True)
def _no_modal_message_boxes(monkeypatch):
    """A modal message box nobody answers would hang the run: a test that expects one patches
    it itself; any other fails at once with the box's text."""
    from PySide6.QtWidgets import QMessageBox

    def unexpected(kind):
        def box(*a, **k):
            pytest.fail(f"unexpected QMessageBox.{kind}: {a[2] if len(a) > 2 else a}")
        return box

    for kind in ("critical", "warning", "question", "information"):
        monkeypatch.setattr(QMessageBox, kind, unexpected(kind))
    yield


@pytest.fixture
def demo_dir(tmp_path) -> Path:
    from engine.demo import ensure_demo_project

    return ensure_demo_project(tmp_path / "demo")


from editor_helpers import make_project  # noqa: E402,F401  (used by fixtures and tests)


@pytest.fixture(scope="session")
def toy_corpus(tmp_path_factory) -> dict[str, Path]:
    sys.path.insert(0, str(NMT_TESTS))
    from toydata import write_corpus

    return write_corpus(tmp_path_factory.mktemp("toy"), n_train=300, n_dev=30)


@pytest.fixture(scope="session")
def tiny_model(toy_corpus, tmp_path_factory) -> Path:
    """A tiny GRU with context gates (both), 60 steps on the toy corpus: real weights, real attention."""
    import torch

    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train

    torch.set_num_threads(1)
    c = toy_corpus
    cfg = ExperimentConfig.from_dict({
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": str(c["train_en"]), "train_tgt": str(c["train_de"]),
                 "dev_src": str(c["dev_en"]), "dev_tgt": str(c["dev_de"]), "vocab_size": 80},
        "model": {"emb_dim": 24, "hidden": 32, "dropout": 0.0, "emb_dropout": 0.0, "context_gate": "both"},
        "train": {"batch_tokens": 600, "lr": 0.01, "max_epochs": 50, "max_steps": 60, "eval_every": 60,
                  "log_every": 20, "label_smoothing": 0.0, "patience": 0, "threads": 1},
    })
    out = tmp_path_factory.mktemp("tiny") / "model"
    train(cfg, out)
    return out


@pytest.fixture(scope="session")
def tiny_translator(tiny_model):
    from engine.nmt.translator import Translator

    return Translator.load(tiny_model)
