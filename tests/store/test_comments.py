"""Comments on segments, kept in the project (table comments, migration 7): add, edit, resolve and
reopen, with author and time; they survive reopening, go with their segment, and are not an edit."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.errors import ProjectError
from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import protect
from engine.store import Project, migrations
from engine.store.comments import Comments


@pytest.fixture
def project(tmp_path: Path):
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    original = tmp_path / "guide.txt"
    original.write_text("x\n", encoding="utf-8")
    segs = [ParsedSegment("k0", protect("Open the file.")), ParsedSegment("k1", protect("Save it."))]
    p.import_parsed(ParsedDocument("guide.txt", "txt", "en", "de", segs), original)
    yield p
    p.close()


def test_a_comment_keeps_author_text_and_time_across_reopening(project):
    s0, _ = project.segments(project.documents()[0].id)
    c = Comments(project).add(s0.id, "  Ask the client about 'file'.  ", author="Ana")
    assert (c.author, c.text, c.resolved) == ("Ana", "Ask the client about 'file'.", False)
    assert c.created_at.startswith("20") and c.created_at == c.updated_at
    folder = project.folder
    project.close()
    again = Project.open(folder)
    try:
        assert Comments(again).for_segment(s0.id) == [c]
    finally:
        again.close()


def test_edit_resolve_and_reopen(project):
    doc = project.documents()[0].id
    s0, s1 = project.segments(doc)
    comments = Comments(project)
    c = comments.add(s0.id, "first", author="Ana")
    comments.add(s1.id, "second", author="Ben")
    assert comments.edit(c.id, "first, edited").text == "first, edited"
    assert comments.open_segments(doc) == {s0.id, s1.id}
    resolved = comments.resolve(c.id)
    assert resolved.resolved and comments.resolve(c.id).resolved_at == resolved.resolved_at
    assert comments.open_segments(doc) == {s1.id}
    assert list(comments.open_by_key(doc)) == ["k1"]
    assert not comments.reopen(c.id).resolved
    assert [k for k in comments.open_by_key(doc)] == ["k0", "k1"]


def test_a_comment_is_not_an_edit_of_its_segment(project):
    doc = project.documents()[0].id
    s0, _ = project.segments(doc)
    Comments(project).add(s0.id, "note", author="Ana")
    assert project.segment(s0.id).updated_at == s0.updated_at
    assert project.translations(doc) == {}


def test_empty_comment_and_unknown_segment_are_one_line_errors(project):
    s0, _ = project.segments(project.documents()[0].id)
    with pytest.raises(ProjectError, match="^comment: the comment is empty$"):
        Comments(project).add(s0.id, "   ", author="Ana")
    with pytest.raises(ProjectError, match="segment 999 is not in the project"):
        Comments(project).add(999, "x", author="Ana")
    with pytest.raises(ProjectError, match="comment 42 is not in the project"):
        Comments(project).resolve(42)


def test_comments_go_with_their_document(project):
    doc = project.documents()[0].id
    s0, _ = project.segments(doc)
    Comments(project).add(s0.id, "note", author="Ana")
    project.remove_document(doc)
    assert project._conn.execute("SELECT COUNT(*) FROM comments").fetchone()[0] == 0


def test_the_migration_adds_the_table_to_an_older_project(tmp_path):
    p = Project.create(tmp_path / "old", src_lang="en", tgt_lang="de")
    p.close()
    db = sqlite3.connect(tmp_path / "old" / "project.verso")
    db.execute("DROP TABLE comments")
    db.execute("DELETE FROM schema_migrations WHERE version >= 7")
    db.commit()
    db.close()
    again = Project.open(tmp_path / "old")
    try:
        assert migrations.current_version(again._conn) == migrations.LATEST
        assert again._conn.execute("SELECT COUNT(*) FROM comments").fetchone()[0] == 0
    finally:
        again.close()
