"""TMX 1.4b import and export: real tools' files, encodings, hostile and broken input,
round trips, and bounded memory while streaming."""
from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from lxml import etree

from datafiles import SHARED_DATA, data_file
from engine.errors import FormatError, UnsafeXMLError
from engine.formats.base import TMUnit
from engine.formats.tmx import (
    iso_to_tmx_date, read_tmx, read_tmx_header, tmx_date_to_iso, write_tmx,
)
from engine.inline import Tag, TaggedText, protect, tag_char
from engine.langs import normalize_lang

SAMPLES = SHARED_DATA / "format-samples"
ALL_TMX = sorted(SAMPLES.rglob("*.tmx")) if SAMPLES.is_dir() else []
OKAPI = ("format-samples", "okapi", "filters", "tmx", "src", "test", "resources")

HEAD = ('<?xml version="1.0" encoding="{enc}"?>\n'
        '<tmx version="1.4">\n'
        '<header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="t" '
        'adminlang="en" srclang="{src}" datatype="plaintext"/>\n'
        '<body>\n')
TAIL = "</body>\n</tmx>\n"


def tmx_text(body: str, *, enc: str = "UTF-8", src: str = "en") -> str:
    return HEAD.format(enc=enc, src=src) + body + TAIL


def tu(src: str, tgt: str, *, sl: str = "en", tl: str = "de", attrs: str = "", attr: str = "xml:lang") -> str:
    return (f'<tu{attrs}>\n<tuv {attr}="{sl}"><seg>{src}</seg></tuv>\n'
            f'<tuv {attr}="{tl}"><seg>{tgt}</seg></tuv>\n</tu>\n')


def write(tmp_path: Path, text: str, name: str = "t.tmx", enc: str = "utf-8", bom: bytes = b"") -> Path:
    p = tmp_path / name
    p.write_bytes(bom + text.encode(enc))
    return p


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def c(n: int) -> str:
    return tag_char(n)


# ---------------------------------------------------------- every real sample
@pytest.mark.data
@pytest.mark.parametrize("path", ALL_TMX, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_every_sample_imports_normalised_and_round_trips(path: Path, tmp_path: Path):
    problems: list[str] = []
    units = list(read_tmx(path, problems=problems))
    for u in units:
        assert len(u.variants) >= 2
        for lang, text in u.variants.items():
            assert lang == normalize_lang(lang)
            # every placeholder in the text has its tag, with the TMX markup kept
            assert {t.n for t in text.tags} >= set(text.tag_numbers())
            assert all(t.original.startswith("<") or t.label.startswith("U+") for t in text.tags)
        assert u.meta["srclang"] in u.variants
        assert isinstance(u.line, int) and u.line > 0
    header = read_tmx_header(path)
    out = tmp_path / "again.tmx"
    assert write_tmx(out, units, src_lang=header.srclang or "*all*") == len(units)
    again = list(read_tmx(out))
    assert [u.variants for u in again] == [u.variants for u in units]
    assert [u.meta for u in again] == [u.meta for u in units]


def test_samples_were_found(shared_data: Path):
    assert len(ALL_TMX) >= 60, "expected the okapi and OmegaT TMX samples"


def test_trados_workbench_utf16_with_inline_tags():
    path = data_file(*OKAPI, "html_test.tmx")
    assert path.read_bytes()[:2] == b"\xff\xfe"
    units = list(read_tmx(path))
    assert len(units) == 11
    assert read_tmx_header(path).attrs["creationtool"].startswith("TRADOS Translator's Workbench")
    link = next(u for u in units if "This is a link" in u.variants["en-US"].plain())
    en, fr = link.variants["en-US"], link.variants["fr-FR"]
    assert en.plain() == "To view this click This is a link here"
    assert [t.kind for t in en.tags] == ["open", "close"]
    assert en.tags[0].original == '<bpt i="1" type="link">&lt;a href="page1.htm"&gt;</bpt>'
    assert en.display() == "To view this click <a>This is a link</a> here"
    assert fr.tag_numbers() == en.tag_numbers()
    assert link.meta["creationid"] == "BATCH_ANALYZER"
    assert link.meta["creationdate"] == "20081203T053817Z"
    assert link.meta["creationdate_iso"] == "2008-12-03T05:38:17Z"
    breaks = next(u for u in units if "line breaks" in u.variants["en-US"].plain())
    assert [t.kind for t in breaks.variants["en-US"].tags] == ["ph", "ph"]


def test_lisa_kit_tags_follow_the_source_numbering_across_languages():
    """In the LISA kit the French variant has its codes in another order; tag n
    must still be the same code (matched by x) in both languages."""
    units = list(read_tmx(data_file(*OKAPI, "compkit", "ImportTest2A.tmx")))
    assert len(units) == 7
    first = units[0]
    en, fr = first.variants["en-US"], first.variants["fr-CA"]
    assert en.text == f"The big {c(1)}black{c(2)} {c(3)}cat{c(4)} sleeps."
    assert fr.text == f"Le gros {c(3)}chat{c(4)} {c(1)}noir{c(2)} dors."
    assert first.meta["tuid"] == "1"
    # <hi> keeps its content translatable; source and target order inverted in the file
    hi = units[-1]
    assert hi.variants["en-US"].plain() == "Some text with a part highlighted."
    assert hi.variants["en-US"].tags[0].original == '<hi x="1" type="special-part">'
    assert hi.meta["srclang"] == "en-US"


@pytest.mark.parametrize("name,bom", [("ImportTest1F.tmx", b"\xff\xfe"), ("ImportTest1G.tmx", b"\xfe\xff")])
def test_lisa_kit_utf16_le_and_be(name: str, bom: bytes):
    path = data_file("format-samples", "omegat", "tmx", "TMXComplianceKit", name)
    assert path.read_bytes()[:2] == bom
    units = list(read_tmx(path))
    assert len(units) == 3
    assert units[0].variants["en-GB"].plain() == "à=agrave, é=eacute, æ=aelig"
    assert units[2].variants["en-US"].plain() == "“=U+201C, –=U+2013, ¤=U+00A4"


def test_lisa_kit_metadata_kept():
    u, = read_tmx(data_file(*OKAPI, "compkit", "ImportTest1L.tmx"))
    assert set(u.variants) == {"en-US", "fr", "en-GB"}
    m = u.meta
    assert m["tuid"] == "tu001" and m["usagecount"] == 100
    assert m["creationid"] == "ys" and m["changeid"] == "ys"
    assert m["lastusagedate_iso"] == "2002-05-23T09:12:00Z"
    assert m["notes"] == ["Text of tu note 1", "Text of tu note 2"]
    assert m["props"] == [["myPropeType", "Data"]]
    assert m["attrs"]["o-tmf"] == "myTM"
    assert m["tuv"]["fr"]["notes"] == ["Text of tuv fr note 1", "Text of tuv fr note 1"]
    header = read_tmx_header(data_file(*OKAPI, "compkit", "ImportTest1L.tmx"))
    assert header.srclang == "en-US" and header.notes[0] == "Text of header note 1"


def test_omegat_many_languages_per_unit_and_duplicates():
    units = list(read_tmx(data_file("format-samples", "omegat", "tmx", "test-multiple-tuv.tmx")))
    assert len(units) == 3
    hello = units[0]
    assert list(hello.variants) == ["en-US", "es", "es-AR", "es-BO", "fr-CA", "fr", "de"]
    assert hello.variants["fr-CA"].plain().startswith("fr_CA Bonjour le monde")
    # a second <tuv> in fr-CA is not lost
    assert [e["lang"] for e in hello.meta["extra_variants"]] == ["fr-CA"]
    assert "tout le monde" in hello.meta["extra_variants"][0]["text"]


def test_omegat_missing_source_skipped_with_its_line():
    path = data_file("format-samples", "omegat", "tmx", "test-missingSource.tmx")
    problems: list[str] = []
    units = list(read_tmx(path, src_lang="en", tgt_lang="be", problems=problems))
    assert [u.variants["be"].plain() for u in units] == ["betuv", "tr2", "tr3"]
    line = line_of(path.read_text(encoding="utf-8"), "<seg>tr1</seg>") - 2
    assert problems == [f"TU 2, line {line}: skipped, fewer than two languages with text"]


# ------------------------------------------------------ encodings and languages
@pytest.mark.parametrize("enc,bom,decl", [
    ("utf-16-le", b"\xff\xfe", "UTF-16"),
    ("utf-16-be", b"\xfe\xff", "UTF-16"),
    ("utf-16-le", b"", "UTF-16"),
    ("utf-16-be", b"", "UTF-16"),
    ("utf-8", b"\xef\xbb\xbf", "UTF-8"),
    ("utf-8", b"", "UTF-8"),
])
def test_utf16_and_utf8_with_and_without_bom(tmp_path: Path, enc: str, bom: bytes, decl: str):
    text = tmx_text(tu("Grüße, 𝐀 & <bpt i=\"1\">&lt;b&gt;</bpt>ok<ept i=\"1\">&lt;/b&gt;</ept>",
                       "Salutations, 𝐀 &amp; <bpt i=\"1\">&lt;b&gt;</bpt>oui<ept i=\"1\">&lt;/b&gt;</ept>",
                       tl="fr").replace(" & ", " &amp; "), enc=decl)
    path = write(tmp_path, text, enc=enc, bom=bom)
    u, = read_tmx(path)
    assert u.variants["en"].plain() == "Grüße, 𝐀 & ok"
    assert u.variants["fr"].text == f"Salutations, 𝐀 & {c(1)}oui{c(2)}"


def test_legacy_lang_attribute_and_spellings_of_one_language(tmp_path: Path):
    body = (tu("One", "Eins", sl="EN-US", tl="DE_de", attr="lang")
            + tu("Two", "Zwei", sl="en_us", tl="de-DE")
            + tu("Three", "Drei", sl="en-US", tl="de-de", attr="lang"))
    units = list(read_tmx(write(tmp_path, tmx_text(body, src="EN_US"))))
    assert [sorted(u.variants) for u in units] == [["de-DE", "en-US"]] * 3
    units = list(read_tmx(write(tmp_path, tmx_text(body)), src_lang="en_US", tgt_lang="DE-de"))
    assert [u.variants["de-DE"].plain() for u in units] == ["Eins", "Zwei", "Drei"]


def test_srclang_all_takes_the_requested_or_first_language_as_reference(tmp_path: Path):
    body = tu('<ph x="1">{0}</ph> files', '<ph x="1">{0}</ph> fichiers', tl="fr")
    path = write(tmp_path, tmx_text(body, src="*all*"))
    assert read_tmx_header(path).srclang == "*all*"
    u, = read_tmx(path)
    assert u.meta["srclang"] == "en"
    u, = read_tmx(path, src_lang="fr", tgt_lang="en")
    assert u.meta["srclang"] == "fr"
    assert u.variants["en"].tag_numbers() == u.variants["fr"].tag_numbers() == [1]


def test_unit_lacking_the_requested_target_is_skipped_and_reported(tmp_path: Path):
    body = (tu("Yes", "Ja", attrs=' tuid="a"')
            + tu("No", "Non", tl="fr", attrs=' tuid="b"')
            + '<tu tuid="c"><tuv xml:lang="en"><seg>Alone</seg></tuv><tuv xml:lang="de"><seg> </seg></tuv></tu>\n'
            + tu("Maybe", "Vielleicht"))
    text = tmx_text(body)
    problems: list[str] = []
    units = list(read_tmx(write(tmp_path, text), src_lang="en", tgt_lang="de", problems=problems))
    assert [u.variants["de"].plain() for u in units] == ["Ja", "Vielleicht"]
    line_b, line_c = line_of(text, 'tuid="b"'), line_of(text, 'tuid="c"')
    assert problems == [
        f"TU 2 (tuid 'b'), line {line_b}: skipped, no target text in de (has en, fr)",
        f"TU 3 (tuid 'c'), line {line_c}: skipped, fewer than two languages with text",
    ]
    # without a requested target the French unit is kept
    assert len(list(read_tmx(tmp_path / "t.tmx"))) == 3


def test_inline_codes_become_protected_tags(tmp_path: Path):
    seg = ('A <bpt i="1" x="1" type="bold">&lt;b&gt;</bpt>bold<ept i="1">&lt;/b&gt;</ept> '
           '<ph x="2" type="image">&lt;img src="a.png"/&gt;</ph> '
           '<it pos="begin" x="3">&lt;i&gt;</it>open '
           '<ut>{\\ul}</ut> <hi type="x-term">term <ph x="4">%1</ph></hi> '
           '<ph x="5">&lt;a title="<sub>Alt text</sub>"&gt;</ph>.')
    u, = read_tmx(write(tmp_path, tmx_text(tu(seg, seg))))
    en = u.variants["en"]
    assert en.plain() == "A bold  open  term  ."
    assert [t.kind for t in en.tags] == ["open", "close", "ph", "open", "ph", "open", "ph", "close", "ph"]
    assert en.tags[0].pair == en.tags[1].pair
    assert en.tags[5].pair == en.tags[7].pair != en.tags[0].pair
    assert en.tags[6].original == '<ph x="4">%1</ph>'
    assert en.tags[8].original == '<ph x="5">&lt;a title="<sub>Alt text</sub>"&gt;</ph>'
    assert en.display().startswith("A <b>bold</b> <img/> <i>open")
    assert u.variants["de"] == en


def test_private_use_characters_are_kept_as_codes_not_taken_for_tags(tmp_path: Path):
    # U+E001 is also the placeholder of tag 1: the file's character must become
    # a code of its own, never be mistaken for another code nor become U+FFFD
    u, = read_tmx(write(tmp_path, tmx_text(tu('odd \ue001 char <ph x="1">%s</ph>', "x"))))
    en = u.variants["en"]
    assert en.display() == "odd <U+E001/> char <%s/>"
    assert en.tags[0].original == "\ue001" and en.tags[0].kind == "ph"
    assert "\ufffd" not in en.text


def test_private_use_character_round_trips_through_tmx(tmp_path: Path):
    src = write(tmp_path, tmx_text(tu("\uf0a7 Item <ph x=\"1\">&lt;br/&gt;</ph>one",
                                      "\uf0a7 Punkt <ph x=\"1\">&lt;br/&gt;</ph>eins")))
    u, = read_tmx(src)
    assert u.variants["en"].display() == "<U+F0A7/> Item <br/>one"
    assert u.variants["de"].display() == "<U+F0A7/> Punkt <br/>eins"
    assert u.variants["de"].tag_numbers() == u.variants["en"].tag_numbers()
    out = tmp_path / "again.tmx"
    write_tmx(out, [u], src_lang="en")
    raw = out.read_text(encoding="utf-8")
    assert "<seg>\uf0a7 Item <ph x=\"1\">&lt;br/&gt;</ph>one</seg>" in raw
    assert "<seg>\uf0a7 Punkt <ph x=\"1\">&lt;br/&gt;</ph>eins</seg>" in raw
    assert "\ufffd" not in raw
    again, = read_tmx(out)
    assert again.variants == u.variants


def test_private_use_code_from_another_format_is_written_as_the_character(tmp_path: Path):
    # the PO/TXT readers make the same code without attributes
    tt = TaggedText(f"{c(1)} Punkt", (Tag(1, "ph", "\uf0a7", "U+F0A7"),))
    out = tmp_path / "o.tmx"
    write_tmx(out, [TMUnit({"en": tt, "de": tt})], src_lang="en")
    assert "<seg>\uf0a7 Punkt</seg>" in out.read_text(encoding="utf-8")


# --------------------------------------------------------- broken and hostile
def test_empty_file_is_a_clear_error(tmp_path: Path):
    p = write(tmp_path, "")
    with pytest.raises(FormatError) as e:
        list(read_tmx(p))
    assert "empty" in str(e.value) and str(p) in str(e.value)


def test_tmx_without_units_yields_nothing(tmp_path: Path):
    assert list(read_tmx(write(tmp_path, tmx_text("")))) == []


def test_truncated_file_raises_with_a_line_after_yielding_what_came_before(tmp_path: Path):
    text = tmx_text(tu("One", "Eins") + tu("Two", "Zwei") + tu("Three", "Drei"))
    cut = text.index("<seg>Drei")
    p = write(tmp_path, text[:cut + 7])
    got = []
    with pytest.raises(FormatError) as e:
        for u in read_tmx(p):
            got.append(u.variants["de"].plain())
    assert got == ["Eins", "Zwei"]
    assert e.value.path == str(p)
    assert e.value.location == f"line {line_of(text, '<seg>Drei')}"


def test_mismatched_tag_names_the_line(tmp_path: Path):
    text = tmx_text(tu("One", "Eins") + '<tu><tuv xml:lang="en"><seg>Two</tuv></tu>\n' + tu("3", "3"))
    with pytest.raises(FormatError) as e:
        list(read_tmx(write(tmp_path, text)))
    assert e.value.location == f"line {line_of(text, '<seg>Two')}"
    assert "not well-formed" in str(e.value)


def test_wrong_encoding_is_a_format_error_with_line(tmp_path: Path):
    text = tmx_text(tu("One", "Eins") + tu("Café", "Café"))
    p = write(tmp_path, text, enc="latin-1")
    with pytest.raises(FormatError) as e:
        list(read_tmx(p))
    assert e.value.location == f"line {line_of(text, 'Café')}"


def test_not_a_tmx_file(tmp_path: Path):
    p = write(tmp_path, '<?xml version="1.0"?>\n<xliff version="1.2"><file/></xliff>\n', name="x.tmx")
    with pytest.raises(FormatError, match="not a TMX file"):
        list(read_tmx(p))


def test_missing_file(tmp_path: Path):
    with pytest.raises(FormatError, match="cannot read"):
        list(read_tmx(tmp_path / "nope.tmx"))


LAUGHS = ('<?xml version="1.0"?>\n{pad}<!DOCTYPE tmx [\n<!ENTITY a "aaaaaaaaaaaaaaaaaaaa">\n'
          + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(9))
          + ']>\n<tmx version="1.4"><header srclang="en"/><body>'
          '<tu><tuv xml:lang="en"><seg>&j;</seg></tuv><tuv xml:lang="de"><seg>&j;</seg></tuv></tu>'
          '</body></tmx>\n')


@pytest.mark.parametrize("pad", ["", "<!-- " + "x" * 70_000 + " -->\n"], ids=["plain", "after-70k-comment"])
def test_billion_laughs_refused_without_memory_growth(tmp_path: Path, pad: str):
    p = write(tmp_path, LAUGHS.format(pad=pad))
    tracemalloc.start()
    try:
        with pytest.raises(UnsafeXMLError) as e:
            list(read_tmx(p))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "entit" in str(e.value) and str(p) in str(e.value)
    assert peak < 8 * 2**20


@pytest.mark.parametrize("enc,bom", [("utf-8", b""), ("utf-16-le", b"\xff\xfe")])
def test_external_entity_refused(tmp_path: Path, enc: str, bom: bytes):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    text = (f'<?xml version="1.0" encoding="{"UTF-16" if bom else "UTF-8"}"?>\n'
            f'<!DOCTYPE tmx [<!ENTITY xxe SYSTEM "{secret.as_uri()}">]>\n'
            '<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>&xxe;</seg></tuv>'
            '<tuv xml:lang="de"><seg>&xxe;</seg></tuv></tu></body></tmx>\n')
    p = write(tmp_path, text, enc=enc, bom=bom)
    with pytest.raises(UnsafeXMLError) as e:
        list(read_tmx(p))
    assert "TOP-SECRET" not in str(e.value)


# ------------------------------------------------------------------- writing
def _unit(src: str, tgt: str, **meta) -> TMUnit:
    s = protect(src)
    return TMUnit({"en-US": s, "de-DE": protect(tgt)}, meta=dict(meta))


def test_write_header_metadata_and_read_back(tmp_path: Path):
    out = tmp_path / "out.tmx"
    units = [
        _unit("Save the file.", "Datei speichern.", tuid="7", creationid="anna", changeid="bob",
              creationdate_iso="2021-03-04T05:06:07Z", changedate="20220101T000000Z", usagecount=3,
              props=[["x-project", "Manual"]], notes=["checked"]),
        _unit("Open", "Öffnen"),
    ]
    n = write_tmx(out, iter(units), src_lang="en_us", header_props=[("x-client", "ACME")])
    assert n == 2
    root = etree.parse(str(out)).getroot()
    header = root.find("header")
    assert root.get("version") == "1.4"
    for attr in ("srclang", "adminlang", "segtype", "o-tmf", "datatype", "creationtool", "creationdate"):
        assert header.get(attr)
    assert header.get("srclang") == "en-US" and header.get("creationtool") == "Verso"
    tu1 = root.find("body/tu")
    assert tu1.get("creationdate") == "20210304T050607Z" and tu1.get("usagecount") == "3"
    assert tu1.find("prop").get("type") == "x-project" and tu1.find("note").text == "checked"
    back = list(read_tmx(out))
    assert back[0].meta["creationid"] == "anna" and back[0].meta["changedate_iso"] == "2022-01-01T00:00:00Z"
    assert back[0].meta["props"] == [["x-project", "Manual"]] and back[0].meta["notes"] == ["checked"]
    assert back[1].variants["de-DE"].plain() == "Öffnen"
    assert read_tmx_header(out).props == [["x-client", "ACME"]]


def test_tags_from_other_formats_are_written_as_tmx_codes(tmp_path: Path):
    src = protect('Click <b>Save</b> to keep %1 <a href="x">')
    tgt = protect('Klicken Sie auf <b>Speichern</b>, um %1 zu behalten <a href="x">')
    out = tmp_path / "out.tmx"
    write_tmx(out, [TMUnit({"en": src, "de": tgt})], src_lang="en")
    xml = out.read_text(encoding="utf-8")
    assert '<bpt i="1" x="1">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;</ept>' in xml
    assert '<ph x="3">%1</ph>' in xml
    assert '<it pos="begin" x="4">&lt;a href="x"&gt;</it>' in xml  # an open code without its close
    u, = read_tmx(out)
    for lang, orig in (("en", src), ("de", tgt)):
        assert u.variants[lang].plain() == orig.plain()
        assert u.variants[lang].tag_numbers() == orig.tag_numbers()
        assert [t.kind for t in u.variants[lang].tags] == [t.kind for t in orig.tags]
    assert u.variants["en"].display() == "Click <b>Save</b> to keep <%1/> <a>"


def test_unpaired_codes_are_written_as_isolated_tags(tmp_path: Path):
    full = protect("<b>bold</b>")
    half = TaggedText(f"{c(1)}fett", full.tags)  # the closing code was deleted
    out = tmp_path / "out.tmx"
    write_tmx(out, [TMUnit({"en": full, "de": half})], src_lang="en")
    assert '<it pos="begin" x="1">&lt;b&gt;</it>fett' in out.read_text(encoding="utf-8")
    u, = read_tmx(out)
    assert u.variants["de"].plain() == "fett" and u.variants["de"].tag_numbers() == [1]


def test_tmx_codes_written_back_as_they_were(tmp_path: Path):
    seg = ('x <bpt i="1" x="1" type="bold">{\\b </bpt>y<ept i="1">}</ept> '
           '<hi type="x-t">z <ph>%s</ph></hi> <ut>\\par</ut>')
    src = write(tmp_path, tmx_text(tu(seg, seg)))
    units = list(read_tmx(src))
    out = tmp_path / "out.tmx"
    write_tmx(out, units, src_lang="en")
    assert f"<seg>{seg}</seg>" in out.read_text(encoding="utf-8")
    assert [u.variants for u in read_tmx(out)] == [u.variants for u in units]


def test_edited_hi_without_its_close_still_writes_valid_tmx(tmp_path: Path):
    u, = read_tmx(write(tmp_path, tmx_text(tu('a <hi type="t">b</hi>', 'a <hi type="t">b</hi>'))))
    de = u.variants["de"]
    u.variants["de"] = TaggedText(de.text.replace(c(2), ""), de.tags)
    out = tmp_path / "out.tmx"
    write_tmx(out, [u], src_lang="en")
    back, = read_tmx(out)
    assert back.variants["de"].plain() == "a b"
    assert back.variants["en"] == u.variants["en"]


def test_write_is_atomic_when_units_fail_midway(tmp_path: Path):
    out = tmp_path / "out.tmx"
    write_tmx(out, [_unit("Old", "Alt")], src_lang="en")
    before = out.read_bytes()

    def units():
        yield _unit("New", "Neu")
        raise RuntimeError("disk unplugged")

    with pytest.raises(RuntimeError):
        write_tmx(out, units(), src_lang="en")
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["out.tmx"]


def test_write_drops_characters_xml_cannot_hold(tmp_path: Path):
    out = tmp_path / "out.tmx"
    write_tmx(out, [TMUnit({"en": TaggedText("bell\x07 here"), "de": TaggedText("Glocke")})], src_lang="en")
    u, = read_tmx(out)
    assert u.variants["en"].plain() == "bell here"


def test_write_keeps_every_character_xml_allows_and_drops_the_rest():
    """Every code point against XML 1.0's Char production (#x9 | #xA | #xD | [#x20-#xD7FF] |
    [#xE000-#xFFFD] | [#x10000-#x10FFFF]): kept if it is one, dropped otherwise."""
    from engine.formats.tmx_meta import _clean

    def xml_char(c: int) -> bool:
        return c in (0x9, 0xA, 0xD) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or 0x10000 <= c <= 0x10FFFF

    every = "".join(map(chr, range(0x110000)))
    assert _clean(every) == "".join(chr(c) for c in range(0x110000) if xml_char(c))


def test_tmx_dates():
    assert tmx_date_to_iso("20060101T120000Z") == "2006-01-01T12:00:00Z"
    assert tmx_date_to_iso("2006-01-01T12:00:00Z") == "2006-01-01T12:00:00Z"
    assert tmx_date_to_iso("20061301T120000Z") is None
    assert tmx_date_to_iso("yesterday") is None
    assert iso_to_tmx_date("2006-01-01T13:00:00+01:00") == "20060101T120000Z"


# ------------------------------------------------------------ bounded memory
def _generate(path: Path, n: int) -> None:
    filler = "lorem ipsum dolor sit amet " * 30
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(HEAD.format(enc="UTF-8", src="en"))
        for i in range(n):
            fh.write(f'<tu tuid="{i}" creationdate="20200101T000000Z"><prop type="x-doc">d{i % 7}</prop>'
                     f'<tuv xml:lang="en"><seg>Unit {i} <bpt i="1">&lt;b&gt;</bpt>{filler}<ept i="1">&lt;/b&gt;</ept></seg></tuv>'
                     f'<tuv xml:lang="de"><seg>Einheit {i} {filler}</seg></tuv></tu>\n')
        fh.write(TAIL)


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096


def _stream(path: Path) -> tuple[int, int, int]:
    """(units, tracemalloc peak, largest resident-memory growth) while streaming."""
    count, grow = 0, 0
    base = _rss()
    tracemalloc.start()
    try:
        for _u in read_tmx(path):
            count += 1
            if count % 200 == 0:
                grow = max(grow, _rss() - base)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return count, peak, grow


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc to read resident memory")
def test_memory_stays_bounded_when_streaming(tmp_path: Path):
    """10x the units must not need ~10x the memory.  tracemalloc sees Python's
    allocations; lxml's tree lives in libxml2, so resident memory is checked too
    (without clearing finished units, 8000 units of ~1.6 kB grow it by ~50 MB)."""
    small, large = tmp_path / "small.tmx", tmp_path / "large.tmx"
    _generate(small, 800)
    _generate(large, 8000)
    n1, peak1, grow1 = _stream(small)
    n10, peak10, grow10 = _stream(large)
    assert (n1, n10) == (800, 8000)
    assert peak10 < 3 * peak1
    assert grow10 < 3 * grow1 + 12 * 2**20
