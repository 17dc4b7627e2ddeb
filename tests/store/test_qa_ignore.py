"""The QA ignore list: a finding the translator ignored stays ignored across runs and reopenings,
comes back when its text changes, and is kept in the project (table qa_ignored, migration 5)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.errors import ProjectError
from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import protect
from engine.qa import check_segments
from engine.store import Project, migrations
from engine.store.qa_ignore import IgnoreList


@pytest.fixture
def project(tmp_path: Path):
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    original = tmp_path / "guide.txt"
    original.write_text("x\n", encoding="utf-8")
    segs = [ParsedSegment("k0", protect("Version 5 is out.")), ParsedSegment("k1", protect("Open the file."))]
    p.import_parsed(ParsedDocument("guide.txt", "txt", "en", "de", segs), original)
    yield p
    p.close()


def _run(project):
    doc = project.documents()[0].id
    return check_segments(project.segments(doc))


def test_an_ignored_finding_stays_ignored_after_reopening_the_project(project):
    s0, s1 = project.segments(project.documents()[0].id)
    project.set_target(s0.id, "Version ist da")          # number 5 missing, end punctuation
    project.set_target(s1.id, "Öffnen Sie die Datei")    # end punctuation
    found = _run(project)
    number = next(i for i in found if i.check == "number")
    assert IgnoreList(project).ignore(number) == 1 and IgnoreList(project).ignore(number) == 0
    folder = project.folder
    project.close()
    with Project.open(folder) as again:
        shown, hidden = IgnoreList(again).split(_run(again))
        assert hidden == [number] and number not in shown and len(shown) == len(found) - 1


def test_a_finding_whose_text_changes_comes_back(project):
    s0, _ = project.segments(project.documents()[0].id)
    project.set_target(s0.id, "Version 6 ist da.")
    (six,) = [i for i in _run(project) if i.check == "number" and i.severity == "warning"]
    IgnoreList(project).ignore(six)
    project.set_target(s0.id, "Version 7 ist da.")  # another number: another finding
    shown, hidden = IgnoreList(project).split(_run(project))
    assert hidden == [] and any("7" in i.message for i in shown)
    project.set_target(s0.id, "Die Version 6 ist da.")  # the same finding in an edited target: still ignored
    shown, hidden = IgnoreList(project).split(_run(project))
    assert hidden == [six]


def test_a_finding_can_be_shown_again(project):
    s0, _ = project.segments(project.documents()[0].id)
    project.set_target(s0.id, "Version ist da.")
    (number,) = [i for i in _run(project) if i.check == "number"]
    IgnoreList(project).ignore([number])
    assert number in IgnoreList(project) and IgnoreList(project).restore(number) == 1
    assert number not in IgnoreList(project) and IgnoreList(project).split([number]) == ([number], [])


def test_ignored_findings_go_with_their_document(project):
    s0, _ = project.segments(project.documents()[0].id)
    project.set_target(s0.id, "Version ist da.")
    IgnoreList(project).ignore([i for i in _run(project) if i.check == "number"])
    assert len(IgnoreList(project)) == 1
    project.remove_document(project.documents()[0].id)
    assert len(IgnoreList(project)) == 0


def test_ignoring_a_finding_of_no_segment_of_the_project_is_a_one_line_error(project):
    from engine.qa_types import Issue

    with pytest.raises(ProjectError, match="segment 999 is not in the project"):
        IgnoreList(project).ignore(Issue(999, 0, "number", "number 5 of the source is not in the target"))
    with pytest.raises(ProjectError, match="'no-dictionary' is not about one segment"):
        IgnoreList(project).ignore(Issue(0, -1, "no-dictionary", "no spelling dictionary", "warning"))


def test_a_project_of_the_previous_schema_gets_the_table(tmp_path: Path):
    p = Project.create(tmp_path / "old", src_lang="en", tgt_lang="de")
    p.close()
    with sqlite3.connect(tmp_path / "old" / "project.verso") as db:  # as Verso before migration 5 left it
        db.execute("DROP TABLE qa_ignored")
        db.execute("DELETE FROM schema_migrations WHERE version >= 5")
    with Project.open(tmp_path / "old") as again:
        assert migrations.current_version(again._conn) == migrations.LATEST
        assert len(IgnoreList(again)) == 0
