"""The project store: languages, documents, segment edits, migrations, durability."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.errors import ProjectError
from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import protect
from engine.store import Project
from engine.store import migrations

ROOT = Path(__file__).resolve().parents[2]


def _doc(n: int = 3, name: str = "guide.txt") -> ParsedDocument:
    segs = [ParsedSegment(f"k{i}", protect(f"Sentence <b>{i}</b> of the guide.")) for i in range(n)]
    return ParsedDocument(name, "txt", "en", "de", segs)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project.create(tmp_path / "proj", src_lang="EN_us", tgt_lang="de-de", name="Guide")
    yield p
    p.close()


def _original(tmp_path: Path) -> Path:
    f = tmp_path / "guide.txt"
    f.write_text("original file\n", encoding="utf-8")
    return f


def test_languages_are_normalised_and_persist(project: Project, tmp_path: Path):
    assert (project.src_lang, project.tgt_lang) == ("en-US", "de-DE")
    project.close()
    again = Project.open(tmp_path / "proj")
    assert (again.name, again.src_lang, again.tgt_lang) == ("Guide", "en-US", "de-DE")
    again.close()


def test_database_uses_wal(project: Project):
    mode = project._conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode.lower() == "wal"


def test_import_keeps_order_tags_and_original(project: Project, tmp_path: Path):
    doc_id = project.import_parsed(_doc(5), _original(tmp_path))
    segs = project.segments(doc_id)
    assert [s.key for s in segs] == [f"k{i}" for i in range(5)]
    assert segs[2].source.display() == "Sentence <b>2</b> of the guide."
    assert segs[2].source.tag_count == 2
    info = project.document(doc_id)
    assert (project.folder / info.original).read_text(encoding="utf-8") == "original file\n"
    assert info.segment_count == 5 and info.confirmed_count == 0


def test_edit_keeps_source_tags_and_confirm_is_durable(project: Project, tmp_path: Path):
    doc_id = project.import_parsed(_doc(2), _original(tmp_path))
    seg = project.segments(doc_id)[0]
    b_open, b_close = seg.source.tags[0].char, seg.source.tags[1].char
    project.set_target(seg.id, f"Satz {b_open}0{b_close} der Anleitung.")
    draft = project.segment(seg.id)
    assert draft.status == "draft" and draft.target.display() == "Satz <b>0</b> der Anleitung."
    project.confirm(seg.id)
    # A second connection (another process would see the same) reads it back.
    with sqlite3.connect(project.path) as other:
        status, target = other.execute("SELECT status, target FROM segments WHERE id = ?", (seg.id,)).fetchone()
    assert status == "confirmed" and target.startswith("Satz")
    assert project.counts(doc_id) == {"new": 1, "draft": 0, "confirmed": 1}


def test_document_lookup_by_name_and_unknown(project: Project, tmp_path: Path):
    doc_id = project.import_parsed(_doc(1), _original(tmp_path))
    assert project.document("guide.txt").id == doc_id
    with pytest.raises(ProjectError, match="no document"):
        project.document("missing.txt")


def test_not_a_project_and_newer_schema_are_refused(tmp_path: Path):
    with pytest.raises(ProjectError, match="not a Verso project"):
        Project.open(tmp_path)
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="fr")
    p.close()
    with sqlite3.connect(tmp_path / "p" / "project.verso") as db:
        db.execute("INSERT INTO schema_migrations VALUES (?, 'future', 'now')", (migrations.LATEST + 1,))
    with pytest.raises(ProjectError, match="newer Verso"):
        Project.open(tmp_path / "p")


def test_corrupt_database_gives_clear_error(tmp_path: Path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "project.verso").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ProjectError, match="project.verso"):
        Project.open(folder)


def test_failed_import_leaves_project_unchanged(project: Project, tmp_path: Path, monkeypatch):
    project.import_parsed(_doc(2, "first.txt"), _original(tmp_path))
    bad = _doc(3, "second.txt")
    bad.segments[2].meta = {"unserialisable": object()}  # json.dumps fails half way through the rows
    with pytest.raises(TypeError):
        project.import_parsed(bad, _original(tmp_path))
    docs = project.documents()
    assert len(docs) == 1 and docs[0].segment_count == 2


# ------------------------------------------------------------ kill -9 tests
_CONFIRM_LOOP = textwrap.dedent("""
    import sys
    from engine.store import Project
    p = Project.open(sys.argv[1])
    doc = p.documents()[0].id
    for seg in p.segments(doc):
        p.confirm(seg.id, "Übersetzung %d" % seg.idx)
        print(seg.id, flush=True)          # printed only after confirm() returned
    print("done", flush=True)
""")

_IMPORT_LOOP = textwrap.dedent("""
    import sys
    from engine.store import Project
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect
    p = Project.open(sys.argv[1])
    n = int(sys.argv[3])
    for k in range(1000):
        segs = [ParsedSegment("k%d" % i, protect("Sentence %d of document %d." % (i, k))) for i in range(n)]
        p.import_parsed(ParsedDocument("doc%d.txt" % k, "txt", "en", "de", segs), sys.argv[2])
        print(k, flush=True)
""")


def _spawn(code: str, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
def test_kill_9_mid_confirm_loses_no_confirmed_segment(tmp_path: Path):
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_parsed(_doc(3000), _original(tmp_path))
    proc = _spawn(_CONFIRM_LOOP, str(folder))
    confirmed: list[int] = []
    deadline = time.time() + 60
    while len(confirmed) < 40 and time.time() < deadline:
        line = proc.stdout.readline()
        if not line or line.strip() == "done":
            break
        confirmed.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(confirmed) >= 40, "the confirm loop did not get going"
    with Project.open(folder) as p:
        for sid in confirmed:
            seg = p.segment(sid)
            assert seg.status == "confirmed", f"segment {sid} lost its confirmation"
            assert seg.target.text == f"Übersetzung {seg.idx}"
        assert p._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow
def test_kill_9_mid_import_leaves_whole_documents_only(tmp_path: Path):
    folder = tmp_path / "p"
    Project.create(folder, src_lang="en", tgt_lang="de").close()
    n = 20000
    proc = _spawn(_IMPORT_LOOP, str(folder), str(_original(tmp_path)), str(n))
    assert proc.stdout.readline().strip() == "0"  # one import finished; the next is under way
    time.sleep(0.15)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Project.open(folder) as p:
        assert p._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        docs = p.documents()
        assert len(docs) >= 1
        for d in docs:
            assert d.segment_count == n, f"{d.name} is half imported"


def test_set_targets_writes_all_in_one_transaction_or_none(tmp_path):
    """Auto-propagation stores many identical targets at once: all of them, or none if one fails."""
    folder = tmp_path / "proj"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_parsed(ParsedDocument("g.txt", "txt", "en", "de",
                                       [ParsedSegment(f"k{i}", protect(t))
                                        for i, t in enumerate(["Save.", "Save.", "Close.", "Save."])]),
                        _original(tmp_path))
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        ids = [s.id for s in segs if s.source.text == "Save."]
        out = p.set_targets([(i, "Speichern.") for i in ids], origin="tm", origin_score=1.0)
        assert [s.target.text for s in out] == ["Speichern."] * 3
        with pytest.raises(ProjectError):
            p.set_targets([(segs[2].id, "Schließen."), (10**9, protect("x"))])
    with Project.open(folder) as p:  # reopened: the first batch is there, nothing of the failed one
        after = {s.id: s for s in p.segments(p.documents()[0].id)}
        assert all(after[i].target.text == "Speichern." and after[i].origin == "tm" for i in ids)
        assert after[segs[2].id].target.text == ""


_CLOSE_WHILE_READ = textwrap.dedent("""
    import sys, threading
    from pathlib import Path
    from engine.store import Project
    refused = set()
    for i in range(40):
        p = Project.create(Path(sys.argv[1]) / f"p{i}", src_lang="en", tgt_lang="de")
        reading = threading.Event()
        def read():
            reading.set()
            try:
                while True:
                    p.setting("tgt_lang")
            except Exception as e:
                refused.add(type(e).__name__)
        t = threading.Thread(target=read)
        t.start()
        reading.wait()
        p.close()
        t.join()
    print(sorted(refused))
""")


def test_closing_a_project_while_a_background_job_reads_it_refuses_the_read_and_never_crashes(tmp_path):
    """The editor closes a project (another one opened, the window closed) while a job of the
    old one (its spelling, its QA marks) still reads its settings: that read must fail cleanly,
    never take the process down (a read in flight on a closed sqlite connection segfaulted)."""
    proc = _spawn(_CLOSE_WHILE_READ, str(tmp_path))
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, f"the process died (exit {proc.returncode})"
    assert out.strip() == "['ProgrammingError']"


def test_an_import_that_fails_while_storing_keeps_no_copy_of_the_file(project, tmp_path, monkeypatch):
    """A document the store refuses half way is absent, and so is the copy of its original that
    the import made first (each failed import left one in originals/)."""
    import engine.store.project as store

    src = tmp_path / "big.txt"
    src.write_text("One.\nTwo.\n", encoding="utf-8")
    kept_before = sorted((project.folder / "originals").iterdir())

    def refuse(*a, **k):
        raise sqlite3.IntegrityError("CHECK constraint failed: status")

    monkeypatch.setattr(store, "insert_rows", refuse)
    with pytest.raises(sqlite3.IntegrityError):
        project.import_parsed(_doc(2, "big.txt"), src)
    assert project.documents() == []
    assert sorted((project.folder / "originals").iterdir()) == kept_before


def test_a_refused_commit_is_rolled_back_so_later_work_is_still_saved(project, tmp_path, monkeypatch):
    """A COMMIT that sqlite refuses (a full disk) leaves its transaction open; left so, every later
    write went into it as a savepoint and was never committed: the translator's later work was lost
    when the project closed."""
    src = tmp_path / "a.txt"
    src.write_text("One.\n", encoding="utf-8")
    real = project._conn.execute
    refused = []

    def execute(sql, *args):
        if sql == "COMMIT" and not refused:
            refused.append(sql)
            raise sqlite3.OperationalError("database or disk is full")
        return real(sql, *args)

    monkeypatch.setattr(project._conn, "execute", execute)
    with pytest.raises(sqlite3.OperationalError):
        project.import_parsed(_doc(2, "a.txt"), src)
    project.set_setting("name", "After the full disk")
    folder = project.folder
    project.close()
    with Project.open(folder) as again:
        assert again.setting("name") == "After the full disk" and again.documents() == []
