"""Issue 37 item 1: a model is used only for the language pair it was trained for.

An English->French project never gets the English->German demo model: not as its default model,
not through ``$VERSO_MODEL`` or a project setting naming it, not in `verso doc pretranslate`,
which then fills from the TM only and says why on stderr."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.cli import main
from engine.resources import default_model_dir, model_choice, model_pair, pair_served, resources_dir
from engine.store import Project
from engine.tm import TranslationMemory

DEMO = resources_dir() / "models" / "demo"
SOURCES = ["The file could not be opened.", "Save the document before closing.", "Open the settings dialog."]


@pytest.fixture(autouse=True)
def _no_env_model(monkeypatch):
    monkeypatch.delenv("VERSO_MODEL", raising=False)
    monkeypatch.delenv("VERSO_RESOURCES", raising=False)


def _project(folder: Path, src: str, tgt: str) -> Path:
    doc = folder.parent / f"{folder.name}-doc.txt"
    doc.write_text("\n\n".join(SOURCES), encoding="utf-8")
    with Project.create(folder, src_lang=src, tgt_lang=tgt) as p:
        p.import_document(doc)
        segs = p.segments(1)
        with TranslationMemory(folder / "tm", src_lang=src, tgt_lang=tgt) as tm:
            tm.add(segs[0].source, "Le fichier n'a pas pu être ouvert.")
        p.add_tm_ref("tm", writable=True)
    return folder


def test_the_demo_model_names_its_pair():
    assert model_pair(DEMO) == ("en", "de")
    assert pair_served(("en", "de"), "en-GB", "de-AT")     # regional variants: the same pair
    assert not pair_served(("en", "de"), "en", "fr")
    assert not pair_served(("de", "en"), "en", "de")        # the other direction is another pair
    assert not pair_served(("", ""), "en", "fr")            # a model naming no pair serves none


def test_an_en_fr_project_gets_no_model_where_only_en_de_ones_exist(tmp_path, monkeypatch):
    with Project.create(tmp_path / "fr", src_lang="en", tgt_lang="fr") as p:
        assert default_model_dir(p) is None
        choice = model_choice(p)
        assert choice.folder is None and "en -> fr" in choice.why and "en -> de" in choice.why
        p.set_setting("model", str(DEMO))          # remembered, but of another pair: skipped
        assert default_model_dir(p) is None
        monkeypatch.setenv("VERSO_MODEL", str(DEMO))
        assert default_model_dir(p) is None
    with Project.create(tmp_path / "de", src_lang="en-US", tgt_lang="de-CH") as p:
        assert default_model_dir(p) == DEMO
    assert default_model_dir() == DEMO              # no project: any model


def test_the_projects_own_model_of_its_pair_comes_first(tmp_path, monkeypatch):
    other = tmp_path / "mine"
    shutil.copytree(DEMO, other)
    with Project.create(tmp_path / "de", src_lang="en", tgt_lang="de") as p:
        p.set_setting("model", str(other))
        assert default_model_dir(p) == other


def _run(args, capsys):
    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_pretranslate_en_fr_with_the_en_de_demo_model_fills_from_the_tm_only(tmp_path, capsys):
    folder = _project(tmp_path / "p", "en", "fr")
    rc, out, err = _run(["doc", "pretranslate", "1", "--project", str(folder)], capsys)
    res = json.loads(out)
    assert rc == 0 and (res["model"], res["tm"], res["mt"], res["empty"]) == (None, 1, 0, 2)
    assert "no model for en -> fr" in res["note"]
    why = [line for line in err.splitlines() if "TM only" in line]
    assert len(why) == 1 and "en -> fr" in why[0] and "en -> de" in why[0]
    with Project.open(folder) as p:
        segs = p.segments(1)
    assert [s.target.text for s in segs] == ["Le fichier n'a pas pu être ouvert.", "", ""]
    assert [s.origin for s in segs][:1] == ["tm"]


def test_pretranslate_with_a_model_of_another_pair_named_says_why(tmp_path, capsys):
    folder = _project(tmp_path / "p", "en", "fr")
    rc, out, err = _run(["doc", "pretranslate", "1", "--project", str(folder), "--model", str(DEMO)], capsys)
    res = json.loads(out)
    assert rc == 0 and (res["model"], res["tm"], res["mt"]) == (None, 1, 0)
    assert "the model translates en -> de, not en -> fr" in err and "TM only" in err
    with Project.open(folder) as p:
        assert [s.target.text for s in p.segments(1)][1:] == ["", ""]


def test_pretranslate_never_asks_a_translator_of_another_pair(tmp_path):
    from engine.pretranslate import open_tms, pretranslate

    class Wrong:
        loaded = SimpleNamespace(cfg=SimpleNamespace(data=SimpleNamespace(src_lang="en", tgt_lang="de")))

        def translate(self, *a, **k):
            raise AssertionError("a model of another pair was asked")

    folder = _project(tmp_path / "p", "en", "fr")
    with Project.open(folder) as p:
        tms = open_tms(p)
        try:
            res = pretranslate(p, 1, tms=tms, translator=Wrong())
        finally:
            for tm in tms:
                tm.close()
    assert (res.tm, res.mt, res.empty) == (1, 0, 2) and "en -> de, not en -> fr" in res.note
