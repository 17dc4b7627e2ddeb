"""Delivering a document: what export writes, refuses and where; `verso qa`; `verso doc pretranslate`."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import ProjectError, TagErrorsError
from engine.fsutil import atomic_write
from engine.store import Project
from engine.tm import TranslationMemory

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="guide" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="1"><source>Click <g id="1">Save</g> now.</source><target>Klicken Sie <g id="1">Speichern</g>  </target></trans-unit>
<trans-unit id="2"><source>Open the file.</source></trans-unit>
<trans-unit id="3"><source>Close the window.</source></trans-unit>
</body></file></xliff>
"""


@pytest.fixture
def project(tmp_path: Path):
    src = tmp_path / "in" / "guide.xlf"
    src.parent.mkdir()
    src.write_text(XLF, encoding="utf-8")
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    doc = p.import_document(src)
    yield p, doc, src
    p.close()


def test_an_untouched_document_is_not_handed_to_the_writer(project, tmp_path):
    p, doc, _ = project
    assert p.translations(doc) == {}  # the file's own target of unit 1 stays as it was
    seg = p.segments(doc)[1]
    p.confirm(seg.id, "Öffnen Sie die Datei.")
    assert list(p.translations(doc)) == [seg.key]


def test_a_target_set_in_the_millisecond_of_the_import_is_still_delivered(tmp_path):
    """"Touched since the import" compares timestamps: an edit right after an import (a script, a
    pre-translation in the same process) used to read as untouched and export as the original."""
    src = tmp_path / "guide.xlf"
    src.write_text(XLF, encoding="utf-8")
    lost = 0
    for i in range(40):
        with Project.create(tmp_path / f"p{i}", src_lang="en", tgt_lang="de") as p:
            doc = p.import_document(src)
            seg = p.segments(doc)[1]
            p.set_targets([(seg.id, "Öffnen Sie die Datei.")], status="confirmed")
            lost += seg.key not in p.translations(doc)
    assert lost == 0


def test_export_refuses_tag_errors_naming_the_segments(project, tmp_path):
    p, doc, _ = project
    seg = p.segments(doc)[0]
    opening, closing = (t.char for t in seg.source.tags)
    p.confirm(seg.id, f"Klicken Sie {closing}Speichern{opening} jetzt.")
    out = tmp_path / "out.xlf"
    with pytest.raises(TagErrorsError) as e:
        p.export_document(doc, out)
    assert "segment(s) (1)" in str(e.value) and not out.exists()
    p.export_document(doc, out, force=True)
    assert out.exists()


def test_cli_export_exits_3_on_tag_errors_unless_forced(project, tmp_path, capsys):
    p, doc, _ = project
    seg = p.segments(doc)[0]
    p.confirm(seg.id, "Klicken Sie jetzt.")  # both tags missing
    folder = str(p.folder)
    p.close()
    out = tmp_path / "o.xlf"
    assert main(["doc", "export", "guide.xlf", "--project", folder, "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert "segment 1: tag" in err and "missing" in err and not out.exists()
    assert main(["doc", "export", "guide.xlf", "--project", folder, "--out", str(out), "--force"]) == 0


def test_default_export_name_and_never_over_the_source(project, tmp_path, capsys):
    p, doc, src = project
    assert p.default_export_path(doc) == p.folder / "exports" / "guide.de.xlf"
    with pytest.raises(ProjectError, match="imported from"):
        p.export_document(doc, src)
    assert src.read_text(encoding="utf-8") == XLF
    folder = str(p.folder)
    p.close()
    assert main(["doc", "export", "1", "--project", folder]) == 0
    assert json.loads(capsys.readouterr().out)["out"].endswith("exports/guide.de.xlf")
    assert (Path(folder) / "exports" / "guide.de.xlf").is_file()


def test_export_keeps_an_existing_files_mode_and_gives_a_new_one_the_umask(project, tmp_path):
    p, doc, _ = project
    old = os.umask(0o002)
    try:
        fresh = tmp_path / "fresh.xlf"
        p.export_document(doc, fresh)
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o664
        shared = tmp_path / "shared.xlf"
        shared.write_text("old", encoding="utf-8")
        os.chmod(shared, 0o640)
        p.export_document(doc, shared)
        assert stat.S_IMODE(shared.stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("before", encoding="utf-8")
    for exc in (RuntimeError, KeyboardInterrupt):
        with pytest.raises(exc):
            with atomic_write(target, "w", encoding="utf-8") as fh:
                fh.write("half")
                raise exc()
    assert target.read_text(encoding="utf-8") == "before"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out.txt"]


def test_untouched_export_keeps_the_files_own_target_byte_for_byte(project, tmp_path):
    p, doc, src = project
    out = tmp_path / "out.xlf"
    p.export_document(doc, out)
    assert '<g id="1">Speichern</g>  </target>' in out.read_text(encoding="utf-8")


def test_verso_qa_prints_findings_and_fails_on_errors(project, capsys):
    p, doc, _ = project
    segs = p.segments(doc)
    p.confirm(segs[1].id, "Öffnen Sie die Datei?")
    p.confirm(segs[2].id, "Schließen Sie das Fenster.")
    folder = str(p.folder)
    p.close()
    assert main(["qa", "--project", folder, "--json"]) == 0  # warnings only
    report = json.loads(capsys.readouterr().out)
    checks = {(i["segment"], i["check"]) for i in report[0]["issues"]}
    assert (2, "end-punctuation") in checks and (1, "end-punctuation") in checks
    with Project.open(folder) as p2:
        p2.confirm(segs[2].id, "Schließen Sie <Fenster.")
        seg0 = p2.segments(doc)[0]
        p2.confirm(seg0.id, seg0.source.text.replace(seg0.source.tags[1].char, ""))
        p2.set_qa_options(p2.qa_options().with_check("punctuation", False))
    assert main(["qa", "--project", folder]) == 1
    text = capsys.readouterr().out
    assert "segment 1: error: missing-tag" in text and "end-punctuation" not in text


def test_pretranslate_fills_empty_targets_from_100_percent_matches_as_drafts(project, tmp_path, capsys):
    p, doc, _ = project
    with TranslationMemory(p.folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("Open the file.", "Öffnen Sie die Datei.")
        tm.add("Close the windows.", "Schließen Sie die Fenster.")  # a fuzzy match only
    p.add_tm_ref("tm", writable=True)
    folder = str(p.folder)
    p.close()
    assert main(["doc", "pretranslate", "guide.xlf", "--project", folder, "--model", "none"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) | {"document_id": 1, "model": None} == \
        {"document_id": 1, "model": None, "tm": 1, "mt": 0, "empty": 1, "kept": 1}
    assert "pretranslate: 2/2" in captured.err
    with Project.open(folder) as p2:
        segs = p2.segments(doc)
        assert (segs[1].target.text, segs[1].status, segs[1].origin) == ("Öffnen Sie die Datei.", "draft", "tm")
        assert segs[2].target.text == "" and segs[0].origin == "file"


def test_verso_qa_checks_the_projects_glossary_terms(project, tmp_path, capsys):
    """A glossary listed in the project: a term not translated as it says is a warning, a
    forbidden variant used is an error."""
    p, doc, _ = project
    tsv = tmp_path / "terms.tsv"
    tsv.write_text("source\ttarget\tforbidden\nfile\tDatei\tFile\nwindow\tFenster\t\n", encoding="utf-8")
    assert main(["glossary", "import", str(tsv), "--glossary", str(p.folder / "glossary"),
                 "--src-lang", "en", "--tgt-lang", "de"]) == 0
    capsys.readouterr()
    p.add_glossary_ref("glossary", writable=True)
    segs = p.segments(doc)
    p.confirm(segs[1].id, "Öffnen Sie das File.")       # forbidden variant
    p.confirm(segs[2].id, "Schließen Sie die Ansicht.")  # "window" not as the glossary says
    folder = str(p.folder)
    p.close()
    assert main(["qa", "--project", folder, "--json"]) == 1
    found = {(i["segment"], i["check"]) for i in json.loads(capsys.readouterr().out)[0]["issues"]}
    assert (2, "forbidden-term") in found and (3, "term-not-used") in found


# ---------------------------------------------------------- issue 35, item 7
KILLED_WRITER = r"""
import sys, time
from engine.fsutil import atomic_write
with atomic_write(sys.argv[1], "wb") as fh:
    fh.write(b"x" * 4_000_000)
    fh.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def test_an_export_killed_mid_write_leaves_a_temp_file_the_next_export_removes(project, tmp_path):
    import signal
    import subprocess
    import sys

    p, doc, _ = project
    out = tmp_path / "out" / "guide.de.xlf"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(out)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = [x.name for x in out.parent.iterdir()]
    assert len(left) == 1 and left[0].startswith(".guide.de.xlf.") and left[0].endswith(".tmp")
    p.export_document(doc, out)
    assert sorted(x.name for x in out.parent.iterdir()) == ["guide.de.xlf"]


def test_a_later_write_removes_only_stale_temp_files_of_its_own_name(tmp_path):
    import subprocess
    import sys
    import time

    from engine import fsutil

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()  # the pid of a process that has ended
    host = fsutil._host_tag()
    old = time.time() - 2 * fsutil.STALE_TEMP_S
    names = {
        f".out.txt.{host}-{gone}.abc_1234.tmp": ("now", False),        # its writer is gone: stale
        f".out.txt.{host}-{os.getpid()}.abcd1234.tmp": ("now", True),  # a live writer (this process)
        f".out.txt.{host}-{os.getpid()}.abcd9999.tmp": ("old", False),  # untouched for two hours
        f".out.txt.0badc0de-{gone}.abcd1234.tmp": ("now", True),       # another machine's writer
        f".out.txt.0badc0de-{gone}.abcd5678.tmp": ("old", False),
        ".out.txt.k2j4h5g6.tmp": ("now", True),                        # an older Verso's, maybe writing
        ".out.txt.k2j4h5g7.tmp": ("old", False),                       # an older Verso's, left by a kill
        f".other.txt.{host}-{gone}.abcd1234.tmp": ("old", True),       # another file's
        ".out.txt.tmp": ("old", True), "out.txt.abcd1234.tmp": ("old", True), "notes.tmp": ("old", True),
        ".out.txt.k2j4h5g6.tmp.bak": ("old", True), ".out.txt.toolongname.tmp": ("old", True),
    }
    for name, (age, _) in names.items():
        f = tmp_path / name
        f.write_text("x", encoding="utf-8")
        if age == "old":
            os.utime(f, (old, old))
    sub = tmp_path / f".out.txt.{host}-{gone}.dir12345.tmp"
    sub.mkdir()  # not a file: never touched
    with atomic_write(tmp_path / "out.txt", "w", encoding="utf-8") as fh:
        fh.write("new")
    kept = {n for n, (_, keep) in names.items() if keep} | {"out.txt", sub.name}
    assert {x.name for x in tmp_path.iterdir()} == kept


def test_a_refused_import_into_a_new_project_leaves_no_project_behind(tmp_path, capsys):
    bad = tmp_path / "bad.po"
    bad.write_text('msgid "Open"\nmsgstr "x\n', encoding="utf-8")  # an unterminated string
    new = tmp_path / "new"
    rc = main(["doc", "import", str(bad), "--project", str(new), "--src-lang", "en", "--tgt-lang", "de"])
    assert rc == 2 and "bad.po" in capsys.readouterr().err
    assert not new.exists()
    # a folder that was there stays, without the project the command started in it
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine", encoding="utf-8")
    rc = main(["doc", "import", str(bad), "--project", str(existing), "--src-lang", "en", "--tgt-lang", "de"])
    assert rc == 2 and sorted(x.name for x in existing.iterdir()) == ["notes.txt"]
    # a project that was there keeps everything it had
    good = tmp_path / "in" / "guide.xlf"
    good.parent.mkdir()
    good.write_text(XLF, encoding="utf-8")
    assert main(["doc", "import", str(good), "--project", str(existing), "--src-lang", "en", "--tgt-lang", "de"]) == 0
    capsys.readouterr()
    assert main(["doc", "import", str(bad), "--project", str(existing)]) == 2
    with Project.open(existing) as p:
        assert [d.name for d in p.documents()] == ["guide.xlf"]
