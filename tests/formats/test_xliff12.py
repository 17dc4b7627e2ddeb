"""XLIFF 1.2 (and 1.0/1.1, SDLXLIFF, mqxliff): import, export, round trip."""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from xmlcompare import element_c14n

from datafiles import SHARED_DATA, data_file

from engine.errors import FormatError
from engine.formats.base import Translation
from engine.formats.xliff12 import FORMAT, SDL_NS
from engine.inline import TaggedText

NS = "{urn:oasis:names:tc:xliff:document:1.2}"

DOC = """<?xml version="1.0" encoding="UTF-8"?>
<!-- exported by a test -->
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:x="urn:example:ext">
 <file original="ui.html" source-language="en-us" datatype="html">
  <header><skl><external-file href="ui.skl"/></skl></header>
  <body>
   <trans-unit id="save" resname="btn.save">
    <source>Click <g id="1" ctype="bold">Save</g> to keep <x id="2" ctype="lb"/>your work.</source>
    <note from="dev">Button label</note>
    <x:extra>keep me</x:extra>
   </trans-unit>
   <trans-unit id="skip" translate="no">
    <source>Do not translate</source>
   </trans-unit>
   <group translate="no">
    <trans-unit id="skip2"><source>Also not</source></trans-unit>
   </group>
   <trans-unit id="done">
    <source>Open the <bpt id="1">&lt;a href="x"&gt;</bpt>menu<ept id="1">&lt;/a&gt;</ept>.</source>
    <target state="translated">Öffnen Sie das <bpt id="1">&lt;a href="x"&gt;</bpt>Menü<ept id="1">&lt;/a&gt;</ept>.</target>
    <alt-trans match-quality="80"><source>Open the menu</source><target>Menü öffnen</target></alt-trans>
   </trans-unit>
   <trans-unit id="review">
    <source>Line   one
      continues</source>
    <target state="needs-review-translation">Zeile eins geht weiter</target>
   </trans-unit>
   <trans-unit id="ok" approved="yes">
    <source>Approved</source>
    <target>Genehmigt</target>
   </trans-unit>
   <trans-unit id="codes">
    <source><ph id="1">{0}</ph> of <it id="2" pos="open">&lt;i&gt;</it>many <mrk mtype="term">files</mrk></source>
   </trans-unit>
   <trans-unit id="tagsonly"><source><x id="1"/> </source></trans-unit>
   <trans-unit id="dup"><source>First dup</source></trans-unit>
   <trans-unit id="dup"><source>Second dup</source></trans-unit>
   <trans-unit><source>No id</source></trans-unit>
  </body>
 </file>
</xliff>
"""

SEGMENTED = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="a.txt" source-language="en" target-language="de" datatype="plaintext">
  <body>
   <trans-unit id="p1">
    <source>Hello world. <g id="1">Bye</g> now.</source>
    <seg-source><mrk mtype="seg" mid="1">Hello world.</mrk> <mrk mtype="seg" mid="2"><g id="1">Bye</g> now.</mrk></seg-source>
   </trans-unit>
   <trans-unit id="p2">
    <source>One. Two.</source>
    <seg-source><mrk mtype="seg" mid="a">One.</mrk> <mrk mtype="seg" mid="b">Two.</mrk></seg-source>
    <target state="needs-review-translation"><mrk mtype="seg" mid="a">Eins.</mrk> <mrk mtype="seg" mid="b"></mrk></target>
   </trans-unit>
  </body>
 </file>
</xliff>
"""


def _write(tmp_path: Path, text: str, name: str = "doc.xlf", encoding: str = "utf-8") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return p


def _by_key(doc):
    return {s.key: s for s in doc.segments}


def _translate_all(doc, prefix="DE ", status="confirmed"):
    return {s.key: Translation(TaggedText(prefix + s.source.text, s.source.tags), status)
            for s in doc.segments}


# ----------------------------------------------------------------- reading
def test_reads_units_languages_and_locks_untranslatable(tmp_path):
    doc = FORMAT.read(_write(tmp_path, DOC), tgt_lang="de-de")
    assert doc.format == "xliff12"
    assert (doc.src_lang, doc.tgt_lang) == ("en-US", "de-DE")
    keys = [s.key for s in doc.segments]
    assert keys == ["save", "skip", "skip2", "done", "review", "ok", "codes", "dup", "dup~2", "tu11"]
    # translate="no" on the unit or its group locks (tests/formats/test_xliff_locks.py); a unit
    # with only a code is not a segment
    assert [s.key for s in doc.segments if s.locked] == ["skip", "skip2"] and "tagsonly" not in keys


def test_inline_codes_become_tags_with_original_markup(tmp_path):
    segs = _by_key(FORMAT.read(_write(tmp_path, DOC)))
    save = segs["save"].source
    assert save.display() == "Click <g1>Save</g1> to keep <x2/>your work."
    assert [t.kind for t in save.tags] == ["open", "close", "ph"]
    assert save.tags[0].original == '<g id="1" ctype="bold">'
    assert save.tags[1].original == "</g>"
    assert save.tags[2].original == '<x id="2" ctype="lb"/>'
    assert save.original() == ('Click <g id="1" ctype="bold">Save</g> to keep '
                               '<x id="2" ctype="lb"/>your work.')
    done = segs["done"].source
    assert done.tags[0].original == '<bpt id="1">&lt;a href="x"&gt;</bpt>'
    assert (done.tags[0].kind, done.tags[1].kind) == ("open", "close")
    assert done.tags[0].pair == done.tags[1].pair
    codes = segs["codes"].source
    assert codes.plain() == " of many files"
    assert [t.label for t in codes.tags] == ["ph1", "it2", "mrk", "mrk"]


def test_targets_status_notes_context(tmp_path):
    segs = _by_key(FORMAT.read(_write(tmp_path, DOC)))
    assert segs["save"].target is None and segs["save"].status == "new"
    assert segs["save"].note == "Button label"
    assert segs["save"].context == "btn.save"
    done = segs["done"]
    assert done.status == "confirmed" and done.meta["state"] == "translated"
    # the target's codes are the source's tag numbers
    assert done.target.text == "Öffnen Sie das \ue001Menü\ue002."
    assert done.target.tags[0].original == done.source.tags[0].original
    review = segs["review"]
    assert review.status == "draft" and review.meta["state"] == "needs-review-translation"
    # default xml:space: whitespace runs collapse
    assert review.source.text == "Line one continues"
    assert segs["ok"].status == "confirmed" and segs["ok"].meta["approved"] == "yes"


def test_target_codes_in_other_order_keep_source_numbers(tmp_path):
    p = _write(tmp_path, """<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file source-language="en" target-language="de"><body>
<trans-unit id="1"><source>A <g id="1">b</g> <x id="2"/> c</source>
<target>C <x id="2"/> <g id="1">B</g> a <x id="9"/></target></trans-unit>
</body></file></xliff>""")
    seg = FORMAT.read(p).segments[0]
    assert seg.target.display() == "C <x2/> <g1>B</g1> a <x9/>"
    assert seg.target.tag_numbers() == [3, 1, 2, 4]  # x9 is unknown to the source: new number


def test_segmented_units_give_one_segment_per_mrk(tmp_path):
    doc = FORMAT.read(_write(tmp_path, SEGMENTED))
    segs = _by_key(doc)
    assert list(segs) == ["p1#1", "p1#2", "p2#a", "p2#b"]
    assert segs["p1#2"].source.display() == "<g1>Bye</g1> now."
    assert segs["p2#a"].target.text == "Eins." and segs["p2#a"].status == "draft"
    assert segs["p2#b"].target is None and segs["p2#b"].status == "new"
    assert segs["p1#1"].meta["mid"] == "1"


def test_preserve_space_keeps_whitespace(tmp_path):
    p = _write(tmp_path, """<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file source-language="en"><body>
<trans-unit id="1" xml:space="preserve"><source>  two  spaces </source></trans-unit>
</body></file></xliff>""")
    assert FORMAT.read(p).segments[0].source.text == "  two  spaces "


def test_not_xliff_and_missing_source(tmp_path):
    with pytest.raises(FormatError) as e:
        FORMAT.read(_write(tmp_path, "<tmx version='1.4'><body/></tmx>", "x.xlf"))
    assert "x.xlf" in str(e.value) and "root element is <tmx>" in str(e.value)
    p = _write(tmp_path, """<xliff version="1.2"><file><body>
<trans-unit id="a"><target>t</target></trans-unit>
<trans-unit id="b"><source>fine</source></trans-unit></body></file></xliff>""")
    doc = FORMAT.read(p)
    assert [s.key for s in doc.segments] == ["b"]
    assert len(doc.problems) == 1 and "'a'" in doc.problems[0] and "line 2" in doc.problems[0]


def test_sniff_by_content(tmp_path):
    head12 = DOC.encode()[:4096]
    assert FORMAT.sniff(Path("noext.txt"), head12)
    assert not FORMAT.sniff(Path("a.xlf"), b'<?xml version="1.0"?><xliff version="2.0" '
                                           b'xmlns="urn:oasis:names:tc:xliff:document:2.0">')
    assert FORMAT.sniff(Path("x.sdlxliff"), '<?xml version="1.0"?><xliff version="1.2">'
                        .encode("utf-16"))
    assert not FORMAT.sniff(Path("a.tmx"), b"<tmx version='1.4'>")


# ----------------------------------------------------------------- writing
def test_round_trip_keeps_structure(tmp_path):
    src = _write(tmp_path, DOC)
    doc = FORMAT.read(src)
    tr = _translate_all(doc)
    tr["review"] = Translation(TaggedText("Zeile eins"), "draft")
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, tr, tgt_lang="de-DE")
    again = FORMAT.read(out)
    assert [s.key for s in again.segments] == [s.key for s in doc.segments]
    for a, b in zip(doc.segments, again.segments):
        assert b.source == a.source
        assert b.note == a.note and b.context == a.context
        assert b.target.text == tr[a.key].target.text
        assert b.status == tr[a.key].status, a.key
    assert again.tgt_lang == "de-DE"  # target-language added
    tree = etree.parse(str(out))
    unit = tree.find(f".//{NS}trans-unit[@id='save']")
    # tags come back as the source's elements, in the right place
    tgt = unit.find(f"{NS}target")
    assert etree.tostring(tgt, encoding="unicode").split(">", 1)[1].startswith(
        'DE Click <g id="1" ctype="bold">Save</g> to keep <x id="2" ctype="lb"/>your work.')
    # target inserted right after source; note and extension kept
    assert [etree.QName(c).localname for c in unit] == ["source", "target", "note", "extra"]
    done = tree.find(f".//{NS}trans-unit[@id='done']")
    assert done.find(f"{NS}alt-trans/{NS}target").text == "Menü öffnen"
    assert tree.find(f".//{NS}trans-unit[@id='review']/{NS}target").get("state") == \
        "needs-review-translation"
    # "translated" already means confirmed: the raw value is kept
    assert done.find(f"{NS}target").get("state") == "translated"
    assert tree.find(f".//{NS}external-file").get("href") == "ui.skl"


def test_untouched_units_and_prolog_survive(tmp_path):
    src = _write(tmp_path, DOC)
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {"save": Translation(TaggedText("Speichern"), "confirmed")})
    raw = out.read_bytes()
    assert raw.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!-- exported by a test -->\n')
    before = etree.parse(str(src)).getroot()
    after = etree.parse(str(out)).getroot()
    units_b = before.findall(f".//{NS}trans-unit")
    units_a = after.findall(f".//{NS}trans-unit")
    assert len(units_a) == len(units_b)
    for ub, ua in zip(units_b, units_a):
        if ub.get("id") != "save":
            assert etree.tostring(ua) == etree.tostring(ub)
    # no target-language given and none in the file: none invented
    assert after.find(f"{NS}file").get("target-language") is None


def test_moved_and_crossing_tags_stay_well_formed(tmp_path):
    src = _write(tmp_path, DOC)
    save = _by_key(FORMAT.read(src))["save"].source
    g_open, g_close, x = (t.char for t in save.tags)
    out = tmp_path / "out.xlf"
    # x moved first; g pair kept around new text
    FORMAT.write(src, out, {"save": Translation(TaggedText(
        f"{x}Klicken Sie {g_open}Speichern{g_close}.", save.tags), "confirmed")})
    tgt = etree.parse(str(out)).find(f".//{NS}trans-unit[@id='save']/{NS}target")
    assert [c.tag for c in tgt] == [f"{NS}x", f"{NS}g"]
    assert tgt[1].text == "Speichern" and tgt[1].get("ctype") == "bold"
    # closing before opening: the halves become <bx>/<ex> rather than broken XML
    FORMAT.write(src, out, {"save": Translation(TaggedText(
        f"A{g_close}B{g_open}C", save.tags), "confirmed")})
    tgt = etree.parse(str(out)).find(f".//{NS}trans-unit[@id='save']/{NS}target")
    assert [(etree.QName(c).localname, c.get("rid")) for c in tgt] == [("ex", "1"), ("bx", "1")]
    seg = _by_key(FORMAT.read(out))["save"]
    assert seg.target.plain() == "ABC" and seg.target.tag_count == 2


def test_segmented_export(tmp_path):
    src = _write(tmp_path, SEGMENTED)
    doc = FORMAT.read(src)
    segs = _by_key(doc)
    bye = segs["p1#2"].source
    tr = {
        "p1#1": Translation(TaggedText("Hallo Welt."), "confirmed"),
        "p1#2": Translation(TaggedText(f"{bye.tags[0].char}Tschüss{bye.tags[1].char} jetzt.",
                                       bye.tags), "confirmed"),
        "p2#b": Translation(TaggedText("Zwei."), "confirmed"),
    }
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, tr)
    again = _by_key(FORMAT.read(out))
    assert again["p1#1"].target.text == "Hallo Welt."
    assert again["p1#2"].target.display() == "<g1>Tschüss</g1> jetzt."
    assert again["p1#1"].status == "confirmed"
    assert again["p2#a"].target.text == "Eins."  # untouched segment of a touched unit
    assert again["p2#b"].target.text == "Zwei."
    # the unit state is the weakest of its segments: p2#a is still a draft
    assert again["p2#b"].status == "draft"
    tree = etree.parse(str(out))
    t1 = tree.find(f".//{NS}trans-unit[@id='p1']/{NS}target")
    assert etree.tostring(t1, encoding="unicode").count('mtype="seg"') == 2


def test_bad_character_in_translation_is_a_named_error(tmp_path):
    src = _write(tmp_path, DOC)
    with pytest.raises(FormatError) as e:
        FORMAT.write(src, tmp_path / "out.xlf", {"ok": Translation(TaggedText("bad\x01"))})
    assert "'ok'" in str(e.value) and "U+0001" in str(e.value)
    assert not (tmp_path / "out.xlf").exists()


def test_windows_1252_file_keeps_its_encoding(tmp_path):
    text = DOC.replace('encoding="UTF-8"', 'encoding="windows-1252"').replace("Ö", "O").replace(
        "ü", "u").replace("Menü", "Menu")
    src = _write(tmp_path, text, encoding="cp1252")
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {"save": Translation(TaggedText("Café 中文"), "confirmed")})
    assert out.read_bytes().startswith(b'<?xml version="1.0" encoding="windows-1252"?>')
    assert _by_key(FORMAT.read(out))["save"].target.text == "Café 中文"


# ----------------------------------------------------------------- SDL / memoQ
SDL = """<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" version="1.2" sdl:version="1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a.htm" source-language="en-US" datatype="x-sdlfilterframework2" target-language="de-DE"><body>
<trans-unit id="u1"><source><g id="5">Home page</g></source><seg-source><g id="5"><mrk mtype="seg" mid="1">Home page</mrk></g></seg-source><target><g id="5"><mrk mtype="seg" mid="1">Startseite</mrk></g></target><sdl:seg-defs><sdl:seg id="1" conf="Draft" origin="tm"/></sdl:seg-defs></trans-unit>
<trans-unit id="u2"><source>Contact</source><seg-source><mrk mtype="seg" mid="2">Contact</mrk></seg-source><target><mrk mtype="seg" mid="2"/></target><sdl:seg-defs><sdl:seg id="2" origin="not-translated"/></sdl:seg-defs></trans-unit>
</body></file></xliff>"""


def test_sdlxliff_status_via_seg_defs(tmp_path):
    src = _write(tmp_path, "\ufeff" + SDL, "a.sdlxliff")
    doc = FORMAT.read(src)
    assert doc.meta["variant"] == "sdlxliff"
    segs = _by_key(doc)
    assert segs["u1#1"].status == "draft" and segs["u1#1"].meta["sdl_conf"] == "Draft"
    assert segs["u1#1"].target.text == "Startseite"
    assert segs["u2#2"].status == "new"
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {"u1#1": Translation(TaggedText("Startseite"), "confirmed"),
                            "u2#2": Translation(TaggedText("Kontakt"), "draft")})
    assert out.read_bytes().startswith(b"\xef\xbb\xbf<?xml")  # BOM kept
    again = _by_key(FORMAT.read(out))
    assert (again["u1#1"].status, again["u2#2"].status) == ("confirmed", "draft")
    tree = etree.parse(str(out))
    seg2 = tree.find(".//{http://sdl.com/FileTypes/SdlXliff/1.0}seg[@id='2']")
    assert seg2.get("conf") == "Draft"
    assert tree.find(f".//{NS}trans-unit[@id='u2']/{NS}target").get("state") is None


def test_mqxliff_status_attribute(tmp_path):
    src = _write(tmp_path, """<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff">
<file source-language="en" target-language="fr"><body>
<trans-unit id="1" mq:status="NotStarted"><source>Window</source><target></target></trans-unit>
<trans-unit id="2" mq:status="ManuallyConfirmed"><source>Door</source><target>Porte</target></trans-unit>
</body></file></xliff>""", "a.mqxliff")
    segs = _by_key(FORMAT.read(src))
    assert segs["1"].status == "new" and segs["2"].status == "confirmed"
    out = tmp_path / "out.mqxliff"
    FORMAT.write(src, out, {"1": Translation(TaggedText("Fenêtre"), "confirmed")})
    unit = etree.parse(str(out)).find(f".//{NS}trans-unit[@id='1']")
    assert unit.get("{MQXliff}status") == "ManuallyConfirmed"
    assert unit.find(f"{NS}target").text == "Fenêtre"


# ----------------------------------------------------------------- real files
def _samples() -> list[Path]:
    base = SHARED_DATA / "format-samples"
    if not base.is_dir():
        return []
    out = []
    for p in sorted(base.rglob("*")):
        if p.suffix.lower() in (".xlf", ".xliff") and "xliff2" not in str(p) \
                and "filters4-xliff2" not in str(p):
            out.append(p)
    return out


SAMPLES = _samples()


@pytest.mark.data
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_xliff1_sample_imports_and_round_trips(path, tmp_path):
    rel = path.relative_to(SHARED_DATA)
    path = data_file(*rel.parts)
    assert FORMAT.sniff(path, path.read_bytes()[:4096])
    if path.name == "file-XLIFFFilter-invalid-content.xlf":  # holds a U+0008: not XML
        with pytest.raises(FormatError) as e:
            FORMAT.read(path)
        assert path.name in str(e.value) and "line 7" in str(e.value)
        return
    doc = FORMAT.read(path)
    assert doc.segments, "every sample has something to translate"
    tr = _translate_all(doc)
    out = tmp_path / path.name
    FORMAT.write(path, out, tr, tgt_lang="de")
    again = FORMAT.read(out)
    assert [s.key for s in again.segments] == [s.key for s in doc.segments]
    for a, b in zip(doc.segments, again.segments):
        assert b.source.text == a.source.text
        assert b.target is not None and b.target.text == tr[a.key].target.text, a.key
        assert b.status == "confirmed"
        assert (b.note, b.context) == (a.note, a.context)


def test_xliff1_samples_were_found(shared_data):
    assert len(SAMPLES) >= 30


@pytest.mark.data
def test_sdlxliff_sample_keys_and_tags():
    path = data_file("format-samples", "okapi", "filters", "xliff", "src", "test", "resources",
                     "test2_es.xlf")
    doc = FORMAT.read(path)
    assert doc.meta["variant"] == "sdlxliff" and (doc.src_lang, doc.tgt_lang) == ("en-US", "es-ES")
    assert all("#" in s.key for s in doc.segments)
    assert len({s.key for s in doc.segments}) == len(doc.segments)


# ------------------------------------------- untouched segments, target-only codes
SDL_TRACKED = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0">
<file original="a.docx" datatype="x-sdlfilterframework2" source-language="en-US" target-language="de-DE">
<header/>
<body>
<trans-unit id="u1">
<source>Hello old world. Second one. </source>
<seg-source><mrk mtype="seg" mid="1">Hello old world.</mrk> <mrk mtype="seg" mid="2">Second one. </mrk></seg-source>
<target><mrk mtype="seg" mid="1">Hallo <mrk mtype="x-sdl-deleted" sdl:revid="r1">alte </mrk><mrk mtype="x-sdl-added" sdl:revid="r2">neue </mrk>Welt.</mrk> <mrk mtype="seg" mid="2">Zweiter. </mrk></target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated" origin="interactive"/><sdl:seg id="2" origin="not-translated"/></sdl:seg-defs>
</trans-unit>
<trans-unit id="u2">
<source>Third.</source>
<seg-source><mrk mtype="seg" mid="3">Third.</mrk></seg-source>
<target><mrk mtype="seg" mid="3">Dritte.</mrk></target>
<sdl:seg-defs><sdl:seg id="3" origin="not-translated"/></sdl:seg-defs>
</trans-unit>
</body>
</file>
</xliff>
"""

MQ_TRACKED = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff" version="1.2">
<file original="a.docx" source-language="en" target-language="de" datatype="x-memoq">
<body>
<trans-unit id="1" mq:status="PartiallyEdited">
<source>The red car.</source>
<target>Das <mrk mtype="x-mq-tc" mq:tctype="del" mq:tcuser="rev">rote</mrk><mrk mtype="x-mq-tc" mq:tctype="ins" mq:tcuser="rev">blaue</mrk> Auto.</target>
</trans-unit>
</body>
</file>
</xliff>
"""

TARGET_ONLY = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="a" source-language="en" target-language="de" datatype="plaintext">
<body>
<trans-unit id="t1">
<source>Press <g id="1">OK</g> now.</source>
<target state="translated">Drücken Sie <ph id="5">{x}</ph><it id="6" pos="open">&lt;i&gt;</it><mrk mtype="protected">ACME</mrk> <g id="1">OK</g>.</target>
</trans-unit>
<trans-unit id="t2">
<source>Use <mrk mtype="protected">ACME Tools</mrk> daily. </source>
<target>Täglich <mrk mtype="protected">ACME Tools</mrk> nutzen. </target>
</trans-unit>
<trans-unit id="t3">
<source>Untouched.</source>
<target>Unberührt.  </target>
</trans-unit>
</body>
</file>
</xliff>
"""


def _units(path: Path) -> dict[str, etree._Element]:
    return {u.get("id"): u for u in etree.parse(str(path)).iter(f"{NS}trans-unit")}


def test_sdl_deleted_text_is_a_code_not_live_text(tmp_path):
    segs = _by_key(FORMAT.read(_write(tmp_path, SDL_TRACKED, "a.sdlxliff")))
    tgt = segs["u1#1"].target
    assert tgt.plain() == "Hallo neue Welt."  # the accepted view: inserted text is live
    assert tgt.display() == "Hallo <deleted/><inserted>neue </inserted>Welt."
    deleted = next(t for t in tgt.tags if t.label == "deleted")
    assert 'mtype="x-sdl-deleted"' in deleted.original and "alte " in deleted.original


def test_memoq_tracked_changes_are_kept_as_codes(tmp_path):
    src = _write(tmp_path, MQ_TRACKED, "a.mqxliff")
    seg, = FORMAT.read(src).segments
    assert seg.target.display() == "Das <deleted/><inserted>blaue</inserted> Auto."
    out = tmp_path / "out.mqxliff"
    edited = seg.target.with_text(seg.target.text + "!")
    FORMAT.write(src, out, {"1": Translation(edited, "confirmed")})
    target = _units(out)["1"].find(f"{NS}target")
    inner = etree.tostring(target, encoding="unicode", with_tail=False)
    assert 'mq:tctype="del" mq:tcuser="rev">rote</mrk>' in inner
    assert 'mq:tctype="ins" mq:tcuser="rev">blaue</mrk> Auto.!' in inner
    assert _units(out)["1"].get("{MQXliff}status") == "ManuallyConfirmed"


def test_edited_sdl_segment_keeps_tracked_changes_and_its_neighbours(tmp_path):
    src = _write(tmp_path, SDL_TRACKED, "a.sdlxliff")
    segs = _by_key(FORMAT.read(src))
    tgt = segs["u1#1"].target
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {"u1#1": Translation(tgt.with_text(tgt.text.replace("Welt", "Erde")),
                                                "confirmed")}, tgt_lang="de-DE")
    unit = _units(out)["u1"]
    mrk1, mrk2 = [m for m in unit.find(f"{NS}target") if m.get("mtype") == "seg"]
    assert etree.tostring(mrk1, encoding="unicode", with_tail=False).endswith(
        '<mrk mtype="x-sdl-deleted" sdl:revid="r1">alte </mrk>'
        '<mrk mtype="x-sdl-added" sdl:revid="r2">neue </mrk>Erde.</mrk>')
    assert mrk2.text == "Zweiter. "  # the untouched segment of the same unit
    seg1, seg2 = unit.find(f"{{{SDL_NS}}}seg-defs")
    assert seg1.get("conf") == "Translated"
    assert seg2.attrib == {"id": "2", "origin": "not-translated"}  # no conf="Draft" added
    assert element_c14n(_units(out)["u2"]) == element_c14n(_units(src)["u2"])


def test_untouched_sdl_origin_not_translated_keeps_no_conf(tmp_path):
    src = _write(tmp_path, SDL_TRACKED, "a.sdlxliff")
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {}, tgt_lang="de-DE")
    assert etree.tostring(etree.parse(str(out)), method="c14n2") == \
        etree.tostring(etree.parse(str(src)), method="c14n2")


def test_target_only_ph_it_and_protected_mrk_survive_an_edit(tmp_path):
    src = _write(tmp_path, TARGET_ONLY)
    segs = _by_key(FORMAT.read(src))
    t1 = segs["t1"].target
    assert t1.display() == "Drücken Sie <ph5/><it6/><protected/> <g1>OK</g1>."
    out = tmp_path / "out.xlf"
    # confirming the target as read writes the very same target
    FORMAT.write(src, out, {"t1": Translation(t1, "confirmed")})
    assert element_c14n(_units(out)["t1"]) == element_c14n(_units(src)["t1"])
    # an edit keeps every code the target had
    edited = t1.with_text(t1.text.replace("Sie", "du"))
    FORMAT.write(src, out, {"t1": Translation(edited, "confirmed")})
    target = _units(out)["t1"].find(f"{NS}target")
    assert etree.tostring(target, encoding="unicode", with_tail=False).split(">", 1)[1] == (
        'Drücken du <ph id="5">{x}</ph><it id="6" pos="open">&lt;i&gt;</it>'
        '<mrk mtype="protected">ACME</mrk> <g id="1">OK</g>.</target>')


def test_protected_mrk_is_one_code_that_cannot_be_edited(tmp_path):
    seg = _by_key(FORMAT.read(_write(tmp_path, TARGET_ONLY)))["t2"]
    assert seg.source.display() == "Use <protected/> daily."
    assert seg.source.tags[0].original == '<mrk mtype="protected">ACME Tools</mrk>'


def test_edited_target_keeps_the_trailing_space_reading_trimmed(tmp_path):
    src = _write(tmp_path, TARGET_ONLY)
    t2 = _by_key(FORMAT.read(src))["t2"].target
    assert t2.plain() == "Täglich  nutzen."  # what the translator sees: no edge
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {"t2": Translation(t2.with_text(t2.text.replace("nutzen", "verwenden")),
                                              "confirmed")})
    target = _units(out)["t2"].find(f"{NS}target")
    assert target[0].tail == " verwenden. "
    # SDL: a segment's new target keeps its trailing space
    sdl = _write(tmp_path, SDL_TRACKED, "a.sdlxliff")
    FORMAT.write(sdl, tmp_path / "o.sdlxliff",
                 {"u1#2": Translation(TaggedText("Zwei."), "confirmed")})
    mrk2 = [m for m in _units(tmp_path / "o.sdlxliff")["u1"].find(f"{NS}target")
            if m.get("mid") == "2"][0]
    assert mrk2.text == "Zwei. "


def test_untouched_targets_get_no_state_and_keep_their_spaces(tmp_path):
    src = _write(tmp_path, TARGET_ONLY)
    t2 = _by_key(FORMAT.read(src))["t2"].target
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {"t2": Translation(t2, "confirmed")}, tgt_lang="de")
    before, after = _units(src), _units(out)
    assert after["t2"].find(f"{NS}target").get("state") == "translated"
    for uid in ("t1", "t3"):
        assert element_c14n(after[uid]) == element_c14n(before[uid]), uid
    assert after["t3"].find(f"{NS}target").text == "Unberührt.  "
    assert after["t3"].find(f"{NS}target").get("state") is None


def test_target_language_is_only_added_to_a_file_that_gets_a_translation(tmp_path):
    src = _write(tmp_path, DOC)  # its <file> has no target-language
    FORMAT.write(src, tmp_path / "a.xlf", {}, tgt_lang="de")
    assert etree.parse(str(tmp_path / "a.xlf")).find(f"{NS}file").get("target-language") is None
    FORMAT.write(src, tmp_path / "b.xlf", {"save": Translation(TaggedText("Speichern"))},
                 tgt_lang="de")
    assert etree.parse(str(tmp_path / "b.xlf")).find(f"{NS}file").get("target-language") == "de"


# ---------------------------------------------------------- private-use characters
PUA = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="a" source-language="en" target-language="de" datatype="plaintext">
<body>
<trans-unit id="b1"><source>\uf0a7 Item one</source><target>\uf0a7 Punkt eins</target></trans-unit>
<trans-unit id="b2"><source>\uf0a7 Item two</source></trans-unit>
</body>
</file>
</xliff>
"""


def test_private_use_character_is_kept_through_import_edit_export(tmp_path):
    src = _write(tmp_path, PUA)
    segs = _by_key(FORMAT.read(src))
    b1 = segs["b1"]
    assert b1.source.display() == "<U+F0A7/> Item one"
    assert b1.source.tags[0].original == "\uf0a7"
    assert b1.target.display() == "<U+F0A7/> Punkt eins"
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {
        "b1": Translation(b1.target.with_text(b1.target.text.replace("eins", "1")), "confirmed"),
        "b2": Translation(TaggedText(segs["b2"].source.text.replace("Item two", "Punkt zwei"),
                                     segs["b2"].source.tags), "confirmed"),
    })
    raw = out.read_text(encoding="utf-8")
    assert "<target state=\"translated\">\uf0a7 Punkt 1</target>" in raw
    assert "\uf0a7 Punkt zwei</target>" in raw and "\ufffd" not in raw
    again = _by_key(FORMAT.read(out))
    assert again["b2"].target.display() == "<U+F0A7/> Punkt zwei"


def test_translation_equal_to_the_file_is_written_as_untouched(tmp_path):
    src = _write(tmp_path, SDL_TRACKED, "a.sdlxliff")
    doc = FORMAT.read(src)
    out = tmp_path / "out.sdlxliff"
    # every segment passed back exactly as read (target and status)
    FORMAT.write(src, out, {s.key: Translation(s.target, s.status) for s in doc.segments},
                 tgt_lang="de-DE")
    assert etree.tostring(etree.parse(str(out)), method="c14n2") == \
        etree.tostring(etree.parse(str(src)), method="c14n2")
