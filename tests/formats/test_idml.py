"""IDML: stories in spread order, character style ranges as paired tags, a faithful export."""
from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from engine.errors import FormatError
from engine.formats import detect, write_document
from engine.formats.base import Translation
from engine.formats.idml import FORMAT
from engine.inline import TaggedText

IDML = Path(__file__).parent / "fixtures" / "office" / "story.idml"  # written by make_fixtures.py
U10 = "Stories/Story_u10.xml"


def _by_text(doc):
    return {s.source.plain(): s for s in doc.segments}


def _export(tmp_path, tr: dict[str, str], src: Path = IDML) -> Path:
    doc = FORMAT.read(src, src_lang="en")
    segs = _by_text(doc)
    out = tmp_path / "out.idml"
    write_document(src, out, {segs[k].key: Translation(TaggedText(v, segs[k].source.tags)) for k, v in tr.items()},
                   format="idml", src_lang="en")
    return out


def _with_tags(seg, *pieces: str) -> str:
    """``pieces`` joined by the segment's tag characters, in order."""
    chars = [t.char for t in seg.source.tags]
    return "".join(p + (chars[i] if i < len(chars) else "") for i, p in enumerate(pieces))


def test_stories_are_read_in_spread_order_then_masters_then_unplaced():
    doc = FORMAT.read(IDML, src_lang="en")
    assert [(s.source.plain(), s.context) for s in doc.segments] == [
        ("Title", "spread 1"), ("Hello bold world.", "spread 1"), ("Second sentence.", "spread 1"),
        ("Read the guide first.", "spread 1"), ("Page  of the book.", "spread 1"), ("Prices below.", "spread 1"),
        ("After the table.", "spread 1"), ("Cell text.", "spread 1"), ("Running head", "master spread 1"),
        ("Unplaced text.", "story not on a spread")]


def test_style_ranges_links_special_characters_and_tables_are_codes():
    segs = _by_text(FORMAT.read(IDML, src_lang="en"))
    assert [(t.kind, t.label) for t in segs["Hello bold world."].source.tags] == [("open", "fmt"), ("close", "fmt")]
    assert [(t.kind, t.label) for t in segs["Read the guide first."].source.tags] == [("open", "link"),
                                                                                     ("close", "link")]
    assert [(t.kind, t.label) for t in segs["Page  of the book."].source.tags] == [("ph", "char")]
    assert [(t.kind, t.label) for t in segs["Prices below."].source.tags] == [("ph", "table")]


def test_an_untouched_export_is_the_same_package_byte_for_byte(tmp_path):
    write_document(IDML, tmp_path / "out.idml", {}, format="idml")
    a, b = zipfile.ZipFile(IDML), zipfile.ZipFile(tmp_path / "out.idml")
    assert a.namelist() == b.namelist() and all(a.read(n) == b.read(n) for n in a.namelist())
    assert b.infolist()[0].filename == "mimetype" and b.infolist()[0].compress_type == zipfile.ZIP_STORED


def test_a_translated_story_keeps_its_styles_links_codes_and_paragraphs(tmp_path):
    segs = _by_text(FORMAT.read(IDML, src_lang="en"))
    out = _export(tmp_path, {
        "Hello bold world.": _with_tags(segs["Hello bold world."], "Bonjour ", "gras", " monde."),
        "Read the guide first.": _with_tags(segs["Read the guide first."], "Lisez d'abord le ", "guide", "."),
        "Page  of the book.": _with_tags(segs["Page  of the book."], "Page ", " du livre."),
        "Cell text.": "Texte de cellule.",
        "After the table.": "Après le tableau."})
    again = [s.source.plain() for s in FORMAT.read(out, src_lang="en").segments]
    assert again == ["Title", "Bonjour gras monde.", "Second sentence.", "Lisez d'abord le guide.",
                     "Page  du livre.", "Prices below.", "Après le tableau.", "Texte de cellule.", "Running head",
                     "Unplaced text."]
    story = etree.fromstring(zipfile.ZipFile(out).read(U10))
    bold = [c for c in story.iter("CharacterStyleRange") if c.get("AppliedCharacterStyle") == "CharacterStyle/Bold"]
    assert ["".join(c.itertext()) for c in bold] == ["gras"]
    link = next(story.iter("HyperlinkTextSource"))
    assert link.get("Self") == "h1" and "".join(link.itertext()) == "guide"
    assert [pi.text for pi in story.iter(etree.ProcessingInstruction)] == ["18"]
    assert len(list(story.iter("Br"))) == 3 and len(list(story.iter("Table"))) == 1
    a, b = zipfile.ZipFile(IDML), zipfile.ZipFile(out)
    assert {n for n in a.namelist() if a.read(n) != b.read(n)} == {U10}


def test_translating_one_paragraph_leaves_the_others_of_its_range_as_they_were(tmp_path):
    out = _export(tmp_path, {"Second sentence.": "Deuxième phrase."})
    story = etree.fromstring(zipfile.ZipFile(out).read(U10))
    original = etree.fromstring(zipfile.ZipFile(IDML).read(U10))
    # the first range of the paragraph style range is untouched; the text after the first Br too
    assert etree.tostring(next(story.iter("CharacterStyleRange"))) == etree.tostring(
        next(original.iter("CharacterStyleRange")))
    again = [s.source.plain() for s in FORMAT.read(out, src_lang="en").segments]
    assert again[1:4] == ["Hello bold world.", "Deuxième phrase.", "Read the guide first."]


def test_a_translation_for_an_unknown_key_is_refused(tmp_path):
    with pytest.raises(FormatError, match="does not have"):
        write_document(IDML, tmp_path / "o.idml", {f"{U10}:p99.s1": Translation(TaggedText("x"))}, format="idml")


def test_detected_by_content_and_a_zip_without_designmap_is_refused(tmp_path):
    p = tmp_path / "layout.zip"
    shutil.copy(IDML, p)
    assert detect(p).name == "idml"
    bare = tmp_path / "bare.idml"
    with zipfile.ZipFile(bare, "w") as z:
        z.writestr("Stories/Story_u1.xml", "<Story/>")
    with pytest.raises(FormatError, match="no designmap.xml"):
        FORMAT.read(bare, src_lang="en")


def test_a_zip_bomb_story_is_refused_naming_it(tmp_path):
    p = tmp_path / "bomb.idml"
    shutil.copy(IDML, p)
    with zipfile.ZipFile(p, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("Stories/Story_u99.xml", b"<Story>" + b" " * (8 << 20) + b"</Story>")
    with pytest.raises(FormatError) as e:
        FORMAT.read(p, src_lang="en")
    assert "zip bomb" in str(e.value) and "Story_u99.xml" in str(e.value) and "\n" not in str(e.value)


def test_a_project_imports_and_exports_an_idml(tmp_path):
    from engine.store.project import Project

    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="fr") as proj:
        doc_id = proj.import_document(IDML)
        assert proj.document(doc_id).format == "idml"
        title = next(s for s in proj.segments(doc_id) if s.source.text == "Title")
        proj.confirm(title.id, TaggedText("Titre"))
        out = proj.export_document(doc_id, tmp_path / "out.idml")
    assert FORMAT.read(out, src_lang="en").segments[0].source.text == "Titre"


_PLAIN = 'AppliedCharacterStyle="CharacterStyle/$ID/[No character style]"'
_TAGGED = (  # XML-tagged text: a tagged answer of two paragraphs, tagged words inside and around ranges
    f'<XMLElement Self="x1" MarkupTag="XMLTag/article"><ParagraphStyleRange><CharacterStyleRange {_PLAIN}/>'
    f'<XMLElement Self="x2" MarkupTag="XMLTag/answer"><XMLAttribute Self="x2a" Name="id" Value="7"/>'
    f'<XMLElement Self="x3" MarkupTag="XMLTag/bold"><CharacterStyleRange AppliedCharacterStyle='
    f'"CharacterStyle/Bold"><Content>Henri</Content></CharacterStyleRange></XMLElement>'
    f'<CharacterStyleRange {_PLAIN}><Content> says yes.</Content><Br/><Content>Then </Content>'
    f'<XMLElement Self="x4" MarkupTag="XMLTag/em"><Content>he</Content></XMLElement><Content> leaves.</Content>'
    f'</CharacterStyleRange></XMLElement></ParagraphStyleRange></XMLElement>')


def _tagged_idml(tmp_path, story: str = _TAGGED) -> Path:
    """story.idml whose unplaced story (u30) is ``story`` (by default XML-tagged text)."""
    out = tmp_path / "tagged.idml"
    with zipfile.ZipFile(IDML) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "Stories/Story_u30.xml":
                head, _, rest = body.decode().partition('<Story Self="u30">')
                body = (head + '<Story Self="u30">' + story + "</Story>" + rest.partition("</Story>")[2]).encode()
            z.writestr(info, body)
    return out


def test_xml_tagged_text_is_read_with_its_tags_as_codes_and_written_back(tmp_path):
    src = _tagged_idml(tmp_path)
    segs = _by_text(FORMAT.read(src, src_lang="en"))
    # the bold range is all the tagged word has: one pair of codes, the tag's
    assert [(t.kind, t.label) for t in segs["Henri says yes."].source.tags] == [("open", "xml"), ("close", "xml")]
    assert [(t.kind, t.label) for t in segs["Then he leaves."].source.tags] == [("open", "xml"), ("close", "xml")]
    out = _export(tmp_path, {"Henri says yes.": _with_tags(segs["Henri says yes."], "", "Henri", " dit oui."),
                             "Then he leaves.": _with_tags(segs["Then he leaves."], "Puis ", "il", " part.")}, src)
    again = [s.source.plain() for s in FORMAT.read(out, src_lang="en").segments]
    assert again[-2:] == ["Henri dit oui.", "Puis il part."]
    story = etree.fromstring(zipfile.ZipFile(out).read("Stories/Story_u30.xml"))
    selves = [el.get("Self") for el in story.iter() if el.get("Self")]
    assert sorted(selves) == ["u30", "x1", "x2", "x2a", "x3", "x4"]  # each tag once, its attribute kept
    assert "".join(next(e for e in story.iter("XMLElement") if e.get("Self") == "x4").itertext()) == "il"
    assert len(list(story.iter("Br"))) == 1
    bold = [c for c in story.iter("CharacterStyleRange") if c.get("AppliedCharacterStyle") == "CharacterStyle/Bold"]
    assert ["".join(c.itertext()) for c in bold] == ["Henri"] and bold[0].getparent().get("Self") == "x3"


def test_an_editors_note_is_a_code_and_its_text_is_not_read(tmp_path):
    note = (f'<ParagraphStyleRange><CharacterStyleRange {_PLAIN}><Content>Keep</Content><Note>'
            f'<ParagraphStyleRange><CharacterStyleRange {_PLAIN}><Content>Check with Ann.</Content>'
            f'</CharacterStyleRange></ParagraphStyleRange></Note><Content> it.</Content></CharacterStyleRange>'
            f'</ParagraphStyleRange>')
    segs = _by_text(FORMAT.read(_tagged_idml(tmp_path, note), src_lang="en"))
    assert "Check with Ann." not in segs and [t.label for t in segs["Keep it."].source.tags] == ["note"]


def test_tracked_inserted_text_is_read_inside_its_change_and_deleted_text_is_a_code(tmp_path):
    story = (f'<ParagraphStyleRange><CharacterStyleRange {_PLAIN}><Content>Ship </Content>'
             f'<Change Self="c1" ChangeType="InsertedText"><Content>all </Content></Change>'
             f'<Change Self="c2" ChangeType="DeletedText"><Content>some </Content></Change>'
             f'<Content>orders.</Content></CharacterStyleRange></ParagraphStyleRange>')
    src = _tagged_idml(tmp_path, story)
    segs = _by_text(FORMAT.read(src, src_lang="en"))
    seg = segs["Ship all orders."]
    assert [(t.kind, t.label) for t in seg.source.tags] == [("open", "ins"), ("close", "ins"), ("ph", "change")]
    out = _export(tmp_path, {"Ship all orders.": _with_tags(seg, "Expédier ", "toutes ", "", " les commandes.")}, src)
    changes = list(etree.fromstring(zipfile.ZipFile(out).read("Stories/Story_u30.xml")).iter("Change"))
    assert [(c.get("Self"), "".join(c.itertext())) for c in changes] == [("c1", "toutes "), ("c2", "some ")]
