"""A Trados return package's SDLXLIFF files: valid against Trados' own SDLXLIFF schema where its files
are at hand, and never breaking what Trados' reader needs (engine.packages.sdlxliffcheck)."""
from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from datafiles import ROOT, data_file
from engine.cli import main
from engine.errors import FormatError
from engine.packages.sdlxliffcheck import CONF_VALUES, check_returned
from engine.store import Project

sys.path.insert(0, str(Path(__file__).parent))
from trados import sdlxliff_schema, write_sdlppx  # noqa: E402

OKAPI = ("format-samples", "okapi", "filters", "xliff", "src", "test", "resources")
SEGMENTED = ROOT / "tests" / "formats" / "fixtures" / "xliff-bytes" / "segmented.sdlxliff"
MEMBER = "de-DE/segmented.sdlxliff"


def _run(capsys, *args) -> tuple[int, dict, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if out.strip() else {}), err


@pytest.fixture
def opened(tmp_path, capsys) -> Path:
    pkg = write_sdlppx(tmp_path / "Acme.sdlppx", "en-US", {"de-DE": {"segmented.sdlxliff": SEGMENTED.read_bytes()}})
    assert _run(capsys, "package", "open", str(pkg), "--project", str(tmp_path / "P"))[0] == 0
    return tmp_path / "P"


def _returned(tmp_path, capsys, project: Path) -> bytes:
    rc, _, err = _run(capsys, "package", "return", str(project), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc == 0, err
    with zipfile.ZipFile(tmp_path / "r.sdlrpx") as z:
        return z.read(MEMBER)


def test_a_segment_left_unconfirmed_with_text_returns_a_confirmation_level_trados_reads(tmp_path, capsys, opened):
    with Project.open(opened) as p:
        segs = p.segments(p.documents()[0].id)
        p.set_target(segs[2].id, "Drei.", status="new")   # a target kept but not even a draft
        p.confirm(segs[0].id, "Eins!")
    data = _returned(tmp_path, capsys, opened)
    confs = re.findall(rb'conf="([^"]*)"', data)
    assert confs and all(c.decode() in CONF_VALUES for c in confs), confs
    check_returned(MEMBER, SEGMENTED.read_bytes(), data)


def test_returned_sdlxliff_validates_against_trados_schema(tmp_path, capsys, opened):
    schema = sdlxliff_schema(tmp_path)
    if schema is None:
        pytest.skip("Trados' SDLXLIFF schema files are absent (set VERSO_SDLXLIFF_XSD to their folder)")
    received = data_file(*OKAPI, "test2_es.xlf").read_bytes()
    assert schema.validate(etree.fromstring(received)), schema.error_log   # the schema takes Trados' own files
    with Project.open(opened) as p:
        for seg in p.segments(p.documents()[0].id):
            p.confirm(seg.id, seg.source.with_text(seg.source.text.upper()))
    data = _returned(tmp_path, capsys, opened)
    assert schema.validate(etree.fromstring(data)), schema.error_log


def _broken(old: bytes, new: bytes) -> bytes:
    data = SEGMENTED.read_bytes()
    assert old in data
    return data.replace(old, new, 1)


@pytest.mark.parametrize("old, new, said", [
    (b'<trans-unit id="u2">', b'<trans-unit id="u9">', "unit 'u2'"),
    (b'conf="Draft"', b'conf="NotTranslated"', "unit 'u1', segment '2': refused: conf=\"NotTranslated\""),
    (b'<sdl:seg id="3" origin="not-translated"/>', b'<sdl:seg id="4" origin="not-translated"/>',
     "unit 'u2': refused: segment '3' lost its sdl:seg"),
    (b'<mrk mtype="seg" mid="2">Zwei.</mrk>', b'<mrk mtype="seg" mid="7">Zwei.</mrk>',
     "unit 'u1': refused: target segment mid '7'"),
    (b'<source>Three.</source>', b'<source>Three!</source>', "unit 'u2': refused: its <source> changed"),
    (b'<value key="SDL:FileId">x</value>', b'<value key="SDL:FileId">y</value>', "<file> 1: refused: its <header>"),
    (b'origin="interactive"/>', b'origin="verso" percent="300"/>', "segment '1': refused: origin=\"verso\""),
])
def test_a_return_that_breaks_what_trados_reads_is_refused_naming_file_and_unit(old, new, said):
    with pytest.raises(FormatError) as e:
        check_returned(MEMBER, SEGMENTED.read_bytes(), _broken(old, new))
    assert str(e.value).startswith(f"{MEMBER}, ") and said in str(e.value) and "\n" not in str(e.value)


def test_values_the_agency_wrote_are_not_refused(tmp_path):
    odd = _broken(b'conf="Draft"', b'conf="Whatever"')
    check_returned(MEMBER, odd, odd)


def test_package_return_runs_the_check_and_writes_nothing_when_it_fails(tmp_path, capsys, opened, monkeypatch):
    with Project.open(opened) as p:
        seg = p.segments(p.documents()[0].id)[0]
        p.confirm(seg.id, "Eins!")
    real = Project.export_document

    def export_with_a_lost_unit(self, ref, out, **kw):
        got = real(self, ref, out, **kw)
        Path(out).write_bytes(re.sub(rb'<trans-unit id="u2">.*?</trans-unit>', b"", Path(out).read_bytes(), flags=re.S))
        return got

    monkeypatch.setattr(Project, "export_document", export_with_a_lost_unit)
    rc, _, err = _run(capsys, "package", "return", str(opened), "--out", str(tmp_path / "r.sdlrpx"))
    assert rc != 0 and f"{MEMBER}, unit 'u2'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.sdlrpx").exists()


def test_a_target_language_the_export_adds_to_a_file_without_one_is_not_refused():
    """A received <file> without target-language gets one from Verso's export (as Trados writes it):
    that is no change the check refuses; a different one than received still is."""
    data = SEGMENTED.read_bytes()
    sent = re.sub(rb' target-language="[^"]*"', b"", data, count=1)
    assert sent != data
    check_returned(MEMBER, sent, data)
    with pytest.raises(FormatError):
        check_returned(MEMBER, data, re.sub(rb'target-language="[^"]*"', b'target-language="fr-FR"', data, count=1))
