"""Qt TS messages without <translation> (Qt's DTD makes it optional; a public test set's
"complete, valid, UTF-8 BOM CRLF" sample has them): read as untranslated, an untouched export
is byte for byte the file, a translated message gains <translation> where lupdate puts it."""
from __future__ import annotations

from engine.formats.base import Translation
from engine.formats.qt_ts import FORMAT
from engine.store import Project

TS = ('\ufeff<?xml version="1.0" encoding="utf-8"?>\r\n<!DOCTYPE TS>\r\n<TS version="2.1" language="de">\r\n'
      "<context>\r\n    <name>Main</name>\r\n    <message>\r\n"
      '        <location filename="main.cpp" line="3"/>\r\n        <source>Hello</source>\r\n'
      "        <comment>greeting</comment>\r\n    </message>\r\n"
      '    <message numerus="yes">\r\n        <source>%n file(s)</source>\r\n    </message>\r\n'
      "    <message>\r\n        <source>Bye</source>\r\n        <translation>Tschüss</translation>\r\n"
      "    </message>\r\n</context>\r\n</TS>\r\n")


def _file(tmp_path):
    path = tmp_path / "app_de.ts"
    path.write_bytes(TS.encode("utf-8"))
    return path


def test_messages_without_translation_read_as_untranslated(tmp_path):
    doc = FORMAT.read(_file(tmp_path), tgt_lang="de")
    assert [(s.source.plain(), s.target, s.status) for s in doc.segments[:3]] == [
        ("Hello", None, "new"), (" file(s)", None, "new"), (" file(s)", None, "new")]
    assert doc.segments[3].target.text == "Tschüss" and doc.segments[3].status == "confirmed"


def test_untouched_export_is_the_file_byte_for_byte(tmp_path):
    src = _file(tmp_path)
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        out = p.export_document(p.documents()[0].id, tmp_path / "out.ts")
    assert out.read_bytes() == src.read_bytes()


def test_a_translated_message_gains_translation_where_lupdate_puts_it(tmp_path):
    src = _file(tmp_path)
    segs = FORMAT.read(src, tgt_lang="de").segments
    out = tmp_path / "out.ts"
    FORMAT.write(src, out, {segs[0].key: Translation(segs[0].source.with_text("Hallo"), "confirmed"),
                            segs[1].key: Translation(segs[1].source.with_text(segs[1].source.text[:1] + " Datei"),
                                                     "draft")}, tgt_lang="de")
    text = out.read_bytes().decode("utf-8")
    assert ("        <comment>greeting</comment>\r\n        <translation>Hallo</translation>\r\n    </message>"
            in text)
    assert ('        <source>%n file(s)</source>\r\n        <translation type="unfinished">\r\n'
            "            <numerusform>%n Datei</numerusform>\r\n"
            "            <numerusform></numerusform>\r\n        </translation>\r\n    </message>") in text
    assert text.replace("        <translation>Hallo</translation>\r\n", "", 1).startswith(TS[:TS.index("<message numerus")])
    again = FORMAT.read(out, tgt_lang="de").segments
    assert again[0].target.text == "Hallo" and again[0].status == "confirmed"
