"""XLSX threaded comments (Excel 365): each comment and reply a segment with its author, translated
into the threaded part and into the legacy copy older readers show."""
from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest
from lxml import etree

from engine.formats import write_document
from engine.formats.base import Translation
from engine.formats.xlsx import FORMAT
from engine.inline import TaggedText
from datafiles import SHARED_DATA
from formats.docfiles import soffice, soffice_convert

FIX = Path(__file__).parent / "fixtures" / "office"
BOOK = FIX / "threads.xlsx"  # written by hand in make_fixtures.py: neither openpyxl nor LibreOffice write threads
TC_PART = "xl/threadedComments/threadedComment1.xml"
TC = "{http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments}"
SAMPLES = SHARED_DATA / "format-samples"


def _comments(doc):
    return [s for s in doc.segments if s.context.startswith("comment")]


def _export(src: Path, out: Path, tr: dict[str, str]) -> Path:
    doc = FORMAT.read(src, src_lang="en")
    by_text = {s.source.plain(): s for s in doc.segments}
    write_document(src, out, {by_text[k].key: Translation(TaggedText(v, by_text[k].source.tags))
                              for k, v in tr.items()}, format="xlsx", src_lang="en")
    return out


def _threaded(path: Path) -> list[tuple[str, str]]:
    root = etree.fromstring(zipfile.ZipFile(path).read(TC_PART))
    return [(c.get("ref"), c.findtext(f"{TC}text")) for c in root.iter(f"{TC}threadedComment")]


def test_each_comment_and_reply_is_a_segment_in_thread_order_with_its_author_and_cell():
    doc = FORMAT.read(BOOK, src_lang="en")
    got = [(s.context, s.note, s.source.plain()) for s in _comments(doc)]
    assert got == [("comment, Budget!A1", "comment by Ann Lee", "Is this figure final?"),
                   ("comment, Budget!A1", "reply by Bob Roy", "Yes."),
                   ("comment, Budget!A1", "reply by Bob Roy", "Approved on Monday."),
                   ("comment, Budget!A1", "reply by Ann Lee", "@Bob Thanks, closing it."),
                   ("comment, Budget!B2", "comment by Bob Roy", "Check the source.")]
    assert not any("Threaded comment" in s.source.plain() for s in doc.segments)  # the legacy copy: not twice
    assert [s.context for s in doc.segments][:3] == ["name of sheet 1", "Budget!A1", "Budget!A2"]
    assert doc.problems == []


def test_an_untouched_export_is_byte_identical(tmp_path):
    write_document(BOOK, tmp_path / "out.xlsx", {}, format="xlsx")
    a, b = zipfile.ZipFile(BOOK), zipfile.ZipFile(tmp_path / "out.xlsx")
    assert a.namelist() == b.namelist()
    assert all(a.read(n) == b.read(n) for n in a.namelist())


def test_a_translated_thread_is_in_the_threaded_part_and_in_the_copy_older_readers_show(tmp_path):
    out = _export(BOOK, tmp_path / "fr.xlsx", {"Is this figure final?": "Ce chiffre est-il définitif ?",
                                               "Approved on Monday.": "Approuvé lundi.",
                                               "@Bob Thanks, closing it.": "Merci @Bob, je ferme.",
                                               "Check the source.": "Vérifiez la source."})
    assert _threaded(out) == [("A1", "Ce chiffre est-il définitif ?"), ("A1", "Yes. Approuvé lundi."),
                              ("A1", "Merci @Bob, je ferme."), ("B2", "Vérifiez la source.")]
    mention = etree.fromstring(zipfile.ZipFile(out).read(TC_PART)).find(f".//{TC}mention")
    assert (mention.get("startIndex"), mention.get("length")) == ("6", "4")  # still on "@Bob"
    doc = FORMAT.read(out, src_lang="fr")
    assert [s.source.plain() for s in _comments(doc)][:2] == ["Ce chiffre est-il définitif ?", "Yes."]
    ws = openpyxl.load_workbook(out)["Budget"]  # the legacy copy, what openpyxl and LibreOffice show
    assert ws["A1"].comment.text.endswith("Comment:\n    Ce chiffre est-il définitif ?\nReply:\n    "
                                          "Yes. Approuvé lundi.\nReply:\n    Merci @Bob, je ferme.")
    assert ws["B2"].comment.text.endswith("Comment:\n    Vérifiez la source.")
    assert ws["A1"].comment.text.startswith("[Threaded comment]")


def test_a_legacy_copy_edited_by_an_older_excel_is_left_as_it_was(tmp_path):
    src = tmp_path / "edited.xlsx"
    with zipfile.ZipFile(BOOK) as z, zipfile.ZipFile(src, "w") as w:
        for n in z.namelist():
            data = z.read(n)
            w.writestr(n, data.replace(b"    Check the source.", b"    Check the source!") if n == "xl/comments1.xml"
                       else data)
    out = _export(src, tmp_path / "fr.xlsx", {"Check the source.": "Vérifiez la source."})
    assert _threaded(out)[-1] == ("B2", "Vérifiez la source.")
    assert zipfile.ZipFile(out).read("xl/comments1.xml") == zipfile.ZipFile(src).read("xl/comments1.xml")


def _without(src: Path, dest: Path, drop: str = "", replace: tuple[bytes, bytes] = (b"", b"")) -> Path:
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dest, "w") as w:
        for n in z.namelist():
            if n != drop:
                w.writestr(n, z.read(n).replace(*replace) if replace[0] else z.read(n))
    return dest


def test_a_missing_threaded_part_is_one_problem_and_the_legacy_copy_is_read(tmp_path):
    src = _without(BOOK, tmp_path / "missing.xlsx", drop=TC_PART)
    doc = FORMAT.read(src, src_lang="en")
    assert len(doc.problems) == 1 and TC_PART in doc.problems[0] and "\n" not in doc.problems[0]
    assert [s.context for s in _comments(doc)][0] == "comment, Budget!A1"
    assert any("Is this figure final?" in s.source.plain() for s in _comments(doc))


def test_an_unknown_person_reads_without_a_name(tmp_path):
    src = _without(BOOK, tmp_path / "nobody.xlsx", drop="xl/persons/person.xml")
    doc = FORMAT.read(src, src_lang="en")
    assert [s.note for s in _comments(doc)][:2] == ["comment", "reply"]
    out = _export(src, tmp_path / "fr.xlsx", {"Check the source.": "Vérifiez la source."})
    assert _threaded(out)[-1] == ("B2", "Vérifiez la source.")


@pytest.mark.skipif(not soffice(), reason="LibreOffice not installed")
def test_libreoffice_opens_the_translated_workbook_and_shows_the_translated_comment(tmp_path):
    out = _export(BOOK, tmp_path / "fr.xlsx", {"Is this figure final?": "Ce chiffre est-il définitif ?"})
    content = zipfile.ZipFile(soffice_convert(out, tmp_path, "ods")).read("content.xml").decode()
    assert "Budget 2024" in content and "Ce chiffre est-il définitif ?" in content


def _real_books() -> list[Path]:
    if not SAMPLES.is_dir():
        return []
    return [p for p in sorted(SAMPLES.rglob("*.xlsx"))
            if any(n.startswith("xl/threadedComments/") for n in zipfile.ZipFile(p).namelist())]


@pytest.mark.parametrize("path", _real_books() or [None])
def test_a_real_workbook_with_threads_reads_and_exports_unchanged(path, tmp_path):
    if path is None:
        pytest.skip("no workbook with threaded comments in shared/data/format-samples")
    shutil.copy(path, tmp_path / "real.xlsx")
    doc = FORMAT.read(tmp_path / "real.xlsx", src_lang="en")
    assert any(s.note.startswith(("comment", "reply")) for s in _comments(doc))
    write_document(tmp_path / "real.xlsx", tmp_path / "out.xlsx", {}, format="xlsx")
    a, b = zipfile.ZipFile(path), zipfile.ZipFile(tmp_path / "out.xlsx")
    assert all(a.read(n) == b.read(n) for n in a.namelist())


def test_a_mention_the_translation_drops_is_removed(tmp_path):
    out = _export(BOOK, tmp_path / "fr.xlsx", {"@Bob Thanks, closing it.": "Merci, je ferme."})
    root = etree.fromstring(zipfile.ZipFile(out).read(TC_PART))
    assert root.find(f".//{TC}mentions") is None
    assert _threaded(out)[2] == ("A1", "Merci, je ferme.")
