"""A TM's SQLite from someone else runs none of its own SQL: triggers, views and objects Verso
did not create are refused in one line naming the file and the object (issue 45, item 3)."""
import json
import sqlite3

import pytest

from engine.cli import main
from engine.errors import TMError
from engine.tm.memory import TranslationMemory


def _tm(folder, n=3):
    with TranslationMemory(folder, src_lang="en", tgt_lang="de") as tm:
        for i in range(n):
            tm.add(f"Sentence number {i}", f"Satz Nummer {i}")
    return folder / TranslationMemory.DB_NAME


def _sql(db, *statements):
    conn = sqlite3.connect(db)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


def test_a_trigger_in_a_received_tm_is_refused_and_wipes_nothing(tmp_path, capsys):
    db = _tm(tmp_path / "tm", 30)
    _sql(db, "CREATE TRIGGER wipe AFTER INSERT ON units BEGIN DELETE FROM units WHERE id != NEW.id; END")
    src = tmp_path / "s.txt"
    src.write_text("Open the file\nClose the file\n", "utf-8")
    (tmp_path / "t.txt").write_text("Datei öffnen\nDatei schließen\n", "utf-8")
    rc = main(["tm", "import", str(src), "--target-file", str(tmp_path / "t.txt"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "de"])
    cap = capsys.readouterr()
    assert rc != 0 and cap.out == ""
    err = cap.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(db) in err and "trigger" in err and "wipe" in err
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM units").fetchone()[0] == 30
    conn.close()


def test_units_as_a_view_is_one_line_naming_the_view(tmp_path, capsys):
    db = tmp_path / "tm" / TranslationMemory.DB_NAME
    db.parent.mkdir()
    _sql(db, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
         "CREATE TABLE other (x TEXT)", "CREATE VIEW units AS SELECT x AS source FROM other")
    rc = main(["tm", "search", "--tm", str(tmp_path / "tm"), "--json", "hello"])
    err = capsys.readouterr().err.strip()
    assert rc != 0 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(db) in err and "view" in err and "units" in err


@pytest.mark.parametrize("statement, named", [
    ("CREATE TABLE stolen (x TEXT)", "stolen"),
    ("CREATE INDEX slow ON units(source, target, meta)", "slow"),
    ("CREATE VIEW v AS SELECT 1", "v"),
])
def test_objects_verso_did_not_create_are_refused(tmp_path, statement, named):
    db = _tm(tmp_path / "tm")
    _sql(db, statement)
    with pytest.raises(TMError) as e:
        TranslationMemory(tmp_path / "tm", create=False)
    assert str(db) in str(e.value) and named in str(e.value) and "\n" not in str(e.value)


def test_a_units_table_with_other_columns_is_refused(tmp_path):
    db = tmp_path / "tm" / TranslationMemory.DB_NAME
    db.parent.mkdir()
    _sql(db, "CREATE TABLE units (id INTEGER PRIMARY KEY, source TEXT, "
             "target TEXT GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL)")
    with pytest.raises(TMError) as e:
        TranslationMemory(tmp_path / "tm")
    assert str(db) in str(e.value) and "units" in str(e.value)


def test_a_tm_verso_made_opens_and_keeps_working(tmp_path, capsys):
    _tm(tmp_path / "tm")
    with TranslationMemory(tmp_path / "tm", create=False) as tm:  # the seal's table is ours too
        assert len(tm) == 3
        tm.add("Sentence number 9", "Satz Nummer 9")
        assert tm.search("Sentence number 9")[0].score == 1.0
    assert main(["tm", "stats", "--tm", str(tmp_path / "tm")]) == 0
    assert json.loads(capsys.readouterr().out)["units"] == 4


def test_a_received_projects_tm_outbox_with_a_trigger_is_refused(tmp_path):
    from engine.tm.outbox import Outbox

    Outbox.of_project(tmp_path).conn.close()
    db = next(tmp_path.glob("*"))
    _sql(db, "CREATE TRIGGER spread AFTER INSERT ON outbox BEGIN DELETE FROM outbox; END")
    with pytest.raises(TMError) as e:
        Outbox.of_project(tmp_path)
    assert str(db) in str(e.value) and "spread" in str(e.value)
