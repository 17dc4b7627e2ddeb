"""Bad input in string formats and glossaries gets one line naming file and line, never a
traceback or silently lost text: an entity an external DTD would define (Qt TS, RESX,
stringsdict, TBX refuse it as XLIFF and TMX do), a lone UTF-16 surrogate escape in a
.strings file, a DOCTYPE inside an .xlsx glossary."""
from __future__ import annotations

import zipfile

import pytest

from engine.errors import FormatError
from engine.formats import read_document
from engine.glossary.formats import read_glossary_file

DTD = '<!DOCTYPE x SYSTEM "http://example.com/x.dtd">'
FILES = {
    "a.ts": '<?xml version="1.0" encoding="utf-8"?>\n{dtd}\n<TS version="2.1" language="de">\n<context><name>C</name>'
            '\n<message><source>Hello &xxe;</source><translation type="unfinished"></translation></message>\n'
            "</context>\n</TS>\n",
    "a.resx": '<?xml version="1.0" encoding="utf-8"?>\n{dtd}\n<root>\n<data name="a" xml:space="preserve">'
              "<value>Hello &xxe;</value></data>\n</root>\n",
    "a.stringsdict": '<?xml version="1.0" encoding="UTF-8"?>\n{dtd}\n<plist version="1.0">\n<dict>\n<key>k</key>\n'
                     "<dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string><key>n</key><dict>"
                     "<key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>"
                     "<key>NSStringFormatValueTypeKey</key><string>d</string><key>one</key>"
                     "<string>Hello &xxe;</string><key>other</key><string>Hellos</string></dict></dict>\n"
                     "</dict>\n</plist>\n",
}
LINE = {"a.ts": 5, "a.resx": 4, "a.stringsdict": 6}


def _one_line(e, path, line: int) -> str:
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path)) and f"line {line}" in text
    return text


@pytest.mark.parametrize("name", sorted(FILES))
def test_an_undefined_entity_in_a_string_file_is_refused_not_dropped(tmp_path, name):
    path = tmp_path / name
    path.write_text(FILES[name].format(dtd=DTD), encoding="utf-8")
    with pytest.raises(FormatError) as e:
        read_document(path)
    assert "&xxe;" in _one_line(e, path, LINE[name])


def test_an_undefined_entity_in_a_tbx_term_is_refused_not_dropped(tmp_path):
    path = tmp_path / "a.tbx"
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n{DTD}\n<martif type="TBX" xml:lang="en"><text><body>\n'
                    '<termEntry id="c1"><langSet xml:lang="en"><tig><term>Hello &xxe;</term></tig></langSet>'
                    '<langSet xml:lang="de"><tig><term>Hallo</term></tig></langSet></termEntry>\n</body></text>'
                    "</martif>\n", encoding="utf-8")
    with pytest.raises(FormatError) as e:
        read_glossary_file(path, src_lang="en", tgt_lang="de")
    assert "&xxe;" in _one_line(e, path, 4)


def test_a_lone_surrogate_escape_in_a_strings_file_names_its_line(tmp_path):
    path = tmp_path / "Localizable.strings"
    path.write_text('"a" = "ok";\n/* two lines */\n"b" = "x\\UD800y";\n', encoding="utf-8")
    with pytest.raises(FormatError) as e:
        read_document(path)
    assert "\\UD800" in _one_line(e, path, 3)
    path.write_text('"a" = "\\UD83D\\UDE00";\n', encoding="utf-8")   # a pair is one character
    assert [s.source.text for s in read_document(path).segments] == ["\U0001F600"]


def test_an_xlsx_glossary_with_a_doctype_gets_one_line(tmp_path):
    from openpyxl import Workbook

    plain = tmp_path / "plain.xlsx"
    wb = Workbook()
    wb.active.append(["en", "de"])
    wb.active.append(["file", "Datei"])
    wb.save(plain)
    bad = tmp_path / "doctype.xlsx"
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "xl/worksheets/sheet1.xml":
                data = b'<!DOCTYPE x [<!ENTITY a "b">]>\n' + data
            zout.writestr(name, data)
    with pytest.raises(FormatError) as e:
        read_glossary_file(bad, src_lang="en", tgt_lang="de")
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(bad)) and "xl/worksheets/sheet1.xml has a DOCTYPE" in text
    assert [g.source for g in read_glossary_file(plain, src_lang="en", tgt_lang="de").entries] == ["file"]
