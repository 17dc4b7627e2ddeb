"""A received project's or glossary's SQLite runs none of its own SQL (issue 45, item 3): a trigger,
a view or a table Verso never makes is refused in one line naming the file and the object."""
import sqlite3

import pytest

from engine.errors import ProjectError
from engine.glossary.store import Glossary, GlossaryError
from engine.store import Project


def _sql(db, statement):
    conn = sqlite3.connect(db)
    conn.execute(statement)
    conn.commit()
    conn.close()


def _project(folder):
    src = folder.parent / "a.txt"
    src.write_text("One sentence.\n\nTwo sentences.\n", "utf-8")
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    return folder / "project.verso"


@pytest.mark.parametrize("statement, named", [
    ("CREATE TRIGGER wipe AFTER UPDATE ON segments BEGIN DELETE FROM segments; END", "wipe"),
    ("CREATE VIEW everything AS SELECT * FROM segments", "everything"),
    ("CREATE TABLE stolen (x TEXT)", "stolen"),
])
def test_a_received_project_with_sql_of_its_own_is_refused_and_keeps_its_segments(tmp_path, statement, named):
    db = _project(tmp_path / "p")
    _sql(db, statement)
    with pytest.raises(ProjectError) as e:
        Project(tmp_path / "p")
    msg = str(e.value)
    assert str(db) in msg and named in msg and "\n" not in msg
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM segments").fetchone()[0] == 2
    conn.close()


def test_a_project_verso_made_still_opens(tmp_path):
    _project(tmp_path / "p")
    with Project(tmp_path / "p") as p:
        doc = p.documents()[0].id
        seg = p.segments(doc)[0]
        p.confirm(seg.id, "Ein Satz.")
        assert p.segments(doc)[0].status == "confirmed"



def test_a_project_an_earlier_verso_made_still_opens_with_its_extra_index(tmp_path):
    """Projects made before 2026-11 have an index ``segments_doc`` that repeats the UNIQUE
    (document_id, idx) constraint's; new projects do without it (one index less on every
    inserted segment), and the old ones still open, import and confirm."""
    db = _project(tmp_path / "p")
    _sql(db, "CREATE INDEX IF NOT EXISTS segments_doc ON segments(document_id, idx)")
    src = tmp_path / "b.txt"
    src.write_text("Third sentence.\n", "utf-8")
    with Project(tmp_path / "p") as p:
        p.import_document(src)
        doc = p.documents()[0].id
        p.confirm(p.segments(doc)[0].id, "Ein Satz.")
        assert [s.status for s in p.segments(doc)] == ["confirmed", "new"]


def test_a_new_project_indexes_its_segments_once_per_order(tmp_path):
    db = _project(tmp_path / "p")
    conn = sqlite3.connect(db)
    columns = [tuple(r[2] for r in conn.execute(f"PRAGMA index_info('{name}')"))
               for _, name, *_ in conn.execute("PRAGMA index_list('segments')")]
    conn.close()
    assert ("document_id", "idx") in columns
    assert len(columns) == len(set(columns)), columns

def _glossary(folder):
    from engine.glossary.model import GlossaryEntry

    with Glossary(folder, create=True) as g:
        g.import_entries([GlossaryEntry(source="file", targets=("Datei",), src_lang="en", tgt_lang="de")], src_lang="en", tgt_lang="de")
    return folder / Glossary.DB_NAME


def test_a_received_glossary_with_a_trigger_is_refused(tmp_path):
    db = _glossary(tmp_path / "g")
    _sql(db, "CREATE TRIGGER wipe AFTER INSERT ON entries BEGIN DELETE FROM entries; END")
    with pytest.raises(GlossaryError) as e:
        Glossary(tmp_path / "g")
    assert str(db) in str(e.value) and "wipe" in str(e.value)
    with Glossary(tmp_path / "g2", create=True):
        pass  # a new one is made as before
