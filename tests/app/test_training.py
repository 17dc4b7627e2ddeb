"""Tools › Train a Model and Tools › Models, with pytest-qt on a tiny corpus: the run is a
background process that outlives the dialog and the window; cancel, resume, accept; the
model manager lists, uses, exports, imports (checked) and deletes models."""
from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from engine.training.events import Finished, PhaseStarted, Step

from editor_helpers import make_project


def _csv(path: Path, corpus: dict[str, Path], n: int = 300) -> Path:
    src = corpus["train_en"].read_text(encoding="utf-8").splitlines()[:n]
    tgt = corpus["train_de"].read_text(encoding="utf-8").splitlines()[:n]
    path.write_text("en,de\n" + "".join(f'"{s}","{t}"\n' for s, t in zip(src, tgt)), encoding="utf-8")
    return path


def _wait_state(qtbot, dlg, state: str, timeout: int = 240_000) -> None:
    from engine.training import runs

    qtbot.waitUntil(lambda: not dlg.run.running() and runs.status(dlg.run.folder).state == state, timeout=timeout)


def test_training_from_the_menu_outlives_the_window_resumes_and_is_accepted(qtbot, tmp_path, toy_corpus):
    from app.main_window import MainWindow
    from app.training import RUN_SETTING, notice
    from engine.store import Project
    from engine.training import runs

    folder = make_project(tmp_path / "p", ["The dog sees the cat."], tm=False)
    win = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(win)
    dlg = win.machine.training_dialog()
    qtbot.addWidget(dlg)
    dlg.new_model.setChecked(True)
    dlg.add_file(_csv(tmp_path / "mine.csv", toy_corpus))
    dlg.minutes.setValue(0)
    dlg.threads, dlg.max_steps = 1, 400  # long enough to cancel and close in the middle

    # start: progress from the background process
    steps = []
    dlg.run = None
    dlg.start_run()
    assert dlg.run is not None and dlg.cancel_button.isVisible() and not dlg.setup.isEnabled()
    out = dlg.run.folder
    assert win.project.setting(RUN_SETTING) == str(out)
    dlg.run.event.connect(lambda ev: isinstance(ev, Step) and steps.append(ev))
    qtbot.waitUntil(lambda: len(steps) >= 2, timeout=240_000)
    assert dlg.progress.maximum() == 400 and dlg.progress.value() > 0 and dlg.loss.text().startswith("loss ")
    assert "pairs gathered" in dlg.status.text() or "Recipe" in dlg.status.text()

    # cancel: the run stops cleanly and can be resumed
    dlg.cancel_run()
    _wait_state(qtbot, dlg, "cancelled")
    assert dlg.resume_button.isVisible() and "Cancelled" in dlg.status.text()
    assert "resumes it" in notice(win.project)
    stopped_at = steps[-1].step

    # resume, then close the dialog and the window: the run goes on
    dlg.resume_run()
    assert dlg.cancel_button.isVisible()
    qtbot.waitUntil(lambda: runs.status(out).state == "running", timeout=30_000)
    dlg.close()
    win.close()
    assert runs.status(out).state == "running"

    # the project reopened: the window says so and the dialog attaches to the run
    win2 = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(win2)
    assert "training" in win2.statusBar().currentMessage()
    dlg2 = win2.machine.training_dialog()
    qtbot.addWidget(dlg2)
    assert dlg2.run is not None and dlg2.run.folder == out
    resumes = lambda: [e for e in dlg2.run.events if isinstance(e, PhaseStarted) and e.resumed  # noqa: E731
                       and e.phase == "train"]
    qtbot.waitUntil(lambda: bool(resumes()), timeout=120_000)
    resumed = resumes()[0]
    assert resumed.step >= stopped_at - 10  # from the last checkpoint, not from scratch
    _wait_state(qtbot, dlg2, "finished")
    assert dlg2.use_new.isVisible() and dlg2.table.rowCount() >= 2
    assert dlg2.table.horizontalHeaderItem(4).text() == "Model + memory"
    assert "before" in dlg2.scores.text() and "after" in dlg2.scores.text()
    dlg2.use_new.click()
    assert win2.project.setting("model") == str(out)
    assert win2.project.setting(RUN_SETTING) == ""
    from engine.nmt.translator import Translator

    assert Translator.load(out).loaded.cfg.data.tgt_lang == "de"
    # Tools > Models lists it, in use, with its test scores (TM copy / model / model + memory) and its data
    models = win2.machine.models_dialog()
    qtbot.addWidget(models)
    row = next(r for r, i in enumerate(models.infos) if i.path == out)
    assert "(in use)" in models.table.item(row, 0).text() and models.table.item(row, 1).text() == "trained"
    assert models.table.item(row, 2).text().count(" / ") >= 2 and "mine.csv" in models.table.item(row, 5).text()
    win2.close()


def test_a_killed_run_shows_as_interrupted_and_resumes(qtbot, tmp_path, toy_corpus, tiny_model):
    from app.dialogs.training import TrainingDialog
    from engine.store import Project

    project = Project.open(make_project(tmp_path / "p", ["The dog sees the cat."], tm=False))
    dlg = TrainingDialog(None, project, tiny_model, current_pair=True, threads=1)
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.fine_tune.isChecked()  # the current model serves the pair: fine-tuning is offered first
    dlg.add_file(_csv(tmp_path / "mine.csv", toy_corpus, 120))
    dlg.minutes.setValue(0)
    dlg.max_steps = 300
    seen = []
    dlg.start_run()
    dlg.run.event.connect(lambda ev: isinstance(ev, Step) and seen.append(ev))
    qtbot.waitUntil(lambda: len(seen) >= 1, timeout=240_000)
    os.kill(dlg.run.status().pid, signal.SIGKILL)  # the machine went down
    _wait_state(qtbot, dlg, "interrupted")
    assert dlg.resume_button.isVisible() and "stopped before the end" in dlg.status.text()
    dlg.max_steps = 0
    dlg.resume_run()
    _wait_state(qtbot, dlg, "finished")
    assert isinstance(dlg.final, Finished)
    assert json.loads((dlg.run.folder / "training.json").read_text())["kind"] == "finetune"
    project.close()


def test_the_model_manager_uses_exports_imports_and_deletes(qtbot, tmp_path, tiny_model, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.dialogs.models import ModelsDialog
    from engine.store import Project

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    project = Project.open(make_project(tmp_path / "p", ["The dog sees the cat."], tm=False))
    mine = Path(project.folder) / "models" / "mine"
    shutil.copytree(tiny_model, mine)
    dlg = ModelsDialog(None, project, None)
    qtbot.addWidget(dlg)
    names = [i.name for i in dlg.infos]
    assert "mine" in names and "demo" in names  # trained here, and the shipped en->de demo
    assert next(i for i in dlg.infos if i.name == "demo").kind == "shipped"
    chosen = []
    dlg.modelChosen.connect(chosen.append)
    dlg.select("mine")
    dlg.use_selected()
    assert chosen == [str(mine)] and not dlg.delete_button.isEnabled()  # in use: not deletable
    dlg.select("demo")
    assert not dlg.delete_button.isEnabled()  # shipped

    # export, then import the export: checked by the strict loader
    w = dlg.export_to(next(i for i in dlg.infos if i.name == "mine"), tmp_path / "out" / "mine")
    qtbot.waitUntil(lambda: "Exported" in dlg.status.text() or "Failed" in dlg.status.text(), timeout=60_000)
    assert "Exported" in dlg.status.text(), dlg.status.text()
    del w
    dlg.import_from(tmp_path / "out" / "mine")
    qtbot.waitUntil(lambda: "Imported" in dlg.status.text() or "Failed" in dlg.status.text(), timeout=60_000)
    assert "Imported as mine-2" in dlg.status.text(), dlg.status.text()
    assert "mine-2" in [i.name for i in dlg.infos]

    # a tampered folder is refused with one line, and nothing is added
    bad = tmp_path / "bad"
    shutil.copytree(tmp_path / "out" / "mine", bad)
    weights = next(bad.glob("*.safetensors"))
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    before = len(dlg.infos)
    dlg.import_from(bad)
    qtbot.waitUntil(lambda: "Failed" in dlg.status.text() or "Imported" in dlg.status.text(), timeout=60_000)
    assert "corrupt" in dlg.status.text() and "\n" not in dlg.status.text()
    assert len(dlg.infos) == before and not list((Path(project.folder) / "models").glob(".*importing"))

    # delete the imported copy
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    dlg.select("mine-2")
    dlg.delete_selected()
    assert "mine-2" not in [i.name for i in dlg.infos] and mine.is_dir()
    project.close()


@pytest.mark.parametrize("fine", [False, True])
def test_the_dialog_builds_the_command_the_background_process_runs(qtbot, tmp_path, tiny_model, fine):
    from app.dialogs.training import TrainingDialog
    from engine.store import Project

    project = Project.open(make_project(tmp_path / "p", ["x"], tm=True))
    dlg = TrainingDialog(None, project, tiny_model, current_pair=True)
    qtbot.addWidget(dlg)
    (dlg.fine_tune if fine else dlg.new_model).setChecked(True)
    dlg.add_corpus(tmp_path / "a.en", tmp_path / "a.de")
    dlg.minutes.setValue(120)
    args = dlg.choice().arguments()
    assert args[0] == ("finetune" if fine else "train")
    assert args[args.index("--time-budget") + 1] == "7200"
    assert ("--tm" in args) != fine and ("--data" in args) == fine
    assert args[args.index("--corpus") + 1:args.index("--corpus") + 3] == [str(tmp_path / "a.en"),
                                                                          str(tmp_path / "a.de")]
    project.close()


def test_the_model_manager_shows_an_unreadable_model_with_its_reason_and_lists_the_others(qtbot, tmp_path,
                                                                                          tiny_model, monkeypatch):
    from app.dialogs.models import COLUMNS, ModelsDialog
    from engine.store import Project

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "home"))
    project = Project.open(make_project(tmp_path / "p", ["The dog sees the cat."], tm=False))
    models_dir = Path(project.folder) / "models"
    shutil.copytree(tiny_model, models_dir / "mine")
    shutil.copytree(tiny_model, models_dir / "broken")
    (models_dir / "broken" / "training.json").write_text("[1, 2]", encoding="utf-8")
    dlg = ModelsDialog(None, project, None)
    qtbot.addWidget(dlg)
    rows = {dlg.table.item(r, 0).text(): r for r in range(dlg.table.rowCount())}
    assert {"mine", "broken", "demo"} <= set(rows)
    r = rows["broken"]
    data = dlg.table.item(r, COLUMNS.index("Data")).text()
    assert dlg.table.item(r, COLUMNS.index("Kind")).text() == "unreadable"
    assert "training.json: expected a JSON object, not list" in data and "\n" not in data
    dlg.select("broken")
    assert not dlg.use_button.isEnabled() and not dlg.export_button.isEnabled() and dlg.delete_button.isEnabled()
    dlg.select("mine")
    assert dlg.use_button.isEnabled()
    project.close()
