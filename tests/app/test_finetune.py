"""Fine-tuning: the headless run's contract, and the dialog driving
``verso finetune`` in a separate process to completion and to a cancel."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine.errors import ConfigError
from engine.finetune import FinetuneConfig, gather_pairs, split_pairs

from editor_helpers import make_project


def _csv(path: Path, corpus: dict[str, Path], n: int = 30) -> Path:
    src = corpus["dev_en"].read_text(encoding="utf-8").splitlines()[:n]
    tgt = corpus["dev_de"].read_text(encoding="utf-8").splitlines()[:n]
    path.write_text("en,de\n" + "".join(f'"{s}","{t}"\n' for s, t in zip(src, tgt)), encoding="utf-8")
    return path


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_config_refuses_unknown_keys_and_bad_values():
    with pytest.raises(ConfigError, match="unknown key"):
        FinetuneConfig.from_dict({"base_model": "m", "out": "o", "epochs": 3})
    with pytest.raises(ConfigError, match="dev_fraction"):
        FinetuneConfig.from_dict({"base_model": "m", "out": "o", "dev_fraction": 1.5})
    with pytest.raises(ConfigError, match="out is required"):
        FinetuneConfig.from_dict({"base_model": "m"})


def test_pairs_are_gathered_deduplicated_and_a_slice_held_aside(tmp_path, toy_corpus):
    from engine.tm import TranslationMemory

    csv = _csv(tmp_path / "pairs.csv", toy_corpus, 20)
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("A new sentence.", "Ein neuer Satz.")
        first = csv.read_text(encoding="utf-8").splitlines()[1].strip('"').split('","')
        tm.add(first[0], first[1])  # also in the CSV: counted once
    pairs = gather_pairs([str(tmp_path / "tm"), str(csv)], "en", "de")
    assert len(pairs) == 21 and len(set(pairs)) == 21
    train, dev = split_pairs(pairs, fraction=0.2, dev_max=100, dev_min=1, seed=3)
    assert len(dev) == 4 and len(train) == 17 and not set(train) & set(dev)
    assert split_pairs(pairs, fraction=0.2, dev_max=100, dev_min=1, seed=3) == (train, dev)
    with pytest.raises(ConfigError, match="at least"):
        split_pairs(pairs[:1], fraction=0.2, dev_max=100, dev_min=1, seed=3)


def test_dialog_runs_a_fine_tune_to_completion_then_cancels_another(qtbot, tmp_path, tiny_model, toy_corpus):
    from app.dialogs.finetune import FinetuneDialog
    from engine.store import Project

    folder = make_project(tmp_path / "p", ["The dog sees the cat."], tm=False)
    project = Project.open(folder)
    base_digest = _digest(tiny_model)
    dlg = FinetuneDialog(None, project, tiny_model, threads=1)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.add_file(_csv(tmp_path / "mine.csv", toy_corpus))
    dlg.epochs.setValue(2)
    out = tmp_path / "ft1"
    dlg.out.setText(str(out))
    chosen = []
    dlg.modelChosen.connect(chosen.append)
    with qtbot.waitSignal(dlg.finished_run, timeout=180_000) as done:
        dlg.start_run()
    final = done.args[0]
    assert final["event"] == "finished", dlg.log.toPlainText()
    kinds = [e["event"] for e in dlg.events]
    assert kinds[:3] == ["gather", "split", "before"] and "step" in kinds and "eval" in kinds
    assert kinds[-2:] == ["after", "finished"]
    assert f"{final['before']:.1f}" in dlg.scores.text() and f"{final['after']:.1f}" in dlg.scores.text()
    assert dlg.loss.text().startswith("loss ") and dlg.dev_bleu.text().startswith("dev BLEU ")
    assert dlg.keep_new.isVisible() and dlg.keep_old.isVisible()
    from engine.nmt.translator import Translator

    Translator.load(out)  # a complete, loadable model folder
    dlg.keep_new.click()
    assert chosen == [str(out)]

    # A second run, cancelled as soon as it starts training: the base model is untouched.
    dlg2 = FinetuneDialog(None, project, tiny_model, threads=1)
    qtbot.addWidget(dlg2)
    dlg2.add_file(tmp_path / "mine.csv")
    dlg2.epochs.setValue(50)
    dlg2.out.setText(str(tmp_path / "ft2"))
    dlg2.finished_run.connect(lambda ev: None)
    seen = []

    def on_event(ev):
        seen.append(ev)
        if ev.get("event") in ("start", "resume", "step") and dlg2.running():
            dlg2.cancel()

    dlg2.finished_run.connect(lambda ev: seen.append({"event": "_end", **ev}))
    orig = dlg2.on_event
    dlg2.on_event = lambda ev: (orig(ev), on_event(ev))
    with qtbot.waitSignal(dlg2.finished_run, timeout=180_000) as done2:
        dlg2.start_run()
    assert done2.args[0]["event"] == "cancelled"
    assert "Cancelled" in dlg2.status.text() and "unchanged" in dlg2.status.text()
    assert not any(e.get("event") == "finished" for e in seen)
    assert _digest(tiny_model) == base_digest
    project.close()
