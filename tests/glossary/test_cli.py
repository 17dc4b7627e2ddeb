"""`verso glossary import / export / lookup` as a user or a script calls them."""
from __future__ import annotations

import json

import pytest

from engine.cli import main

TBX = """<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX" xml:lang="en"><text><body>
<termEntry id="c1"><langSet xml:lang="en"><tig><term>file manager</term></tig></langSet>
  <langSet xml:lang="de"><tig><term>Dateiverwaltung</term></tig></langSet></termEntry>
<termEntry id="c2"><langSet xml:lang="en"><tig><term>file</term></tig></langSet>
  <langSet xml:lang="de"><tig><term>Datei</term></tig>
  <tig><term>File</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></tig>
  </langSet></termEntry>
</body></text></martif>
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def glossary(tmp_path, capsys):
    (tmp_path / "terms.tbx").write_text(TBX, encoding="utf-8")
    rc, out, err = run(capsys, "glossary", "import", tmp_path / "terms.tbx", "--glossary", tmp_path / "g")
    assert rc == 0, err
    return tmp_path / "g", json.loads(out)


def test_import_prints_a_json_summary(glossary, tmp_path, capsys):
    _, summary = glossary
    assert summary == {"added": 2, "updated": 0, "skipped": 0, "src_lang": "en", "tgt_lang": "de", "problems": []}
    rc, out, _ = run(capsys, "glossary", "import", tmp_path / "terms.tbx", "--glossary", tmp_path / "g")
    assert rc == 0 and json.loads(out)["updated"] == 2


def test_lookup_json_gives_entries_and_spans(glossary, capsys):
    folder, _ = glossary
    text = "Open the File Manager, then pick two files."
    rc, out, _ = run(capsys, "glossary", "lookup", "--glossary", folder, "--json", text)
    assert rc == 0
    hits = json.loads(out)
    assert [(h["start"], h["end"], h["text"], h["entry"]["source"]) for h in hits] == [
        (9, 21, "File Manager", "file manager"), (37, 42, "files", "file")]
    assert hits[1]["entry"]["targets"] == ["Datei"] and hits[1]["entry"]["forbidden"] == ["File"]


def test_export_writes_tbx_and_tsv(glossary, tmp_path, capsys):
    folder, _ = glossary
    for name in ("out.tbx", "out.tsv"):
        rc, out, _ = run(capsys, "glossary", "export", "--glossary", folder, "--out", tmp_path / name)
        assert rc == 0 and json.loads(out)["exported"] == 2
    assert "<term>Dateiverwaltung</term>" in (tmp_path / "out.tbx").read_text("utf-8")
    assert (tmp_path / "out.tsv").read_text("utf-8").splitlines()[0] == "en\tde\tnote\tpos\tstatus\tforbidden\tinflect"


def test_a_bad_file_is_one_line_on_stderr_exit_2_and_no_glossary_left(tmp_path, capsys):
    (tmp_path / "bad.tbx").write_text(TBX.replace("</martif>", ""), encoding="utf-8")
    rc, out, err = run(capsys, "glossary", "import", tmp_path / "bad.tbx", "--glossary", tmp_path / "new")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "bad.tbx, line" in err
    assert not (tmp_path / "new").exists()


def test_a_bad_file_leaves_an_existing_glossary_as_it_was(glossary, tmp_path, capsys):
    folder, _ = glossary
    (tmp_path / "bad.csv").write_text('en,de\nfolder,Ordner\n"x,y\n', encoding="utf-8")
    rc, _, err = run(capsys, "glossary", "import", tmp_path / "bad.csv", "--glossary", folder)
    assert rc == 2 and err.count("\n") == 1 and "bad.csv, line 3" in err
    rc, out, _ = run(capsys, "glossary", "stats", "--glossary", folder)
    assert json.loads(out)["entries"] == 2


def test_unknown_languages_are_asked_for(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("file\tDatei\n", encoding="utf-8")
    rc, _, err = run(capsys, "glossary", "import", tmp_path / "g.txt", "--glossary", tmp_path / "g")
    assert rc == 2 and "--src-lang" in err and err.count("\n") == 1
    rc, out, _ = run(capsys, "glossary", "import", tmp_path / "g.txt", "--glossary", tmp_path / "g",
                     "--src-lang", "en", "--tgt-lang", "de")
    assert rc == 0 and json.loads(out)["added"] == 1


def test_lookup_in_a_missing_glossary_is_one_line(tmp_path, capsys):
    rc, _, err = run(capsys, "glossary", "lookup", "--glossary", tmp_path / "none", "file")
    assert rc == 2 and "not a glossary" in err and err.count("\n") == 1


def test_export_to_an_unknown_format_is_refused(glossary, tmp_path, capsys):
    folder, _ = glossary
    rc, _, err = run(capsys, "glossary", "export", "--glossary", folder, "--out", tmp_path / "x.docx")
    assert rc == 2 and ".tbx" in err and not (tmp_path / "x.docx").exists()


def test_lookup_reads_markup_as_tags_and_gives_spans_in_the_text_as_typed(glossary, capsys):
    folder, _ = glossary
    text = "Start the <b>file</b> manager."
    rc, out, _ = run(capsys, "glossary", "lookup", "--glossary", folder, "--json", text)
    (h,) = json.loads(out)
    assert (h["text"], h["entry"]["source"]) == ("file</b> manager", "file manager")
    rc, out, _ = run(capsys, "glossary", "lookup", "--glossary", folder, "--json", "--markup", "none", text)
    assert [h["entry"]["source"] for h in json.loads(out)] == ["file"]  # "b" is a word then
