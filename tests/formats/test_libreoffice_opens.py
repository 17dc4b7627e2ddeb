"""An edited export (no tracking) opens in LibreOffice with the edit in it: every real DOCX sample
(python-docx's and OmegaT's), OmegaT's ODT, and the PPTX/XLSX fixtures, one segment edited and
exported through a project (the edited paragraph spliced into the part's original bytes), are
converted by ``soffice --headless`` without error, and LibreOffice's own text holds the edit.
Skipped when ``soffice`` is not on PATH (see README, Tests); one conversion at a time."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from datafiles import SHARED_DATA
from lo_helper import SKIP_WHY, SOFFICE, convert

from engine.store import Project

pytestmark = pytest.mark.skipif(SOFFICE is None, reason=SKIP_WHY)

FIXTURES = Path(__file__).parent / "fixtures" / "office"
MARK = "Verso-Edit-Äß"


def _samples() -> list[Path]:
    base = SHARED_DATA / "format-samples"
    if not base.is_dir():
        return []
    return (sorted((base / "python-docx").glob("*.docx"))
            + sorted((base / "omegat" / "filters-documents").rglob("*.docx"))
            + sorted((base / "omegat" / "filters-documents").rglob("*.odt")))


def _edited_export(src: Path, tmp_path: Path) -> tuple[Path, bool]:
    """(the document exported with its first segment that holds words edited, whether one was)."""
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        seg = next((s for s in p.segments(doc) if sum(c.isalpha() for c in s.source.plain()) >= 2), None)
        if seg is not None:
            p.confirm(seg.id, seg.source.with_text(f"{MARK} {seg.source.text}"))
        return p.export_document(doc, tmp_path / f"edited{src.suffix}"), seg is not None


def _text_in_libreoffice(path: Path, tmp_path: Path) -> str:
    """What LibreOffice reads: plain text for documents, the content of the ODF it saves otherwise."""
    if path.suffix in (".docx", ".odt"):
        return convert(path, "txt:Text (encoded):UTF8", tmp_path).read_text("utf-8-sig")
    out = convert(path, {".pptx": "odp", ".xlsx": "ods"}[path.suffix], tmp_path)
    return zipfile.ZipFile(out).read("content.xml").decode("utf-8")


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("src", _samples(), ids=lambda q: q.name)
def test_an_edited_real_document_opens_in_libreoffice_with_the_edit(src, tmp_path):
    out, edited = _edited_export(src, tmp_path)
    text = _text_in_libreoffice(out, tmp_path)  # a sample without words is exported as it is: it still opens
    assert MARK in text or not edited


@pytest.mark.parametrize("name", ["deck.pptx", "deck_lo.pptx", "book.xlsx", "book_lo.xlsx", "threads.xlsx"])
def test_an_edited_presentation_or_workbook_opens_in_libreoffice_with_the_edit(name, tmp_path):
    out, edited = _edited_export(FIXTURES / name, tmp_path)
    assert edited
    assert MARK in _text_in_libreoffice(out, tmp_path)
