"""XLIFF 2.0 validity (issue 36 item 6): a file that breaks the core structure or
its constraints is refused at import, naming file and line; every valid file of
the OASIS conformance suite imports, every invalid one is refused; what the writer
writes is valid."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from lxml import etree

from datafiles import SHARED_DATA
from engine.errors import FormatError
from engine.formats import read_document
from engine.formats.base import Translation
from engine.formats.xliff20 import FORMAT

FIXTURES = Path(__file__).parent / "fixtures"
SUITE = SHARED_DATA / "format-samples" / "xliff2-oasis-testsuite"
NS = "{urn:oasis:names:tc:xliff:document:2.0}"


@pytest.mark.parametrize("name, message", [
    ("unit_without_id", "<unit> has no 'id' attribute"),
    ("duplicate_unit_id", "unit id 'menu.save' is not unique"),
    ("duplicate_segment_id", "segment id 's1' is not unique"),
    ("sc_without_ec", "<sc id='1'> has no <ec>"),
    ("ec_without_sc", "<ec startRef='7'> has no <sc> before it"),
    ("target_without_trglang", "a <target> needs trgLang"),
    ("sc_without_ec_in_partial_target", "<sc id='1'> has no <ec> in its unit"),
    ("extension_after_notes", "<mda:metadata> is out of place in <unit>: it belongs before <notes>"),
    ("undefined_core_element", "<x> is not allowed here in <segment>"),
])
def test_invalid_fixture_is_refused_naming_file_and_line(name, message):
    path = FIXTURES / "xliff20_invalid" / f"{name}.xlf"
    with pytest.raises(FormatError) as e:
        FORMAT.read(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    assert re.search(r", line \d+: not valid XLIFF 2.0: ", text) and message in text


def test_codes_paired_across_segments_and_an_isolated_sc_in_a_partial_target_are_valid():
    doc = FORMAT.read(FIXTURES / "xliff20_valid_codes.xlf")
    assert [s.key for s in doc.segments] == ["u1/s1", "u1/s2"]


# ----------------------------------------------------------- the writer's output
PAIRED = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1">
   <originalData><data id="d1">&lt;b&gt;</data><data id="d2">&lt;/b&gt;</data></originalData>
   <segment id="s1"><source>Press <sc id="1" dataRef="d1"/>Enter. </source></segment>
   <segment id="s2"><source>Then wait.<ec startRef="1" dataRef="d2"/></source></segment>
  </unit>
  <unit id="u2"><segment><source>Other.</source></segment></unit>
 </file>
</xliff>
"""


def _codes(path: Path) -> list[tuple]:
    return [(etree.QName(e).localname, e.get("id"), e.get("startRef"), e.get("isolated"))
            for t in etree.parse(str(path)).iter(f"{NS}target") for e in t]


def test_a_code_pair_across_segments_translated_one_by_one_stays_valid(tmp_path):
    src = tmp_path / "paired.xlf"
    src.write_text(PAIRED, encoding="utf-8")
    segs = {s.key: s for s in FORMAT.read(src).segments}
    first, second = tmp_path / "first.xlf", tmp_path / "second.xlf"
    s1, s2 = segs["u1/s1"].source, segs["u1/s2"].source
    FORMAT.write(src, first, {"u1/s1": Translation(s1.with_text("Drücken " + s1.text), "draft")})
    # the <ec> is in a segment without a target yet: the target's <sc> is isolated
    assert _codes(first) == [("sc", "1", None, "yes")]
    assert FORMAT.read(first).segments[0].target.text.startswith("Drücken")
    FORMAT.write(first, second, {"u1/s2": Translation(s2.with_text("Warten." + s2.text[-1]),
                                                      "draft")})
    # now both halves are in the targets: paired again, the first target's <sc> rejoined
    assert _codes(second) == [("sc", "1", None, None), ("ec", None, "1", None)]
    FORMAT.read(second)
    # and the same pair written in one go
    both = tmp_path / "both.xlf"
    FORMAT.write(src, both, {"u1/s1": Translation(s1, "draft"), "u1/s2": Translation(s2, "draft")})
    assert _codes(both) == [("sc", "1", None, None), ("ec", None, "1", None)]
    # only the second: its <ec> is isolated, with the id of its <sc>
    only2 = tmp_path / "only2.xlf"
    FORMAT.write(src, only2, {"u1/s2": Translation(s2, "draft")})
    assert _codes(only2) == [("ec", "1", None, "yes")]
    FORMAT.read(only2)
    FORMAT.write(only2, second, {"u1/s1": Translation(s1, "draft")})
    assert _codes(second) == [("sc", "1", None, None), ("ec", None, "1", None)]
    FORMAT.read(second)
    # bytes outside the unit are the original's
    assert second.read_text().split('<unit id="u2">')[1] == PAIRED.split('<unit id="u2">')[1]


# ----------------------------------------------------------- the OASIS suite
def _files(d: str) -> list[Path]:
    return sorted((SUITE / d).glob("*.xlf"))


def _refused(path: Path) -> str:
    try:
        read_document(path)  # as File ▸ Import Document reads it: detection first
    except FormatError as e:
        assert path.name in str(e) and "\n" not in str(e)
        return str(e)
    return ""


def test_the_whole_suite_valid_accepted_invalid_refused(shared_data, capsys):
    folders = ("core/valid", "modules/valid", "core/invalid", "modules/invalid")
    if not any(_files(d) for d in folders):
        pytest.skip(f"OASIS XLIFF 2.0 suite not found at {SUITE}")
    wrong = []
    for d in folders:
        files = _files(d)
        refused = [p for p in files if _refused(p)]
        with capsys.disabled():
            print(f"\n{d}: {len(refused)} of {len(files)} refused")
        want = refused if d.endswith("/valid") else [p for p in files if p not in refused]
        wrong += [f"{d}/{p.name}" for p in want]
    assert wrong == []
