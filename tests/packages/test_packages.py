"""`verso package open/return`: an agency's Trados/memoQ package in, the return package out."""
from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import pytest

from datafiles import ROOT, data_file
from engine.cli import main
from engine.inline import TaggedText
from engine.store import Project

sys.path.insert(0, str(Path(__file__).parent))
from trados import without_return_marks, write_sdlppx, write_sdltm  # noqa: E402

OKAPI = ("format-samples", "okapi", "filters", "xliff", "src", "test", "resources")
FIXTURES = ROOT / "tests" / "formats" / "fixtures" / "xliff-bytes"
TBX = b"""<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX" xml:lang="en"><martifHeader><fileDesc><sourceDesc><p>t</p></sourceDesc></fileDesc></martifHeader>
<text><body><termEntry id="c1"><langSet xml:lang="en-US"><tig><term>file</term></tig></langSet>
<langSet xml:lang="es-ES"><tig><term>archivo</term></tig></langSet></termEntry></body></text></martif>"""


def _run(capsys, *args) -> tuple[int, dict, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if out.strip() else {}), err


@pytest.fixture
def sdlppx(tmp_path) -> Path:
    es = data_file(*OKAPI, "test2_es.xlf").read_bytes()
    de = (FIXTURES / "segmented.sdlxliff").read_bytes()
    tm = write_sdltm(tmp_path / "Client.sdltm", [("Open the file.", "Abra el archivo.")], tgt="es-ES")
    return write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"es-ES": {"test2_es.xlf.sdlxliff": es},
                                                          "de-DE": {"segmented.sdlxliff": de}},
                        extra={"Tm/es-ES/Client.sdltm": tm.read_bytes(), "Termbases/Client.tbx": TBX,
                               "Reports/Analyze Files en-US_es-ES.xml": b"<report/>"})


def test_sdlppx_opens_as_a_project_with_its_files_tm_termbase_and_instructions(tmp_path, capsys, sdlppx):
    rc, res, err = _run(capsys, "package", "open", str(sdlppx), "--project", str(tmp_path / "P"))
    assert rc == 0, err
    assert (res["src_lang"], res["tgt_lang"]) == ("en-US", "es-ES")
    assert [d["member"] for d in res["documents"]] == ["es-ES/test2_es.xlf.sdlxliff"]
    assert "Use the client's glossary" in err and "2026-12-04T16:00:00Z" in err
    assert "de-DE/segmented.sdlxliff: another target language; skipped" in err
    with Project.open(tmp_path / "P") as p:
        assert [r.writable for r in p.tm_refs()] == [False] and [r.writable for r in p.glossary_refs()] == [False]
        doc = p.documents()[0]
        out = tmp_path / "untouched.sdlxliff"
        p.export_document(doc.id, out)
        assert out.read_bytes() == data_file(*OKAPI, "test2_es.xlf").read_bytes()
    rc, hits, _ = _run(capsys, "tm", "search", "--tm", str(tmp_path / "P" / res["tms"][0]["tm"]), "--json",
                       "Open the file.")
    assert hits[0]["target"] == "Abra el archivo."


def test_sdlrpx_holds_only_the_worked_file_and_the_project_file_marked_returned(tmp_path, capsys, sdlppx):
    assert _run(capsys, "package", "open", str(sdlppx), "--project", str(tmp_path / "P"))[0] == 0
    rc, _, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc == 2 and "nothing to return" in err and not (tmp_path / "r.sdlrpx").exists()
    with Project.open(tmp_path / "P") as p:
        seg = p.segments(p.documents()[0].id)[0]
        p.confirm(seg.id, seg.source.with_text(seg.source.text.replace("a", "á", 1)))
    rc, res, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc == 0, err
    with zipfile.ZipFile(tmp_path / "r.sdlrpx") as z, zipfile.ZipFile(sdlppx) as rec:
        assert z.namelist() == ["Acme manuals.sdlproj", "es-ES/test2_es.xlf.sdlxliff"]
        proj, before = z.read("Acme manuals.sdlproj"), rec.read("Acme manuals.sdlproj")
        assert b'PackageType="ReturnPackage"' in proj and b'Status="Completed"' in proj
        assert without_return_marks(proj) == without_return_marks(before)   # nothing else changed
        assert z.read("es-ES/test2_es.xlf.sdlxliff") != data_file(*OKAPI, "test2_es.xlf").read_bytes()


def test_return_with_a_tag_error_is_refused_naming_the_segment_and_writes_nothing(tmp_path, capsys, sdlppx):
    assert _run(capsys, "package", "open", str(sdlppx), "--project", str(tmp_path / "P"))[0] == 0
    with Project.open(tmp_path / "P") as p:
        seg = next(s for s in p.segments(p.documents()[0].id) if s.source.tags)
        p.confirm(seg.id, TaggedText("sin etiquetas"))
    rc, _, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc == 3 and f"segment {seg.idx + 1}" in err and not (tmp_path / "r.sdlrpx").exists()


def test_a_damaged_package_record_is_named_as_damaged_not_as_no_package(tmp_path, capsys, sdlppx):
    """A project opened from a package whose record no longer reads (a key lost, edited by hand)
    is told so in one line, not that it was never opened from a package."""
    assert _run(capsys, "package", "open", str(sdlppx), "--project", str(tmp_path / "P"))[0] == 0
    with Project.open(tmp_path / "P") as p:
        rec = json.loads(p.setting("package"))
        del rec["received"]
        p.set_setting("package", json.dumps(rec))
    rc, _, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc == 2 and "package record" in err and "received" in err and "not opened" not in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "r.sdlrpx").exists()


@pytest.mark.parametrize("member", ["../evil.sdlxliff", "/abs.sdlxliff"])
def test_package_with_a_member_outside_it_is_refused_and_leaves_no_project(tmp_path, capsys, member):
    bad = tmp_path / "bad.sdlppx"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("x.sdlproj", "<Project/>")
        z.writestr(member, "x")
    rc, _, err = _run(capsys, "package", "open", str(bad), "--project", str(tmp_path / "P"))
    assert rc == 2 and "bad.sdlppx" in err and "outside" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "P").exists()


def test_zip_bomb_package_is_refused_in_one_line(tmp_path, capsys):
    bomb = tmp_path / "bomb.mqout"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("doc.mqxliff", b"\0" * (300 << 20))
    rc, _, err = _run(capsys, "package", "open", str(bomb), "--project", str(tmp_path / "P"))
    assert rc == 2 and "zip bomb" in err and not (tmp_path / "P").exists()


def _mqxlz(path: Path) -> Path:
    doc = data_file(*OKAPI, "MQ-12-Test01.xlf").read_bytes()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("document.mqxliff", doc)
        z.writestr("skeleton", b"PK-skeleton-bytes\x00\x01")
    return path


def test_mqxlz_returns_as_mqxlz_with_its_skeleton_byte_for_byte(tmp_path, capsys):
    pkg = _mqxlz(tmp_path / "guide.mqxlz")
    rc, res, err = _run(capsys, "package", "open", str(pkg), "--project", str(tmp_path / "P"))
    assert rc == 0, err
    assert (res["src_lang"], res["tgt_lang"]) == ("en", "fr")
    with Project.open(tmp_path / "P") as p:
        seg = p.segments(p.documents()[0].id)[0]
        p.confirm(seg.id, seg.source.with_text("Bonjour " + seg.source.text))
    rc, res, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "back.mqxlz"))
    assert rc == 0, err
    with zipfile.ZipFile(tmp_path / "back.mqxlz") as z:
        assert z.namelist() == ["document.mqxliff", "skeleton"]
        assert z.read("skeleton") == b"PK-skeleton-bytes\x00\x01" and b"Bonjour" in z.read("document.mqxliff")


def test_mqout_returns_as_mqback_with_only_the_worked_document(tmp_path, capsys):
    inner = _mqxlz(tmp_path / "guide.mqxlz").read_bytes()
    pkg = tmp_path / "job.mqout"
    with zipfile.ZipFile(pkg, "w") as z:
        z.writestr("Documents/guide.mqxlz", inner)
        z.writestr("Documents/other.mqxlz", inner)
        z.writestr("TMs/client.tmx", b'<?xml version="1.0"?><tmx version="1.4"><header srclang="en" '
                                     b'segtype="sentence" o-tmf="x" adminlang="en" datatype="plaintext" '
                                     b'creationtool="x" creationtoolversion="1"/><body><tu><tuv xml:lang="en">'
                                     b'<seg>Hello</seg></tuv><tuv xml:lang="fr"><seg>Bonjour</seg></tuv></tu>'
                                     b'</body></tmx>')
    rc, res, err = _run(capsys, "package", "open", str(pkg), "--project", str(tmp_path / "P"))
    assert rc == 0, err
    assert len(res["documents"]) == 2 and res["tms"][0]["units"] == 1
    with Project.open(tmp_path / "P") as p:
        seg = p.segments(p.documents()[0].id)[0]
        p.confirm(seg.id, seg.source.with_text("Bonjour " + seg.source.text))
    rc, res, err = _run(capsys, "package", "return", str(tmp_path / "P"), "--out", str(tmp_path / "job.mqback"))
    assert rc == 0, err
    with zipfile.ZipFile(tmp_path / "job.mqback") as z:
        assert z.namelist() == ["Documents/guide.mqxlz"]


@pytest.mark.parametrize("tgt, mine, other", [("es-ES", "es-ES/test2_es.xlf.sdlxliff", "de-DE/segmented.sdlxliff"),
                                              ("de", "de-DE/segmented.sdlxliff", "es-ES/test2_es.xlf.sdlxliff")])
def test_tgt_lang_opens_that_targets_files_and_lists_the_others_as_skipped(tmp_path, capsys, sdlppx, tgt, mine,
                                                                           other):
    rc, res, err = _run(capsys, "package", "open", str(sdlppx), "--project", str(tmp_path / tgt), "--tgt-lang", tgt)
    assert rc == 0, err
    assert res["tgt_lang"].startswith(tgt[:2]) and [d["member"] for d in res["documents"]] == [mine]
    assert f"{other}: another target language; skipped" in err
    with Project.open(tmp_path / tgt) as p:
        assert p.tgt_lang.startswith(tgt[:2]) and [d.name for d in p.documents()] == [mine]
        assert [ref.writable for ref in p.tm_refs()] == ([False] if tgt == "es-ES" else [])   # es-ES's TM only
        assert len(p.glossary_refs()) == (1 if tgt == "es-ES" else 0)
    if tgt != "es-ES":
        assert "Tm/es-ES/Client.sdltm: a TM for en-US -> es-ES" in err and "Termbases/Client.tbx: no target terms" in err


def test_tgt_lang_the_package_lacks_is_refused_naming_the_ones_it_has(tmp_path, capsys, sdlppx):
    rc, _, err = _run(capsys, "package", "open", str(sdlppx), "--project", str(tmp_path / "P"), "--tgt-lang", "fr")
    assert rc != 0 and "Acme.sdlppx" in err and "fr" in err and "es-ES, de-DE" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "P").exists()
