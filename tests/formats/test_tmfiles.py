"""TM units from any file carrying translations: TMX, bilingual CSV/TSV, PO,
XLIFF, and two line-aligned plain-text files."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from datafiles import data_file
from engine.errors import FormatError, UnsafeXMLError, UnsupportedFormatError
from engine.formats.tmfiles import is_tmx, read_tm_file
from engine.inline import tag_char

TMX = ('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n'
       '<header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="t" '
       'adminlang="en" srclang="en" datatype="plaintext"/>\n<body>\n'
       '<tu><tuv xml:lang="en"><seg>Hello</seg></tuv><tuv xml:lang="de"><seg>Hallo</seg></tuv></tu>\n'
       '<tu><tuv xml:lang="en"><seg>Bye</seg></tuv><tuv xml:lang="fr"><seg>Salut</seg></tuv></tu>\n'
       '</body>\n</tmx>\n')

PO = '''msgid ""
msgstr ""
"Language: de_DE\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#. Shown on the toolbar
msgctxt "toolbar"
msgid "Open"
msgstr "Öffnen"

#, fuzzy
msgid "Close %s"
msgstr "Schließen %s"

msgid "Not yet"
msgstr ""

msgid "One file"
msgid_plural "%d files"
msgstr[0] "Eine Datei"
msgstr[1] "%d Dateien"
'''

XLIFF12 = '''<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="ui.txt" source-language="en-US" target-language="fr-FR" datatype="plaintext">
  <body>
   <trans-unit id="1" resname="save"><source>Save <g id="b">now</g></source>
     <target state="translated">Enregistrer <g id="b">maintenant</g></target></trans-unit>
   <trans-unit id="2"><source>Quit</source></trans-unit>
   <trans-unit id="3"><source>Cut <x id="p"/> here</source><target state="new"><x id="p"/></target></trans-unit>
  </body>
 </file>
</xliff>
'''

XLIFF20 = '''<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1"><segment state="final"><source>Print</source><target>Drucken</target></segment></unit>
  <unit id="u2"><segment><source>Scan</source></segment></unit>
 </file>
</xliff>
'''


def put(tmp_path: Path, name: str, text: str, enc: str = "utf-8", bom: bytes = b"") -> Path:
    p = tmp_path / name
    p.write_bytes(bom + text.encode(enc))
    return p


# ---------------------------------------------------------------------- TMX
def test_tmx_by_extension_and_by_content(tmp_path: Path):
    for name in ("mem.tmx", "mem.xml"):
        p = put(tmp_path, name, TMX)
        assert is_tmx(p)
        problems: list[str] = []
        units = list(read_tm_file(p, src_lang="en", tgt_lang="de", problems=problems))
        assert [u.variants["de"].plain() for u in units] == ["Hallo"]
        assert len(problems) == 1 and "TU 2" in problems[0]
    p = put(tmp_path, "mem16.xml", TMX.replace("UTF-8", "UTF-16"), enc="utf-16-le")
    assert is_tmx(p)
    assert len(list(read_tm_file(p))) == 2


def test_hostile_tmx_refused_through_the_dispatcher(tmp_path: Path):
    p = put(tmp_path, "x.tmx", '<?xml version="1.0"?>\n<!DOCTYPE tmx [<!ENTITY a "a">]>\n<tmx/>\n')
    with pytest.raises(UnsafeXMLError):
        list(read_tm_file(p))


def test_unknown_file_type_and_tmx_with_a_second_file(tmp_path: Path):
    with pytest.raises(UnsupportedFormatError, match="not a translation memory file"):
        read_tm_file(put(tmp_path, "photo.jpg", "\xff\xd8"), src_lang="en", tgt_lang="de")
    with pytest.raises(FormatError, match="own translations"):
        read_tm_file(put(tmp_path, "m.tmx", TMX), target_file=put(tmp_path, "de.txt", "x\n"),
                     src_lang="en", tgt_lang="de")


def test_missing_file(tmp_path: Path):
    with pytest.raises(FormatError, match="no such file"):
        read_tm_file(tmp_path / "gone.csv")


# ---------------------------------------------------------- bilingual documents
@pytest.mark.data
def test_magento_csv_every_translated_row_becomes_a_unit():
    path = data_file("magento2-de", "de_DE.csv")
    with open(path, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh) if len(r) >= 2 and r[0].strip() and r[1].strip()]
    problems: list[str] = []
    units = list(read_tm_file(path, src_lang="en", tgt_lang="de_DE", problems=problems))
    assert len(units) == len(rows)
    assert not [m for m in problems if "skipped" in m]  # the reader may warn about odd quoting
    first = units[0]
    assert (first.variants["en"].plain(), first.variants["de-DE"].plain()) == (rows[0][0], rows[0][1])
    assert "Magento_AdminGws" in first.meta["context"] and first.meta["origin"] == str(path)
    with_placeholder = next(u for u in units if "%1" in u.variants["en"].display())
    en, de = with_placeholder.variants["en"], with_placeholder.variants["de-DE"]
    assert en.tag_count >= 1 and sorted(en.tag_numbers()) == sorted(de.tag_numbers())


@pytest.mark.data
def test_csv_without_languages_is_refused():
    with pytest.raises(FormatError, match="--src-lang"):
        read_tm_file(data_file("magento2-de", "de_DE.csv"))


def test_tsv_with_language_header(tmp_path: Path):
    p = put(tmp_path, "glossary.tsv", "en\tit\nPrinter\tStampante\nPaper\t\n")
    problems: list[str] = []
    units = list(read_tm_file(p, problems=problems))
    assert [(u.variants["en"].plain(), u.variants["it"].plain()) for u in units] == [("Printer", "Stampante")]
    assert len(problems) == 1 and "no translation" in problems[0]


def test_po_translated_entries_become_units(tmp_path: Path):
    p = put(tmp_path, "ui.po", PO)
    problems: list[str] = []
    units = list(read_tm_file(p, src_lang="en", problems=problems))
    got = [(u.variants["en"].display(), u.variants["de-DE"].display()) for u in units]
    assert got == [("Open", "Öffnen"), ("Close <%s/>", "Schließen <%s/>"),
                   ("One file", "Eine Datei"), ("<%d/> files", "<%d/> Dateien")]
    assert units[0].meta["context"] == "toolbar" and units[0].meta["note"] == "Shown on the toolbar"
    assert units[0].meta["status"] == "confirmed" and units[1].meta["status"] == "draft"
    assert len(problems) == 1 and "Not yet" in problems[0] and "no translation" in problems[0]


@pytest.mark.data
def test_kde_po_sample():
    path = data_file("kde4-l10n-de", "po-samples", "kbruch.po")
    units = list(read_tm_file(path, src_lang="en"))
    assert len(units) > 100
    assert all(set(u.variants) == {"en", "de"} for u in units)
    assert any(u.meta.get("context") == "NAME OF TRANSLATORS" for u in units)


def test_po_without_language_needs_one(tmp_path: Path):
    p = put(tmp_path, "ui.po", PO.replace('"Language: de_DE\\n"\n', ""))
    with pytest.raises(FormatError, match="--tgt-lang"):
        read_tm_file(p, src_lang="en")
    assert len(list(read_tm_file(p, src_lang="en", tgt_lang="de"))) == 4


def test_xliff12_units_languages_from_the_file(tmp_path: Path):
    p = put(tmp_path, "ui.xlf", XLIFF12)
    problems: list[str] = []
    units = list(read_tm_file(p, problems=problems))
    assert len(units) == 1
    u = units[0]
    assert u.variants["en-US"].plain() == "Save now"
    assert u.variants["fr-FR"].text == f"Enregistrer {tag_char(1)}maintenant{tag_char(2)}"
    assert u.meta["key"] and u.meta["origin"] == str(p)
    assert len(problems) == 2
    assert any("no translation" in m for m in problems)
    assert any("only inline codes" in m for m in problems)


def test_xliff_of_another_language_than_asked_is_refused(tmp_path: Path):
    p = put(tmp_path, "ui.xlf", XLIFF12)
    with pytest.raises(FormatError, match=r"declares .*fr-FR; the TM is .*de"):
        read_tm_file(p, tgt_lang="de")
    assert len(list(read_tm_file(p, src_lang="en", tgt_lang="fr"))) == 1


def test_xliff20(tmp_path: Path):
    units = list(read_tm_file(put(tmp_path, "doc.xlf", XLIFF20)))
    assert [(u.variants["en"].plain(), u.variants["de"].plain()) for u in units] == [("Print", "Drucken")]


def test_plain_text_alone_holds_no_translations(tmp_path: Path):
    p = put(tmp_path, "a.txt", "Hello.\n")
    with pytest.raises(FormatError, match="second, line-aligned file"):
        read_tm_file(p, src_lang="en", tgt_lang="de")


# ------------------------------------------------------------ line-aligned text
def test_aligned_text_pairs_lines_and_numbers_codes_alike(tmp_path: Path):
    src = put(tmp_path, "en.txt", "Delete %1 <b>now</b>?\n\nKeep {0}.\nOnly here\r\nLast\n")
    tgt = put(tmp_path, "de.txt", "<b>Jetzt</b> %1 löschen?\n\n{0} behalten.\n\nZuletzt", bom=b"\xef\xbb\xbf")
    problems: list[str] = []
    units = list(read_tm_file(src, target_file=tgt, src_lang="EN", tgt_lang="de_de", problems=problems))
    assert [(u.line, u.variants["de-DE"].plain()) for u in units] == [(1, "Jetzt  löschen?"),
                                                                         (3, " behalten."), (5, "Zuletzt")]
    en, de = units[0].variants["en"], units[0].variants["de-DE"]
    by_orig_en = {t.original: t.n for t in en.tags}
    assert {t.original: t.n for t in de.tags} == by_orig_en == {"%1": 1, "<b>": 2, "</b>": 3}
    assert problems == [f"{src}, line 4: skipped, empty translation"]
    assert units[0].meta["origin_target"] == str(tgt)


def test_aligned_text_utf16(tmp_path: Path):
    src = put(tmp_path, "en.txt", "One\nTwo\n", enc="utf-16")
    tgt = put(tmp_path, "de.txt", "Eins\nZwei\n", enc="utf-16-be", bom=b"\xfe\xff")
    units = list(read_tm_file(src, target_file=tgt, src_lang="en", tgt_lang="de"))
    assert [u.variants["de"].plain() for u in units] == ["Eins", "Zwei"]
    assert units[0].variants["en"].plain() == "One"


def test_aligned_text_line_count_mismatch_names_both_files(tmp_path: Path):
    src = put(tmp_path, "en.txt", "One\nTwo\nThree\n")
    tgt = put(tmp_path, "de.txt", "Eins\nZwei\n")
    with pytest.raises(FormatError) as e:
        read_tm_file(src, target_file=tgt, src_lang="en", tgt_lang="de")
    msg = str(e.value)
    assert str(src) in msg and str(tgt) in msg and "3 lines" in msg and "has 2" in msg
    assert e.value.location == "line 3"


def test_aligned_text_needs_languages(tmp_path: Path):
    src = put(tmp_path, "en.txt", "One\n")
    tgt = put(tmp_path, "de.txt", "Eins\n")
    with pytest.raises(FormatError, match="language"):
        read_tm_file(src, target_file=tgt, src_lang="en")
    with pytest.raises(FormatError, match="both en"):
        read_tm_file(src, target_file=tgt, src_lang="en", tgt_lang="EN")


def test_aligned_text_bad_bytes_named_with_line(tmp_path: Path):
    src = put(tmp_path, "en.txt", "One\nTwo\n")
    tgt = tmp_path / "de.txt"
    tgt.write_bytes("Eins\nZwö\n".encode("latin-1"))
    with pytest.raises(FormatError) as e:
        read_tm_file(src, target_file=tgt, src_lang="en", tgt_lang="de")
    assert e.value.path == str(tgt) and e.value.location == "line 2"
