"""PO files the tester brought: a msgid without msgstr (with a BOM) is refused at import in
one line naming the line, as msgfmt refuses it -- never dropped in silence, never a traceback
at export; a PO with plurals and no header exports byte for byte while nothing is edited."""
from __future__ import annotations

import re

import pytest

from engine.errors import FormatError
from engine.formats.base import Translation
from engine.formats.po import FORMAT
from engine.store import Project

BOM = b"\xef\xbb\xbf"
HEADER = b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


@pytest.mark.parametrize("body, line", [
    (b'msgid "World"\nmsgstr ""\n\nmsgid "Hello"\n', 8),                 # the last entry
    (b'msgid "World"\nmsgstr ""\n\n#, fuzzy\nmsgid "Hello"\n', 9),        # with a comment: was read
    (b'msgid "World"\nmsgstr "Welt"\n\nmsgid "Hello"', 8),               # no line end at the end
])
def test_a_msgid_without_msgstr_is_refused_naming_its_line(tmp_path, body, line):
    path = tmp_path / "bom.po"
    path.write_bytes(BOM + HEADER + body)
    with pytest.raises(FormatError) as e:
        FORMAT.read(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path)) and f"line {line}" in text
    assert 'msgid "Hello" has no msgstr' in text


def test_a_bom_file_with_every_msgstr_exports_an_edit(tmp_path):
    path = tmp_path / "bom.po"
    path.write_bytes(BOM + HEADER + b'msgid "World"\nmsgstr ""\n\n#, fuzzy\nmsgid "Hello"\nmsgstr ""\n')
    segs = FORMAT.read(path).segments
    out = tmp_path / "out.po"
    FORMAT.write(path, out, {segs[1].key: Translation(segs[1].source.with_text("Hallo"), "confirmed")})
    assert out.read_bytes() == BOM + HEADER + b'msgid "World"\nmsgstr ""\n\nmsgid "Hello"\nmsgstr "Hallo"\n'


PLURALS = b'msgid "file"\nmsgid_plural "files"\nmsgstr[0] ""\nmsgstr[1] ""\n\nmsgid "Open"\nmsgstr ""\n'


@pytest.mark.parametrize("lang", ["de", "pl", "ja"])
def test_plurals_without_a_header_export_untouched_byte_for_byte(tmp_path, lang):
    src = tmp_path / "app.po"
    src.write_bytes(PLURALS)
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang=lang) as p:
        p.import_document(src)
        out = tmp_path / "out.po"
        p.export_document(p.documents()[0].id, out)
    assert out.read_bytes() == PLURALS


def test_plurals_without_a_header_gain_the_languages_rule_once_edited(tmp_path):
    src = tmp_path / "app.po"
    src.write_bytes(PLURALS)
    segs = FORMAT.read(src, tgt_lang="pl").segments
    out = tmp_path / "out.po"
    FORMAT.write(src, out, {segs[0].key: Translation(segs[0].source.with_text("plik"), "confirmed")}, tgt_lang="pl")
    text = out.read_text(encoding="utf-8")
    assert "Plural-Forms: nplurals=3;" in text and 'msgstr[0] "plik"' in text and "msgstr[2]" in text


STAMPED = (b'msgid ""\nmsgstr ""\n"Project-Id-Version: app 1.0\\n"\n"PO-Revision-Date: 2019-01-02 03:04+0100\\n"\n'
           b'"Last-Translator: Old Hand <old@example.com>\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
           b'msgid "Open"\nmsgstr ""\n\nmsgid "Close"\nmsgstr "Schliessen"\n')


def test_an_edited_po_says_who_revised_it_and_when_an_untouched_one_does_not(tmp_path, monkeypatch):
    from engine.identity import ENV

    monkeypatch.setenv(ENV, "Ana Translator")
    src = tmp_path / "app.po"
    src.write_bytes(STAMPED)
    out = tmp_path / "out.po"
    FORMAT.write(src, out, {})
    assert out.read_bytes() == STAMPED
    segs = FORMAT.read(src).segments
    FORMAT.write(src, out, {segs[1].key: Translation(segs[1].target, "confirmed")})   # nothing changed
    assert out.read_bytes() == STAMPED
    FORMAT.write(src, out, {segs[0].key: Translation(segs[0].source.with_text("Öffnen"), "confirmed")})
    text = out.read_text(encoding="utf-8")
    assert '"Last-Translator: Ana Translator\\n"' in text and "2019-01-02" not in text
    assert re.search(r'"PO-Revision-Date: \d{4}-\d\d-\d\d \d\d:\d\d\+0000\\n"', text)
    assert text.replace(re.search(r"PO-Revision-Date: [^\\]*", text).group(0), "PO-Revision-Date: X") \
        .replace("Ana Translator", "Old Hand <old@example.com>") \
        == STAMPED.decode().replace("2019-01-02 03:04+0100", "X").replace('msgstr ""\n\nmsgid "Close"',
                                                                         'msgstr "Öffnen"\n\nmsgid "Close"')
