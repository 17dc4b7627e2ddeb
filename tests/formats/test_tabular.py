"""Bilingual CSV/TSV: dialect and header detection, placeholders, exact export, bad input."""
from __future__ import annotations

import codecs

import pytest

from datafiles import data_file
from engine.errors import FormatError
from engine.formats import detect
from engine.formats.base import Translation
from engine.formats.tabular import FORMAT
from engine.inline import TaggedText

CSV = (
    '"All","Alle",module,Magento_Catalog\r\n'
    '"Delete %1 items?","",module,Magento_Catalog\r\n'
    '"<b>Bold</b> text","<b>Fett</b>er Text",module,Magento_Sales\r\n'
    '\r\n'
    '"Line one\nline two","",module,Magento_Sales\r\n'
    '"Only source"\r\n'
)


def _write(tmp_path, text, name="pack.csv", encoding="utf-8", bom=b""):
    p = tmp_path / name
    p.write_bytes(bom + text.encode(encoding))
    return p


def test_headerless_csv_rows_become_segments(tmp_path):
    doc = FORMAT.read(_write(tmp_path, CSV))
    assert [s.key for s in doc.segments] == ["r1", "r2", "r3", "r5", "r6"]  # blank row r4 skipped
    r1 = doc.segments[0]
    assert (r1.source.text, r1.target.text, r1.status) == ("All", "Alle", "confirmed")
    assert r1.context == "module, Magento_Catalog" and r1.meta["extra"] == ["module", "Magento_Catalog"]
    r2 = doc.segments[1]
    assert r2.target is None and r2.status == "new"
    assert doc.segments[3].source.text == "Line one\nline two"
    assert doc.meta["delimiter"] == ","


def test_placeholders_and_html_are_protected(tmp_path):
    doc = FORMAT.read(_write(tmp_path, CSV))
    assert doc.segments[1].source.display() == "Delete <%1/> items?"
    r3 = doc.segments[2]
    assert r3.source.display() == "<b>Bold</b> text"
    assert r3.target.tag_numbers() == r3.source.tag_numbers() == [1, 2]


def test_export_without_translations_is_byte_identical(tmp_path):
    src = _write(tmp_path, CSV)
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, {})
    assert out.read_bytes() == src.read_bytes()


def test_export_writes_targets_and_keeps_other_columns_and_quoting(tmp_path):
    src = _write(tmp_path, CSV)
    doc = FORMAT.read(src)
    r2, r3 = doc.segments[1], doc.segments[2]
    tr = {
        "r2": Translation(TaggedText(r2.source.text.replace("Delete", "Löschen:").replace("items?", 'Artikel, "alle"?'),
                                     r2.source.tags)),
        "r3": Translation(TaggedText(r3.source.text.replace("Bold", "Dick"), r3.source.tags)),
        "r6": Translation(TaggedText("Nur Quelle")),
    }
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, tr)
    lines = out.read_bytes().decode("utf-8").split("\r\n")
    assert lines[0] == '"All","Alle",module,Magento_Catalog'
    assert lines[1] == '"Delete %1 items?","Löschen: %1 Artikel, ""alle""?",module,Magento_Catalog'
    assert lines[2] == '"<b>Bold</b> text","<b>Dick</b> text",module,Magento_Sales'
    assert lines[-2] == '"Only source","Nur Quelle"'
    again = FORMAT.read(out)
    assert [(s.key, s.source) for s in again.segments] == [(s.key, s.source) for s in doc.segments]
    for s in again.segments:
        if s.key in tr:
            assert s.target.text == tr[s.key].target.text


def test_private_use_characters_are_kept_as_codes(tmp_path):
    text = '"\uf0a7 Item %1","\uf0a7 Punkt %1"\r\n"\uf0a7 Two",""\r\n'
    src = _write(tmp_path, text)
    doc = FORMAT.read(src)
    one, two = doc.segments
    assert "\ufffd" not in one.source.text + one.target.text
    assert one.source.display() == "<U+F0A7/> Item <%1/>" and one.target.display() == "<U+F0A7/> Punkt <%1/>"
    assert one.target.tag_numbers() == one.source.tag_numbers() == [1, 2]
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, {two.key: Translation(TaggedText(two.source.text.replace("Two", "Zwei"),
                                                            two.source.tags))})
    assert out.read_bytes().decode("utf-8") == text.replace('""', '"\uf0a7 Zwei"')


def test_tsv_with_named_header_columns(tmp_path):
    src = _write(tmp_path, "ID\tSource\tTarget\tNote\nbtn.ok\tOK\t\tbutton label\nbtn.no\tCancel\tAbbrechen\t\n",
                 name="ui.tsv")
    doc = FORMAT.read(src)
    assert doc.meta["delimiter"] == "\t" and doc.meta["header"] == ["ID", "Source", "Target", "Note"]
    assert [s.key for s in doc.segments] == ["r2", "r3"]
    ok = doc.segments[0]
    assert (ok.source.text, ok.context, ok.note, ok.target) == ("OK", "btn.ok", "button label", None)
    out = tmp_path / "out.tsv"
    FORMAT.write(src, out, {"r2": Translation(TaggedText("OK!"))})
    assert out.read_text("utf-8").splitlines()[1] == "btn.ok\tOK\tOK!\tbutton label"


def test_language_code_header_picks_columns_by_language(tmp_path):
    src = _write(tmp_path, "en;de;fr\nSave;Speichern;\nOpen;Öffnen;Ouvrir\n", name="multi.csv")
    doc = FORMAT.read(src, src_lang="en", tgt_lang="fr")
    assert doc.meta["delimiter"] == ";" and doc.tgt_lang == "fr"
    assert [(s.source.text, s.target.text if s.target else None) for s in doc.segments] == \
        [("Save", None), ("Open", "Ouvrir")]
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, {"r2": Translation(TaggedText("Enregistrer"))}, tgt_lang="fr")
    assert out.read_text("utf-8") == "en;de;fr\nSave;Speichern;Enregistrer\nOpen;Öffnen;Ouvrir\n"


def test_first_row_of_plain_words_is_not_a_header(tmp_path):
    doc = FORMAT.read(_write(tmp_path, "No,Nein\nYes,Ja\n"))
    assert [s.key for s in doc.segments] == ["r1", "r2"]


def test_utf16_with_bom_round_trips(tmp_path):
    src = _write(tmp_path, CSV, encoding="utf-16-le", bom=codecs.BOM_UTF16_LE)
    doc = FORMAT.read(src)
    assert doc.segments[0].target.text == "Alle"
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, {"r2": Translation(TaggedText("Weg"))})
    raw = out.read_bytes()
    assert raw.startswith(codecs.BOM_UTF16_LE)
    assert FORMAT.read(out).segments[1].target.text == "Weg"


def test_detected_by_extension(tmp_path):
    assert detect(_write(tmp_path, CSV)).name == "tabular"


def test_magento_pack_imports_and_round_trips(tmp_path):
    src = data_file("magento2-de", "de_DE.csv")
    doc = FORMAT.read(src, src_lang="en", tgt_lang="de")
    assert len(doc.segments) > 10000
    with_ph = [s for s in doc.segments if "%1" in s.source.original()]
    assert with_ph and all(s.source.tag_count >= 1 and "%1" not in s.source.text for s in with_ph)
    assert all(s.context.startswith("module") for s in doc.segments[:50])
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, {})
    assert out.read_bytes() == src.read_bytes()
    FORMAT.write(src, out, {s.key: Translation(s.target) for s in doc.segments if s.target})
    assert out.read_bytes() == src.read_bytes()  # what the store exports for an untouched document
    tr = {s.key: Translation(TaggedText("DE " + s.source.text, s.source.tags)) for s in doc.segments[::7]}
    FORMAT.write(src, out, tr)
    again = FORMAT.read(out)
    assert [(s.key, s.source.text, s.context) for s in again.segments] == \
        [(s.key, s.source.text, s.context) for s in doc.segments]
    for a, b in zip(doc.segments, again.segments):
        expected = tr[a.key].target.text if a.key in tr else (a.target.text if a.target else None)
        assert (b.target.text if b.target else None) == expected


# ----------------------------------------------------------------- bad input
def test_truncated_file_inside_a_quoted_field_is_a_format_error_with_line(tmp_path):
    src = _write(tmp_path, '"a","b"\n"c","d\nmore text', name="cut.csv")
    with pytest.raises(FormatError) as ei:
        FORMAT.read(src)
    assert "cut.csv" in str(ei.value) and ei.value.location == "line 2"


def test_irregular_quoting_is_read_leniently_and_reported(tmp_path):
    # PHP's fputcsv writes a backslash before a quote: "..\" is not valid RFC 4180.
    src = _write(tmp_path, '"a","b"\n"Path (""..\\").","Pfad",module\n"c","d"\n', name="php.csv")
    doc = FORMAT.read(src)
    assert [s.key for s in doc.segments] == ["r1", "r2", "r3"]
    assert doc.segments[1].target.text == "Pfad"
    assert len(doc.problems) == 1 and doc.problems[0].startswith("line 2")
    out = tmp_path / "out.csv"
    FORMAT.write(src, out, {"r3": Translation(TaggedText("D"))})
    assert out.read_text("utf-8").splitlines()[1] == '"Path (""..\\").","Pfad",module'


def test_wrong_encoding_names_file_and_line(tmp_path):
    p = tmp_path / "latin.csv"
    p.write_bytes('"a","b"\n"Café","Kaffee"\n'.encode("latin-1"))
    with pytest.raises(FormatError) as ei:
        FORMAT.read(p)
    assert "latin.csv" in str(ei.value) and ei.value.location == "line 2"


@pytest.mark.parametrize("content", [b"", b"\r\n\r\n", codecs.BOM_UTF8])
def test_empty_file_is_a_format_error(tmp_path, content):
    p = tmp_path / "empty.csv"
    p.write_bytes(content)
    with pytest.raises(FormatError, match="empty.csv"):
        FORMAT.read(p)


def test_translation_for_unknown_row_is_refused(tmp_path):
    src = _write(tmp_path, CSV)
    with pytest.raises(FormatError, match="pack.csv"):
        FORMAT.write(src, tmp_path / "out.csv", {"r99": Translation(TaggedText("x"))})


# ------------------------------------------------------ layouts that are not clear
# A translator's 5-column export, quotes escaped PHP-style with a backslash: column 2 is not the
# translation of column 1.
FIVE = ('welcome,"Welcome to \\"Verso\\"","Willkommen bei \\"Verso\\"","Bienvenue dans \\"Verso\\"",ok\n'
        'open,"Open the file","Datei öffnen","Ouvrir le fichier",needs review\n'
        'save,"Save it, now","Jetzt speichern","Enregistrer maintenant",ok\n')


def test_an_ambiguous_table_is_refused_with_the_column_choice_to_make(tmp_path):
    src = _write(tmp_path, FIVE, name="export.csv")
    with pytest.raises(FormatError, match=r"not a clear bilingual table.*--columns") as ei:
        FORMAT.read(src, src_lang="en", tgt_lang="fr")
    assert "export.csv" in str(ei.value) and "\n" not in str(ei.value)


def test_chosen_columns_read_the_table_and_export_writes_that_column(tmp_path):
    from engine.formats import by_name, read_document, write_document

    src = _write(tmp_path, FIVE, name="export.csv")
    doc = read_document(src, src_lang="en", tgt_lang="fr", format="tabular:2,4")
    assert doc.format == "tabular:2,4"
    assert [s.source.text for s in doc.segments][1:] == ["Open the file", "Save it, now"]
    assert doc.segments[1].target.text == "Ouvrir le fichier"
    out = tmp_path / "out.csv"
    write_document(src, out, {"r2": Translation(TaggedText("Ouvrez le fichier"))}, format=doc.format,
                   tgt_lang="fr", src_lang="en")
    assert out.read_text("utf-8").splitlines()[1] == 'open,"Open the file","Datei öffnen","Ouvrez le fichier",needs review'
    assert by_name("tabular:2,4").columns == (1, 3)


def test_doc_import_refuses_an_ambiguous_table_and_takes_columns(tmp_path):
    import json
    import subprocess
    import sys

    src = _write(tmp_path, FIVE, name="export.csv")
    base = [sys.executable, "-m", "engine", "doc", "import", str(src), "--project", str(tmp_path / "p"),
            "--src-lang", "en", "--tgt-lang", "de"]
    r = subprocess.run(base, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--columns" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "p").exists()
    r = subprocess.run(base + ["--columns", "2,3"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["format"] == "tabular:2,3"


def test_a_two_column_table_and_a_magento_like_pack_stay_clear(tmp_path):
    assert FORMAT.read(_write(tmp_path, "Open the file,Datei öffnen\nSave,Speichern\n")).segments
    assert FORMAT.read(_write(tmp_path, CSV)).segments
