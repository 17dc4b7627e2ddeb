"""XLIFF 2.0: import, export, round trip, and the OASIS test suite."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from xmlcompare import element_c14n

from datafiles import SHARED_DATA, data_file
from engine.errors import FormatError
from engine.formats.base import Translation
from engine.formats.xliff20 import FORMAT
from engine.inline import TaggedText

NS = "{urn:oasis:names:tc:xliff:document:2.0}"

DOC = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de"
       xmlns:mda="urn:oasis:names:tc:xliff:metadata:2.0">
 <file id="f1">
  <skeleton href="ui.skl"/>
  <unit id="u1" name="dialog.title">
   <mda:metadata><mda:metaGroup><mda:meta type="k">v</mda:meta></mda:metaGroup></mda:metadata>
   <notes><note category="dev">Title of the save dialog</note></notes>
   <originalData><data id="d1">&lt;b&gt;</data><data id="d2">&lt;/b&gt;</data><data id="d3">&lt;br/&gt;</data></originalData>
   <segment id="s1" state="translated">
    <source>Save <pc id="1" dataRefStart="d1" dataRefEnd="d2">all</pc> files<ph id="2" dataRef="d3"/></source>
    <target>Alle <pc id="1" dataRefStart="d1" dataRefEnd="d2">Dateien</pc> speichern<ph id="2" dataRef="d3"/></target>
   </segment>
   <ignorable><source> </source></ignorable>
   <segment state="final">
    <source>Bell<cp hex="0007"/> and tab</source>
    <target>Glocke<cp hex="0007"/> und Tab</target>
   </segment>
  </unit>
  <group id="g1" translate="no">
   <unit id="u2"><segment><source>Not for translation</source></segment></unit>
   <unit id="u3" translate="yes">
    <segment id="a" state="initial"><source>See <sc id="1"/>chapter<ec startRef="1"/> and <mrk id="m1" type="term">terms</mrk>.</source></segment>
   </unit>
  </group>
  <unit id="u4">
   <segment id="x"><source>Plain</source><target></target></segment>
   <segment id="y" state="reviewed" subState="my:ok"><source>Done</source><target>Fertig</target></segment>
  </unit>
 </file>
</xliff>
"""


def _write(tmp_path: Path, text: str, name: str = "doc.xlf") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _by_key(doc):
    return {s.key: s for s in doc.segments}


# ----------------------------------------------------------------- reading
def test_reads_segments_keys_and_languages(tmp_path):
    doc = FORMAT.read(_write(tmp_path, DOC))
    assert doc.format == "xliff20" and (doc.src_lang, doc.tgt_lang) == ("en", "de")
    # segment id when present, 1-based index otherwise; ignorables are skipped; translate="no"
    # (inherited from the group, overridden by the unit) locks (tests/formats/test_xliff_locks.py)
    assert [s.key for s in doc.segments] == ["u1/s1", "u1/2", "u2/1", "u3/a", "u4/x", "u4/y"]
    assert [s.key for s in doc.segments if s.locked] == ["u2/1"]


def test_inline_codes_states_notes_context(tmp_path):
    segs = _by_key(FORMAT.read(_write(tmp_path, DOC)))
    s1 = segs["u1/s1"]
    assert s1.source.display() == "Save <pc1>all</pc1> files<ph2/>"
    assert s1.source.tags[0].original == '<pc id="1" dataRefStart="d1" dataRefEnd="d2">'
    assert s1.source.tags[2].original == '<ph id="2" dataRef="d3"/>'
    assert s1.target.display() == "Alle <pc1>Dateien</pc1> speichern<ph2/>"
    assert s1.target.tag_numbers() == [1, 2, 3]
    assert (s1.status, s1.meta["state"]) == ("draft", "translated")
    assert s1.note == "Title of the save dialog" and s1.context == "dialog.title"
    # <cp> is the character itself
    assert segs["u1/2"].source.text == "Bell\x07 and tab"
    assert segs["u1/2"].status == "confirmed"
    a = segs["u3/a"]
    assert a.source.display() == "See <sc1>chapter</sc1> and <mrk-m1>terms</mrk-m1>."
    assert a.source.tags[0].pair == a.source.tags[1].pair
    assert a.status == "new" and a.target is None
    assert segs["u4/x"].status == "new" and segs["u4/x"].target is None
    y = segs["u4/y"]
    assert (y.status, y.meta["state"], y.meta["subState"]) == ("confirmed", "reviewed", "my:ok")


def test_bad_code_point_is_a_format_error(tmp_path):
    p = _write(tmp_path, DOC.replace('hex="0007"', 'hex="zz"', 1))
    with pytest.raises(FormatError) as e:
        FORMAT.read(p)
    assert "doc.xlf" in str(e.value) and "line 16" in str(e.value)


def test_sniff_by_content():
    assert FORMAT.sniff(Path("a.txt"), DOC.encode()[:4096])
    assert FORMAT.sniff(Path("a.xlf"), DOC.encode("utf-16")[:4096])
    assert not FORMAT.sniff(Path("a.xlf"), b'<xliff version="1.2" '
                                           b'xmlns="urn:oasis:names:tc:xliff:document:1.2">')


def test_reading_xliff1_is_refused(tmp_path):
    p = _write(tmp_path, '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"/>')
    with pytest.raises(FormatError, match="not XLIFF 2"):
        FORMAT.read(p)


# ----------------------------------------------------------------- writing
def test_round_trip(tmp_path):
    src = _write(tmp_path, DOC)
    doc = FORMAT.read(src)
    statuses = ["confirmed", "confirmed", "confirmed", "draft", "draft"]
    free = [s for s in doc.segments if not s.locked]
    tr = {s.key: Translation(TaggedText("DE " + s.source.text, s.source.tags), st)
          for s, st in zip(free, statuses)}
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, tr)
    again = FORMAT.read(out)
    assert [s.key for s in again.segments] == [s.key for s in doc.segments]
    for a, b in zip(free, [s for s in again.segments if not s.locked]):
        assert b.source == a.source
        assert b.target.text == tr[a.key].target.text
        assert b.status == tr[a.key].status, a.key
        assert (b.note, b.context) == (a.note, a.context)
    tree = etree.parse(str(out))
    seg = tree.find(f".//{NS}segment[@id='s1']")
    assert seg.get("state") == "reviewed"
    tgt = seg.find(f"{NS}target")
    assert etree.tostring(tgt, encoding="unicode").split(">", 1)[1].startswith(
        'DE Save <pc id="1" dataRefStart="d1" dataRefEnd="d2">all</pc> files'
        '<ph id="2" dataRef="d3"/></target>')
    # the control character goes back as <cp>
    bell = tree.findall(f".//{NS}unit[@id='u1']/{NS}segment")[1].find(f"{NS}target")
    assert bell.find(f"{NS}cp").get("hex") == "0007"
    # a state that already means the status is kept ("final" is confirmed);
    # a changed state drops the now-stale subState
    y = tree.find(f".//{NS}segment[@id='y']")
    assert y.get("state") == "translated" and y.get("subState") is None
    assert tree.findall(f".//{NS}unit[@id='u1']/{NS}segment")[1].get("state") == "final"
    assert tree.find(f".//{NS}segment[@id='x']").get("state") == "translated"
    # ignorable, notes, metadata, originalData, skeleton and untranslatable units kept
    assert tree.find(f".//{NS}ignorable/{NS}source").text == " "
    assert tree.find(".//{urn:oasis:names:tc:xliff:metadata:2.0}meta").text == "v"
    assert tree.find(f".//{NS}data[@id='d3']").text == "<br/>"
    assert tree.find(f".//{NS}skeleton").get("href") == "ui.skl"
    assert tree.find(f".//{NS}unit[@id='u2']/{NS}segment/{NS}target") is None


def test_new_target_goes_after_source(tmp_path):
    src = _write(tmp_path, DOC)
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {"u3/a": Translation(TaggedText("Siehe"), "draft")})
    seg = etree.parse(str(out)).find(f".//{NS}segment[@id='a']")
    assert [etree.QName(c).localname for c in seg] == ["source", "target"]
    assert seg.get("state") == "translated"


def test_reordered_and_crossing_codes(tmp_path):
    src = _write(tmp_path, DOC)
    segs = _by_key(FORMAT.read(src))
    s1 = segs["u1/s1"].source
    o, c, ph = (t.char for t in s1.tags)
    out = tmp_path / "out.xlf"
    # crossing / reversed halves of a <pc> become <sc>/<ec> and stay valid XML
    # (an end before its start is two isolated halves: an <ec> needs its <sc> before it,
    # and the ids of a target are unique)
    FORMAT.write(src, out, {"u1/s1": Translation(TaggedText(f"{ph}A{c}B{o}C", s1.tags))})
    tgt = etree.parse(str(out)).find(f".//{NS}segment[@id='s1']/{NS}target")
    names = [(etree.QName(e).localname, e.get("id"), e.get("startRef"), e.get("isolated"),
              e.get("dataRef")) for e in tgt]
    assert names == [("ph", "2", None, None, "d3"), ("ec", "1-end", None, "yes", "d2"),
                     ("sc", "1", None, "yes", "d1")]
    FORMAT.read(out)  # valid XLIFF 2.0
    # only the opening half: an isolated <sc>
    FORMAT.write(src, out, {"u1/s1": Translation(TaggedText(f"A{o}B", s1.tags))})
    sc = etree.parse(str(out)).find(f".//{NS}segment[@id='s1']/{NS}target/{NS}sc")
    assert sc.get("isolated") == "yes"
    FORMAT.read(out)
    # <mrk> halves that cross become <sm>/<em>; a lone half is dropped
    a = segs["u3/a"].source
    sc_, ec_, mo, mc = (t.char for t in a.tags)
    FORMAT.write(src, out, {"u3/a": Translation(TaggedText(f"{mc}x{mo}{sc_}y{ec_}", a.tags))})
    tgt = etree.parse(str(out)).find(f".//{NS}segment[@id='a']/{NS}target")
    assert [etree.QName(e).localname for e in tgt] == ["em", "sm", "sc", "ec"]
    FORMAT.write(src, out, {"u3/a": Translation(TaggedText(f"x{mo}y", a.tags))})
    tgt = etree.parse(str(out)).find(f".//{NS}segment[@id='a']/{NS}target")
    assert len(tgt) == 0 and tgt.text == "xy"


def test_trglang_added_or_required(tmp_path):
    # without trgLang a file has no <target> (XLIFF 2.0 section 4.2.1.1)
    text = re.sub(r"<target>.*?</target>", "", DOC.replace(' trgLang="de"', ""), flags=re.S)
    assert "<target" not in text
    src = _write(tmp_path, text)
    tr = {"u4/x": Translation(TaggedText("Einfach"), "confirmed")}
    with pytest.raises(FormatError, match="trgLang"):
        FORMAT.write(src, tmp_path / "out.xlf", tr)
    FORMAT.write(src, tmp_path / "out.xlf", tr, tgt_lang="de-CH")
    doc = FORMAT.read(tmp_path / "out.xlf")
    assert doc.tgt_lang == "de-CH" and _by_key(doc)["u4/x"].target.text == "Einfach"


# ----------------------------------------------------------------- OASIS suite
SUITE = SHARED_DATA / "format-samples" / "xliff2-oasis-testsuite"


def _suite(*dirs: str) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        if (SUITE / d).is_dir():
            out += sorted((SUITE / d).glob("*.xlf"))
    return out


VALID = _suite("core/valid", "modules/valid", "core/in-out")
INVALID = _suite("core/invalid", "modules/invalid")


def _ids(paths):
    return [str(p.relative_to(SUITE)) for p in paths]


def test_suite_was_found(shared_data):
    assert len(VALID) >= 70 and len(INVALID) >= 160


@pytest.mark.data
@pytest.mark.parametrize("path", VALID, ids=_ids(VALID))
def test_every_valid_suite_file_imports_and_round_trips(path, tmp_path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    assert FORMAT.sniff(path, path.read_bytes()[:4096])
    doc = FORMAT.read(path)
    assert doc.problems == []
    tr = {s.key: Translation(TaggedText("T " + s.source.text, s.source.tags), "confirmed")
          for s in doc.segments}
    out = tmp_path / path.name
    FORMAT.write(path, out, tr, tgt_lang="de")
    again = FORMAT.read(out)
    assert [s.key for s in again.segments] == [s.key for s in doc.segments]
    for a, b in zip(doc.segments, again.segments):
        assert b.source.text == a.source.text
        assert b.target.text == tr[a.key].target.text
        assert b.status == "confirmed"


@pytest.mark.data
@pytest.mark.parametrize("path", INVALID, ids=_ids(INVALID))
def test_every_invalid_suite_file_imports_or_raises_format_error(path):
    path = data_file(*path.relative_to(SHARED_DATA).parts)
    try:
        doc = FORMAT.read(path)
    except FormatError as e:
        assert path.name in str(e)
        return
    assert all(s.key for s in doc.segments)


@pytest.mark.data
def test_suite_sample_with_glossary_and_code_point():
    doc = FORMAT.read(data_file("format-samples", "xliff2-oasis-testsuite", "core", "valid",
                                "sample1.xlf"))
    seg, = doc.segments
    assert seg.key == "1/1"
    assert seg.source.display().split() == ["Press", "the", "<mrk-m1>TAB", "key</mrk-m1>."]
    assert seg.target.display().startswith("Drücken Sie die <mrk-m1>TAB-TASTE</mrk-m1>")


# ------------------------------------------- untouched segments, target-only codes
TARGET_CODES = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1">
   <segment id="s1" state="translated">
    <source>See <mrk id="m1" type="comment" value="check">the terms</mrk> here. </source>
    <target>Siehe <mrk id="m9" type="term" value="Begriff">die Begriffe</mrk><ph id="7"/> hier. </target>
   </segment>
   <segment id="s2">
    <source>Untouched one. </source>
    <target>Unberührt.  </target>
   </segment>
  </unit>
  <unit id="u2">
   <segment><source>Other.</source><target>Andere. </target></segment>
  </unit>
 </file>
</xliff>
"""


def _segments(path: Path) -> list:
    return list(etree.parse(str(path)).iter(f"{NS}segment"))


def test_edited_target_keeps_its_own_mrk_ids_types_and_target_only_codes(tmp_path):
    src = _write(tmp_path, TARGET_CODES)
    seg = _by_key(FORMAT.read(src))["u1/s1"]
    assert seg.target.display() == "Siehe <mrk-m1>die Begriffe</mrk-m1><ph7/> hier."
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {"u1/s1": Translation(
        seg.target.with_text(seg.target.text.replace("hier", "dort")), "confirmed")})
    s1, s2, other = _segments(out)
    target = etree.tostring(s1.find(f"{NS}target"), encoding="unicode", with_tail=False)
    assert target.split(">", 1)[1] == ('Siehe <mrk id="m9" type="term" value="Begriff">die Begriffe'
                                       '</mrk><ph id="7"/> dort. </target>')  # trailing space kept
    assert s1.get("state") == "reviewed"
    before = _segments(src)
    assert (element_c14n(s2), element_c14n(other)) == (element_c14n(before[1]), element_c14n(before[2]))


def test_untouched_segments_get_no_state_and_keep_their_spaces(tmp_path):
    src = _write(tmp_path, TARGET_CODES)
    doc = FORMAT.read(src)
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {}, tgt_lang="de")
    assert etree.tostring(etree.parse(str(out)), method="c14n2") == \
        etree.tostring(etree.parse(str(src)), method="c14n2")
    # passing every segment back as read changes nothing either
    FORMAT.write(src, out, {s.key: Translation(s.target, s.status) for s in doc.segments})
    s1, s2, other = _segments(out)
    assert s2.get("state") is None and s2.find(f"{NS}target").text == "Unberührt.  "
    assert other.find(f"{NS}target").text == "Andere. "
    assert etree.tostring(etree.parse(str(out)), method="c14n2") == \
        etree.tostring(etree.parse(str(src)), method="c14n2")


def test_no_trglang_is_added_when_nothing_is_written(tmp_path):
    src = _write(tmp_path, TARGET_CODES.replace(' trgLang="de"', ""))
    FORMAT.write(src, tmp_path / "out.xlf", {}, tgt_lang="de")
    assert etree.parse(str(tmp_path / "out.xlf")).getroot().get("trgLang") is None


def test_private_use_character_is_kept_through_import_edit_export(tmp_path):
    src = _write(tmp_path, """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1"><segment id="1"><source>\uf0a7 Item one</source><target>\uf0a7 Punkt eins</target></segment></unit>
  <unit id="u2"><segment id="1"><source>Logo <cp hex="F0A7"/> here</source></segment></unit>
 </file>
</xliff>
""")
    segs = _by_key(FORMAT.read(src))
    assert segs["u1/1"].source.display() == "<U+F0A7/> Item one"
    assert segs["u1/1"].target.display() == "<U+F0A7/> Punkt eins"
    assert segs["u2/1"].source.display() == "Logo <U+F0A7/> here"
    out = tmp_path / "out.xlf"
    t1 = segs["u1/1"].target
    FORMAT.write(src, out, {
        "u1/1": Translation(t1.with_text(t1.text.replace("eins", "1")), "confirmed"),
        "u2/1": Translation(segs["u2/1"].source.with_text(
            segs["u2/1"].source.text.replace("here", "hier")), "confirmed"),
    })
    raw = out.read_text(encoding="utf-8")
    assert "<target>\uf0a7 Punkt 1</target>" in raw
    assert "<target>Logo \uf0a7 hier</target>" in raw and "\ufffd" not in raw
    again = _by_key(FORMAT.read(out))
    assert again["u2/1"].target.display() == "Logo <U+F0A7/> hier"
