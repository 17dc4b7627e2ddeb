"""PPTX reviewer comments: legacy ``p:cmLst`` and modern ``p188:cmLst`` threads read after the slide's
notes with their authors, translated in place, an untouched export byte-identical."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from engine.formats import write_document
from engine.formats.base import Translation
from engine.formats.pptx import FORMAT
from engine.inline import TaggedText
from formats.docfiles import soffice, soffice_convert

FIX = Path(__file__).parent / "fixtures" / "office"
DECK = FIX / "deck_comments.pptx"  # deck.pptx with comments added by hand (make_fixtures.py)
DECK_LO = FIX / "deck_comments_lo.pptx"  # the same saved by LibreOffice: legacy comments only
LEGACY, MODERN = "ppt/comments/comment1.xml", "ppt/comments/modernComment_101_0.xml"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


def _comments(doc):
    return [(s.context, s.note, s.source.plain()) for s in doc.segments if s.context.startswith("comment")]


def _export(src: Path, out: Path, tr: dict[str, str]) -> Path:
    doc = FORMAT.read(src, src_lang="en")
    by_text = {s.source.plain(): s for s in doc.segments}
    write_document(src, out, {by_text[k].key: Translation(TaggedText(v, by_text[k].source.tags))
                              for k, v in tr.items()}, format="pptx", src_lang="en")
    return out


def _copy(src: Path, dest: Path, drop: str = "", replace: tuple[bytes, bytes] = (b"", b"")) -> Path:
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dest, "w") as w:
        for n in z.namelist():
            if n != drop:
                w.writestr(n, z.read(n).replace(*replace) if replace[0] else z.read(n))
    return dest


LEGACY_READ = [("comment, slide 1", "comment by Ann Lee", "Move this title up."),
               ("comment, slide 1", "comment by Ann Lee", "It is too low."),
               ("comment, slide 1", "comment by Bob Roy", "Done.")]


def test_legacy_comments_and_a_modern_thread_are_read_after_the_slides_notes_with_their_authors():
    doc = FORMAT.read(DECK, src_lang="en")
    assert _comments(doc) == LEGACY_READ + [("comment, slide 2", "comment by Ann Lee", "Use a larger picture."),
                                            ("comment, slide 2", "reply by Bob Roy", "Agreed, I will swap it.")]
    contexts = [s.context for s in doc.segments]
    assert contexts.index("comment, slide 1") > max(i for i, c in enumerate(contexts) if c == "notes, slide 1")
    assert contexts.index("comment, slide 1") < contexts.index("slide 2")


def test_the_comments_libreoffice_wrote_are_read():
    assert _comments(FORMAT.read(DECK_LO, src_lang="en")) == LEGACY_READ


@pytest.mark.parametrize("src", [DECK, DECK_LO])
def test_an_untouched_export_is_byte_identical(src, tmp_path):
    write_document(src, tmp_path / "out.pptx", {}, format="pptx")
    a, b = zipfile.ZipFile(src), zipfile.ZipFile(tmp_path / "out.pptx")
    assert a.namelist() == b.namelist()
    assert all(a.read(n) == b.read(n) for n in a.namelist())


def test_translated_comments_and_replies_are_written_into_their_parts(tmp_path):
    out = _export(DECK, tmp_path / "fr.pptx", {"Move this title up.": "Remontez ce titre.",
                                               "Done.": "Fait.", "Use a larger picture.": "Une image plus grande.",
                                               "Agreed, I will swap it.": "D'accord, je la change."})
    z = zipfile.ZipFile(out)
    legacy = etree.fromstring(z.read(LEGACY))
    assert [t.text for t in legacy.iter(f"{P}text")] == ["Remontez ce titre. It is too low.", "Fait."]
    modern = etree.fromstring(z.read(MODERN))
    assert ["".join(t.text for t in p.iter(f"{A}t")) for p in modern.iter(f"{A}p")] == [
        "D'accord, je la change.", "Une image plus grande."]  # the part lists the reply first
    assert modern.find(f".//{A}rPr") is not None  # the run keeps its properties
    doc = FORMAT.read(out, src_lang="fr")
    assert [c[2] for c in _comments(doc)] == ["Remontez ce titre.", "It is too low.", "Fait.",
                                              "Une image plus grande.", "D'accord, je la change."]
    assert z.read("ppt/slides/slide1.xml") == zipfile.ZipFile(DECK).read("ppt/slides/slide1.xml")


def test_python_pptx_opens_the_translated_deck(tmp_path):
    pptx = pytest.importorskip("pptx")
    out = _export(DECK, tmp_path / "fr.pptx", {"Done.": "Fait."})
    assert len(pptx.Presentation(str(out)).slides) == 3


@pytest.mark.skipif(not soffice(), reason="LibreOffice not installed")
def test_libreoffice_opens_the_translated_deck_and_shows_the_translated_comment(tmp_path):
    out = _export(DECK, tmp_path / "fr.pptx", {"Move this title up.": "Remontez ce titre."})
    content = zipfile.ZipFile(soffice_convert(out, tmp_path, "odp")).read("content.xml").decode()
    assert "Remontez ce titre. It is too low." in content


def test_a_missing_comments_part_or_author_list_reads_without_names(tmp_path):
    src = _copy(DECK, tmp_path / "a.pptx", drop=MODERN)
    src = _copy(src, tmp_path / "b.pptx", drop="ppt/commentAuthors.xml")
    doc = FORMAT.read(src, src_lang="en")
    assert [(c, n) for c, n, _ in _comments(doc)] == [("comment, slide 1", "comment")] * 3
    out = _export(src, tmp_path / "fr.pptx", {"Done.": "Fait."})
    assert "Fait." in zipfile.ZipFile(out).read(LEGACY).decode()


def test_an_unknown_author_id_reads_as_a_bare_comment(tmp_path):
    src = _copy(DECK, tmp_path / "a.pptx", replace=(b'authorId="1"', b'authorId="7"'))
    assert _comments(FORMAT.read(src, src_lang="en"))[2] == ("comment, slide 1", "comment", "Done.")
