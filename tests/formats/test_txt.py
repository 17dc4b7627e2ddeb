"""Plain text: paragraphs -> sentences, exact export, encodings, bad input."""
from __future__ import annotations

import codecs

import pytest

from engine.errors import FormatError
from engine.formats import detect, read_document, write_document
from engine.formats.base import Translation
from engine.formats.txt import FORMAT
from engine.inline import TaggedText

TEXT = (
    "Dr. Smith paid $3.50. He left <b>early</b> that day.\n"
    "He came back later.\n"
    "\n"
    "   An indented paragraph with %s and {0}.\n"
    "\n\n"
    "Last one."
)


def _write(tmp_path, text: str, *, encoding="utf-8", bom=b"", newline="\n", name="doc.txt"):
    p = tmp_path / name
    p.write_bytes(bom + text.replace("\n", newline).encode(encoding))
    return p


def _upper(doc) -> dict[str, Translation]:
    """Translations that keep the source's codes: the source upper-cased."""
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def test_paragraphs_and_sentences_become_keyed_segments(tmp_path):
    doc = FORMAT.read(_write(tmp_path, TEXT), src_lang="en")
    keys = [s.key for s in doc.segments]
    assert keys == ["p1.s1", "p1.s2", "p1.s3", "p2.s1", "p3.s1"]
    assert doc.segments[0].source.text == "Dr. Smith paid $3.50."
    assert all(s.status == "new" and s.target is None for s in doc.segments)


def test_markup_and_placeholders_are_protected(tmp_path):
    doc = FORMAT.read(_write(tmp_path, TEXT), src_lang="en")
    seg = doc.segments[1]
    assert seg.source.tag_count == 2 and "<b>" not in seg.source.text
    assert seg.source.display() == "He left <b>early</b> that day."
    assert doc.segments[3].source.display() == "An indented paragraph with <%s/> and <{0}/>."
    # tags are numbered per segment, from 1
    assert doc.segments[3].source.tag_numbers() == [1, 2]


def test_percent_in_prose_is_not_a_placeholder(tmp_path):
    doc = FORMAT.read(_write(tmp_path, "We give 50% discount to 100% of users."), src_lang="en")
    assert doc.segments[0].source.tag_count == 0


@pytest.mark.parametrize("encoding,bom,newline", [
    ("utf-8", b"", "\n"),
    ("utf-8", codecs.BOM_UTF8, "\r\n"),
    ("utf-16-le", codecs.BOM_UTF16_LE, "\r\n"),
    ("utf-16-be", codecs.BOM_UTF16_BE, "\n"),
])
def test_export_without_translations_rebuilds_the_file_exactly(tmp_path, encoding, bom, newline):
    src = _write(tmp_path, TEXT + "\n", encoding=encoding, bom=bom, newline=newline)
    out = tmp_path / "out.txt"
    FORMAT.write(src, out, {})
    assert out.read_bytes() == src.read_bytes()


@pytest.mark.parametrize("encoding,bom", [("utf-8", b""), ("utf-16-le", codecs.BOM_UTF16_LE)])
def test_translated_export_keeps_layout_encoding_and_markup(tmp_path, encoding, bom):
    src = _write(tmp_path, TEXT, encoding=encoding, bom=bom, newline="\r\n")
    doc = FORMAT.read(src, src_lang="en")
    out = tmp_path / "out.txt"
    FORMAT.write(src, out, _upper(doc))
    raw = out.read_bytes()
    assert raw.startswith(bom)
    text = raw[len(bom):].decode(encoding)
    assert text == TEXT.replace("\n", "\r\n").upper().replace("<B>", "<b>").replace("</B>", "</b>") \
        .replace("%S", "%s")
    again = FORMAT.read(out, src_lang="en")
    assert [s.key for s in again.segments] == [s.key for s in doc.segments]
    assert [s.source.text for s in again.segments] == [s.source.text.upper() for s in doc.segments]


def test_untranslated_segments_keep_their_source(tmp_path):
    src = _write(tmp_path, TEXT)
    doc = FORMAT.read(src, src_lang="en")
    out = tmp_path / "out.txt"
    FORMAT.write(src, out, {"p2.s1": Translation(TaggedText("Ein eingerückter Absatz."))})
    text = out.read_text("utf-8")
    assert "   Ein eingerückter Absatz.\n" in text
    assert text.replace("   Ein eingerückter Absatz.", "   " + doc.segments[3].source.original()) == TEXT


def test_line_break_in_a_translation_takes_the_file_newline(tmp_path):
    src = _write(tmp_path, "One. Two.\n\nThree.\n", newline="\r\n")
    out = tmp_path / "out.txt"
    FORMAT.write(src, out, {"p1.s1": Translation(TaggedText("Eins,\nzwei."))})
    assert out.read_bytes() == b"Eins,\r\nzwei. Two.\r\n\r\nThree.\r\n"


def test_sentence_rules_follow_the_source_language_on_export(tmp_path):
    src = _write(tmp_path, "Wir treffen uns z. B. am 3. Mai. Dann reden wir.\n")
    doc = read_document(src, src_lang="de")
    assert [s.key for s in doc.segments] == ["p1.s1", "p1.s2"]
    out = tmp_path / "out.txt"
    write_document(src, out, {"p1.s2": Translation(TaggedText("Then we talk."))}, format="txt", src_lang="de")
    assert out.read_text("utf-8") == "Wir treffen uns z. B. am 3. Mai. Then we talk.\n"


def test_translation_for_a_missing_segment_is_refused(tmp_path):
    src = _write(tmp_path, "One sentence.\n")
    with pytest.raises(FormatError, match="doc.txt"):
        FORMAT.write(src, tmp_path / "out.txt", {"p9.s1": Translation(TaggedText("x"))})
    assert not (tmp_path / "out.txt").exists()


def test_detected_by_extension(tmp_path):
    assert detect(_write(tmp_path, TEXT)).name == "txt"


def test_undecodable_bytes_name_the_file_and_line(tmp_path):
    p = tmp_path / "latin1.txt"
    p.write_bytes("First line.\nSecond line.\nCafé au lait.\n".encode("latin-1"))
    with pytest.raises(FormatError) as ei:
        FORMAT.read(p)
    assert "latin1.txt" in str(ei.value) and ei.value.location == "line 3"


def test_utf16_without_bom_is_refused_not_guessed(tmp_path):
    p = tmp_path / "nobom.txt"
    p.write_bytes("Hello there.\n".encode("utf-16-le"))
    with pytest.raises(FormatError, match="nobom.txt"):
        FORMAT.read(p)


@pytest.mark.parametrize("content", [b"", b"  \n\n\t\n", codecs.BOM_UTF8])
def test_empty_file_is_a_format_error(tmp_path, content):
    p = tmp_path / "empty.txt"
    p.write_bytes(content)
    with pytest.raises(FormatError, match="empty.txt.*empty"):
        FORMAT.read(p)


def test_missing_file_is_a_format_error(tmp_path):
    with pytest.raises(FormatError, match="nothere.txt"):
        FORMAT.read(tmp_path / "nothere.txt")


def test_private_use_characters_are_kept_as_codes(tmp_path):
    text = "Hello.\n\n\uf0a7 A <b>bold</b> glyph \ue001.\n"
    p = _write(tmp_path, text)
    doc = FORMAT.read(p, src_lang="en")
    assert len(doc.segments) == 2 and not doc.problems
    seg = doc.segments[1]
    assert "\ufffd" not in seg.source.text
    assert seg.source.display() == "<U+F0A7/> A <b>bold</b> glyph <U+E001/>."
    assert [t.original for t in seg.source.tags] == ["\uf0a7", "<b>", "</b>", "\ue001"]
    out = tmp_path / "out.txt"
    FORMAT.write(p, out, {}, src_lang="en")
    assert out.read_bytes() == p.read_bytes()
    FORMAT.write(p, out, {seg.key: Translation(TaggedText(seg.source.text.replace("A", "Ein"),
                                                          seg.source.tags))}, src_lang="en")
    assert out.read_text("utf-8") == text.replace("A <b>", "Ein <b>")
