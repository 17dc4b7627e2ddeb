"""Glossary files in and out: every real TBX sample, CSV/TSV/OmegaT, Excel; bad files refused whole."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from datafiles import SHARED_DATA
from engine.errors import FormatError
from engine.glossary import Glossary, read_glossary_file, write_glossary_file

TBX_DIR = SHARED_DATA / "format-samples"
TBX_SAMPLES = sorted(TBX_DIR.rglob("*.tbx")) if TBX_DIR.exists() else []
#: Samples with more than two languages need the pair chosen.
PAIRS = {"maryland.tbx": ("fr", "it"), "medtronic_TBX.tbx": ("en", "fr")}


def comparable(entries):
    return [dataclasses.replace(e, origin="", id=None) for e in entries]


@pytest.mark.data
@pytest.mark.parametrize("path", TBX_SAMPLES, ids=lambda p: p.name)
def test_every_tbx_sample_imports(path: Path, tmp_path):
    src, tgt = PAIRS.get(path.name, ("", ""))
    gf = read_glossary_file(path, src_lang=src, tgt_lang=tgt)
    assert gf.entries and gf.src_lang and gf.tgt_lang
    assert all(e.source and (e.targets or e.forbidden) for e in gf.entries)
    with Glossary(tmp_path / "g", create=True) as g:
        res = g.import_entries(gf.entries, problems=gf.problems)
        assert res.added == len(g) > 0


@pytest.mark.data
def test_tbx_samples_are_found_at_all():
    if not TBX_DIR.exists():
        pytest.skip(f"shared data not found: {TBX_DIR}")
    assert len(TBX_SAMPLES) >= 7


@pytest.mark.data
def test_windows_1254_tbx_keeps_its_turkish_letters():
    path = next((p for p in TBX_SAMPLES if p.name == "test02_win1254.tbx"), None)
    if path is None:
        pytest.skip("test02_win1254.tbx not in shared data")
    (e,) = read_glossary_file(path).entries
    assert (e.source, e.targets, e.src_lang, e.tgt_lang) == (
        "term with: éá and İı", ("tr term with: éá and İı",), "en", "tr")


@pytest.mark.data
def test_tbx_deprecated_status_and_part_of_speech_are_kept():
    path = next((p for p in TBX_SAMPLES if p.name == "medtronic_TBX.tbx"), None)
    if path is None:
        pytest.skip("medtronic_TBX.tbx not in shared data")
    by_source = {e.source: e for e in read_glossary_file(path, src_lang="en", tgt_lang="fr").entries}
    assert by_source["audible notification"].status == "deprecated"
    assert by_source["patient identifier"].pos == "noun"
    assert by_source["patient identifier"].targets == ("identifiant patient",)


@pytest.mark.data
@pytest.mark.parametrize("path", TBX_SAMPLES, ids=lambda p: p.name)
def test_tbx_export_reimports_to_the_same_entries(path: Path, tmp_path):
    src, tgt = PAIRS.get(path.name, ("", ""))
    with Glossary(tmp_path / "g", create=True) as g:
        gf = read_glossary_file(path, src_lang=src, tgt_lang=tgt)
        g.import_entries(gf.entries)
        before = g.entries()
        write_glossary_file(tmp_path / "out.tbx", before, src_lang=g.src_lang, tgt_lang=g.tgt_lang)
    again = read_glossary_file(tmp_path / "out.tbx")
    assert comparable(again.entries) == comparable(before)
    with Glossary(tmp_path / "g") as g:  # re-importing the export adds nothing
        res = g.import_entries(again.entries)
        assert (res.added, res.updated, len(g)) == (0, len(before), len(before))


TBX3 = """<?xml version="1.0" encoding="UTF-8"?>
<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">
  <tbxHeader><fileDesc><sourceDesc><p>v3</p></sourceDesc></fileDesc></tbxHeader>
  <text><body>
    <conceptEntry id="c1">
      <descrip type="definition">A named collection of data.</descrip>
      <langSec xml:lang="en">
        <termSec><term>file</term><termNote type="partOfSpeech">noun</termNote></termSec>
      </langSec>
      <langSec xml:lang="de">
        <termSec><term>Datei</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></termSec>
        <termSec><term>File</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></termSec>
      </langSec>
    </conceptEntry>
  </body></text>
</tbx>
"""


def test_tbx_v3_concepts_read_with_forbidden_variants(tmp_path):
    p = tmp_path / "v3.tbx"
    p.write_text(TBX3, encoding="utf-8")
    (e,) = read_glossary_file(p).entries
    assert (e.source, e.targets, e.forbidden, e.pos, e.note, e.src_lang, e.tgt_lang) == (
        "file", ("Datei",), ("File",), "noun", "A named collection of data.", "en", "de")


def test_tbx_with_many_languages_asks_for_the_pair(tmp_path):
    p = tmp_path / "multi.tbx"
    p.write_text(TBX3.replace('<langSec xml:lang="de">', '<langSec xml:lang="fr"><termSec><term>fichier</term>'
                              '</termSec></langSec><langSec xml:lang="de">'), encoding="utf-8")
    with pytest.raises(FormatError, match=r"3 languages \(en, fr, de\).*--src-lang and --tgt-lang"):
        read_glossary_file(p)
    assert read_glossary_file(p, tgt_lang="fr").entries[0].targets == ("fichier",)


def test_tbx_with_entity_declarations_is_refused(tmp_path):
    p = tmp_path / "evil.tbx"
    p.write_text('<?xml version="1.0"?>\n<!DOCTYPE martif [<!ENTITY x "boom">]>\n<martif><text><body>'
                 '<termEntry><langSet xml:lang="en"><tig><term>&x;</term></tig></langSet></termEntry>'
                 '</body></text></martif>', encoding="utf-8")
    with pytest.raises(FormatError, match="entities"):
        read_glossary_file(p)


def test_malformed_tbx_gives_one_error_with_the_line_and_changes_nothing(tmp_path):
    good = tmp_path / "good.tbx"
    good.write_text(TBX3, encoding="utf-8")
    bad = tmp_path / "bad.tbx"
    bad.write_text(TBX3.replace("<term>Datei</term>", "<term>Datei</trem>"), encoding="utf-8")
    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries(read_glossary_file(good).entries)
        before = g.entries()
        with pytest.raises(FormatError) as err:
            g.import_entries(read_glossary_file(bad).entries)
        assert g.entries() == before
    msg = str(err.value)
    assert "\n" not in msg and "bad.tbx, line 11" in msg


def test_csv_with_header_columns(tmp_path):
    p = tmp_path / "terms.csv"
    p.write_text('source,target,note,part of speech,status,forbidden\n'
                 'file,Datei; Akte,"a document, on disk",noun,admitted,File\n'
                 'folder,Ordner,,,,\n', encoding="utf-8")
    gf = read_glossary_file(p, src_lang="en", tgt_lang="de")
    a, b = gf.entries
    assert (a.source, a.targets, a.note, a.pos, a.status, a.forbidden) == (
        "file", ("Datei", "Akte"), "a document, on disk", "noun", "admitted", ("File",))
    assert (b.source, b.targets, b.status) == ("folder", ("Ordner",), "preferred")


def test_an_inflect_column_says_which_entries_may_be_inflected(tmp_path):
    p = tmp_path / "g.tsv"
    p.write_text("en\tde\tinflect\nfile\tDatei\tyes\nfolder\tOrdner\t\nOK\tOK\tno\n", encoding="utf-8")
    assert [e.inflect for e in read_glossary_file(p).entries] == [True, False, False]


def test_language_codes_in_the_header_give_the_pair(tmp_path):
    p = tmp_path / "terms.tsv"
    p.write_text("en-US\tde-DE\tcomment\nfile\tDatei\tx\n", encoding="utf-8")
    gf = read_glossary_file(p)
    assert (gf.src_lang, gf.tgt_lang) == ("en-US", "de-DE")
    assert gf.entries[0].targets == ("Datei",) and gf.entries[0].note == "x"


def test_omegat_glossary_without_header(tmp_path):
    p = tmp_path / "glossary.txt"
    p.write_text('# Glossary in tab-separated format -*- coding: utf-8 -*-\n'
                 'file\tDatei\tcomment one\n'
                 '12" screen\t12-Zoll-Bildschirm\n'
                 'orphan\n', encoding="utf-8")
    gf = read_glossary_file(p, src_lang="en", tgt_lang="de")
    assert [(e.source, e.targets, e.note) for e in gf.entries] == [
        ("file", ("Datei",), "comment one"), ('12" screen', ("12-Zoll-Bildschirm",), "")]
    assert gf.problems == ("glossary.txt, line 4: no target term for 'orphan'; skipped",)


def test_malformed_csv_gives_one_error_with_the_line(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text('source,target\nfile,Datei\n"folder,Ordner\n', encoding="utf-8")
    with pytest.raises(FormatError) as err:
        read_glossary_file(p, src_lang="en", tgt_lang="de")
    assert "bad.csv, line 3" in str(err.value) and "\n" not in str(err.value)


def test_csv_header_without_target_column_is_refused(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("source,comment\nfile,x\n", encoding="utf-8")
    with pytest.raises(FormatError, match="line 1.*no target column"):
        read_glossary_file(p)


def test_xlsx_glossary_reads_its_first_sheet(tmp_path):
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Terms"
    ws.append(["en", "de", "Note"])
    ws.append(["file", "Datei", "noun"])
    ws.append([None, None, None])
    ws.append(["version", 2, None])
    p = tmp_path / "terms.xlsx"
    wb.save(p)
    gf = read_glossary_file(p)
    assert (gf.src_lang, gf.tgt_lang) == ("en", "de")
    assert [(e.source, e.targets, e.note) for e in gf.entries] == [
        ("file", ("Datei",), "noun"), ("version", ("2",), "")]


def test_a_broken_xlsx_is_one_error_naming_the_file(tmp_path):
    p = tmp_path / "broken.xlsx"
    p.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(FormatError) as err:
        read_glossary_file(p)
    assert "broken.xlsx" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("name", ["out.tsv", "out.csv"])
def test_tsv_and_csv_export_reimport_to_the_same_entries(tmp_path, name):
    from engine.glossary import GlossaryEntry

    entries = [GlossaryEntry("file", ("Datei", "Akte"), "en", "de", pos="noun", note="a, b", forbidden=("File",),
                             status="admitted", inflect=True),
               GlossaryEntry("folder", ("Ordner",), "en", "de")]
    write_glossary_file(tmp_path / name, entries, src_lang="en", tgt_lang="de")
    gf = read_glossary_file(tmp_path / name)
    assert (gf.src_lang, gf.tgt_lang) == ("en", "de")
    assert comparable(gf.entries) == comparable(entries)


def test_omegat_export_writes_one_row_per_translation(tmp_path):
    from engine.glossary import GlossaryEntry

    write_glossary_file(tmp_path / "g.txt", [GlossaryEntry("file", ("Datei", "Akte"), "en", "de", note="n")],
                        src_lang="en", tgt_lang="de")
    assert (tmp_path / "g.txt").read_text("utf-8") == "file\tDatei\tn\nfile\tAkte\tn\n"
