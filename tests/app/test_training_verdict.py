"""Train a Model never offers a worse model without a word: the result says which is better
(the new model, the current one, copying the TM match) and Enter keeps the current model when
the new one is worse; the dialog reopens in the mode (new model / fine-tune) it was left in."""
from __future__ import annotations

from PySide6.QtCore import Qt

from editor_helpers import make_project


def _dialog(qtbot, project, model):
    from app.dialogs.training import TrainingDialog

    dlg = TrainingDialog(None, project, model, current_pair=True)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg, timeout=30_000)
    return dlg


def _finished(after: float, current: float | None, tm_copy: float) -> dict:
    from engine.training.events import parse_event, verdict

    return parse_event({"event": "finished", "before": current if current is not None else tm_copy, "after": after,
                        "current": current, "tm_copy": tm_copy, **verdict(after, tm_copy, current).to_json(),
                        "model": "m"})


def test_a_new_model_worse_than_copying_the_tm_match_is_said_and_enter_keeps_the_current_model(qtbot, tmp_path,
                                                                                             tiny_model):
    from engine.store import Project

    project = Project.open(make_project(tmp_path / "p", ["x"], tm=True))
    dlg = _dialog(qtbot, project, tiny_model)
    chosen, dismissed = [], []
    dlg.modelChosen.connect(chosen.append)
    dlg.runDismissed.connect(dismissed.append)
    dlg.on_event(_finished(0.0, None, 32.0))  # the run's last event, as the run's event file gives it
    assert dlg.use_new.isVisible() and dlg.keep_old.isVisible()
    assert "worse than copying the TM match (32.0)" in dlg.status.text() and "0.0" in dlg.status.text()
    assert dlg.keep_old.isDefault() and not dlg.use_new.isDefault()
    qtbot.keyClick(dlg, Qt.Key_Return)
    assert not chosen and dlg.result() == dlg.DialogCode.Accepted  # kept: no model chosen
    project.close()


def test_a_new_model_better_than_the_current_one_is_said_and_offered_first(qtbot, tmp_path, tiny_model):
    from engine.store import Project

    project = Project.open(make_project(tmp_path / "p", ["x"], tm=True))
    dlg = _dialog(qtbot, project, tiny_model)
    dlg.on_event(_finished(35.2, 30.1, 32.0))
    assert "better than the current model (30.1) and better than copying the TM match (32.0)" in dlg.status.text()
    assert dlg.use_new.isDefault() and not dlg.keep_old.isDefault()
    dlg.on_event(_finished(20.0, 30.1, 12.0))
    assert "worse than the current model (30.1)" in dlg.status.text() and dlg.keep_old.isDefault()
    project.close()


def test_the_dialog_reopens_in_the_mode_it_was_left_in_and_a_new_model_is_scored_beside_the_current(
        qtbot, tmp_path, tiny_model):
    from engine.store import Project

    project = Project.open(make_project(tmp_path / "p", ["x"], tm=True))
    dlg = _dialog(qtbot, project, tiny_model)
    assert dlg.fine_tune.isChecked()  # the current model serves the pair: fine-tuning first
    dlg.new_model.click()
    args = dlg.choice().arguments()
    assert args[0] == "train" and args[args.index("--compare") + 1] == str(tiny_model)
    dlg.close()

    dlg = _dialog(qtbot, project, tiny_model)
    assert dlg.new_model.isChecked() and not dlg.fine_tune.isChecked()
    dlg.fine_tune.click()
    assert "--compare" not in dlg.choice().arguments()  # fine-tuning scores its base already
    dlg.close()
    assert _dialog(qtbot, project, tiny_model).fine_tune.isChecked()
    project.close()
