"""`verso doc import` of a file that declares no target language reads it with the project's:
an English Android or i18next file imported into an en->ru project gets the few/many forms
Russian needs, as the editor's import does (issue 39)."""
from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.store import Project

from formats.test_plurals import ANDROID_XML, I18NEXT


@pytest.mark.parametrize("name, text", [("strings.xml", ANDROID_XML), ("en.json", I18NEXT)])
def test_doc_import_adds_the_forms_the_projects_target_needs(tmp_path, capsys, name, text):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    folder = tmp_path / "p"
    Project.create(folder, src_lang="en", tgt_lang="ru").close()
    assert main(["doc", "import", str(f), "--project", str(folder)]) == 0
    capsys.readouterr()
    with Project.open(folder) as p:
        notes = [s.note for s in p.segments(p.documents()[0].id)]
    assert any(n.startswith("few:") for n in notes) and any(n.startswith("many:") for n in notes), notes


def test_a_new_project_takes_the_target_from_the_command_line_and_reads_with_it(tmp_path, capsys):
    f = tmp_path / "strings.xml"
    f.write_text(ANDROID_XML, encoding="utf-8")
    folder = tmp_path / "p"
    assert main(["doc", "import", str(f), "--project", str(folder), "--src-lang", "en", "--tgt-lang", "pl"]) == 0
    assert json.loads(capsys.readouterr().out)["segments"] == 5  # title, one, other + few, many
