"""Locked segments in the project store: a locked target cannot change, the lock is kept on
reopening, locking is not an edit (the file exports as it was), 100 % matches lock in one call."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.errors import ProjectError
from engine.store import Project
from engine.store import migrations
from engine.store.locks import SegmentLockedError, SegmentLocks

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="guide" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="1"><source>Open the file.</source><target state="translated">Öffnen Sie die Datei.</target></trans-unit>
<trans-unit id="2"><source>Close the window.</source></trans-unit>
<trans-unit id="3"><source>Save the file.</source></trans-unit>
<trans-unit id="4" translate="no"><source>ACME Corp.</source></trans-unit>
</body></file></xliff>
"""


@pytest.fixture
def project(tmp_path: Path):
    src = tmp_path / "guide.xlf"
    src.write_text(XLF, encoding="utf-8")
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    doc = p.import_document(src)
    yield p, doc, src
    p.close()


def test_a_locked_segment_refuses_a_new_target_and_a_confirmation(project):
    p, doc, _ = project
    seg = p.segments(doc)[1]
    assert SegmentLocks(p).lock(seg.id) == 1
    with pytest.raises(SegmentLockedError, match="^segment 2 is locked: unlock it to change its target$"):
        p.set_target(seg.id, "Schließen Sie das Fenster.")
    with pytest.raises(SegmentLockedError):
        p.confirm(seg.id, "Schließen Sie das Fenster.")
    after = p.segment(seg.id)
    assert (after.target.text, after.status, after.locked) == ("", "new", True)


def test_a_batch_with_one_locked_segment_writes_none_of_it(project):
    p, doc, _ = project
    a, b = p.segments(doc)[1:3]
    SegmentLocks(p).lock([b.id])
    with pytest.raises(SegmentLockedError, match="segment 3 is locked"):
        p.set_targets([(a.id, "Schließen"), (b.id, "Speichern")])
    assert p.segment(a.id).target.text == ""  # one transaction: all or none


def test_unlocked_it_takes_a_target_again(project):
    p, doc, _ = project
    seg = p.segments(doc)[2]
    locks = SegmentLocks(p)
    locks.lock(seg.id)
    assert locks.lock(seg.id) == 0  # already locked
    assert locks.unlock(seg.id) == 1
    assert p.set_target(seg.id, "Speichern Sie die Datei.").target.text == "Speichern Sie die Datei."
    assert not p.segment(seg.id).locked


def test_the_lock_survives_reopening_the_project(project):
    p, doc, _ = project
    ids = [s.id for s in p.segments(doc)[:2]]
    SegmentLocks(p).lock(ids)
    folder = p.folder
    p.close()
    with Project.open(folder) as again:
        assert [s.locked for s in again.segments(doc)] == [True, True, False, True]
        assert SegmentLocks(again).locked_ids(doc) == ids + [again.segments(doc)[3].id]


def test_the_files_own_lock_is_stored_and_locking_is_not_an_edit(project, tmp_path):
    p, doc, src = project
    segs = p.segments(doc)
    assert [s.locked for s in segs] == [False, False, False, True]  # translate="no" on unit 4
    SegmentLocks(p).lock([s.id for s in segs])
    SegmentLocks(p).unlock(segs[0].id)
    assert p.translations(doc) == {}
    out = p.export_document(doc, tmp_path / "out.xlf")
    assert out.read_bytes() == src.read_bytes()


def test_lock_exact_matches_locks_100_percent_tm_targets_only(project):
    p, doc, _ = project
    segs = p.segments(doc)
    p.set_targets([(segs[1].id, "Schließen Sie das Fenster.")], origin="tm", origin_score=1.0)
    p.set_targets([(segs[2].id, "Speichern Sie die Datei.")], origin="tm", origin_score=0.86)
    p.set_targets([(segs[0].id, "Öffne die Datei.")], origin="mt")
    locks = SegmentLocks(p)
    assert locks.lock_exact_matches(doc) == [segs[1].id]
    assert locks.lock_exact_matches(doc) == []  # nothing new to lock
    assert [s.locked for s in p.segments(doc)] == [False, True, False, True]


def test_locking_a_segment_not_in_the_project_is_refused_in_one_line(project):
    p, _, _ = project
    with pytest.raises(ProjectError, match="no segment 999$"):
        SegmentLocks(p).lock(999)
    with pytest.raises(ProjectError, match="no segment 999$"):
        p.set_target(999, "x")


def test_a_project_of_the_previous_schema_gets_the_column_unlocked(tmp_path: Path):
    src = tmp_path / "guide.xlf"
    src.write_text(XLF.replace(' translate="no"', ""), encoding="utf-8")
    with Project.create(tmp_path / "old", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
    with sqlite3.connect(tmp_path / "old" / "project.verso") as db:  # as Verso before migration 6 left it
        db.execute("ALTER TABLE segments DROP COLUMN locked")
        db.execute("DELETE FROM schema_migrations WHERE version >= 6")
    with Project.open(tmp_path / "old") as again:
        assert migrations.current_version(again._conn) == migrations.LATEST
        assert [s.locked for s in again.segments(doc)] == [False] * 4
        SegmentLocks(again).lock(again.segments(doc)[0].id)
        assert again.segments(doc)[0].locked


def test_qa_leaves_a_locked_segment_out(project):
    from engine.qa import check_segments

    p, doc, _ = project
    segs = p.segments(doc)
    assert {i.idx for i in check_segments(segs) if i.check == "untranslated"} == {1, 2}  # not unit 4: translate="no"
    SegmentLocks(p).lock(segs[1].id)
    assert {i.idx for i in check_segments(p.segments(doc)) if i.check == "untranslated"} == {2}
