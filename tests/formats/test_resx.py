""".NET RESX: string resources only, values spliced, read back by translate-toolkit's resx store."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect, read_document
from engine.formats.base import Translation
from engine.formats.placeholders import protect_software
from engine.formats.resx import FORMAT

FIX = Path(__file__).parent / "fixtures" / "strings"


def test_string_resources_are_segments_typed_and_designer_entries_are_not():
    doc = FORMAT.read(FIX / "Strings.resx")
    assert [s.key for s in doc.segments] == ["Greeting", "Multi"]
    g = doc.segments[0]
    assert g.note == "{0} is the user name"
    assert g.source.plain() == "Hello , you have  points & "  # {0}, {1:N0} and <rewards> are codes
    assert doc.segments[1].source.text == "Line one\nLine two"


def test_untouched_export_is_byte_identical(tmp_path):
    FORMAT.write(FIX / "Strings.resx", tmp_path / "o.resx", {})
    assert (tmp_path / "o.resx").read_bytes() == (FIX / "Strings.resx").read_bytes()


def test_edited_export_escapes_and_reads_back_with_translate_toolkit(tmp_path):
    from translate.storage import resx

    out = tmp_path / "Strings.fr.resx"
    FORMAT.write(FIX / "Strings.resx", out, {
        "Greeting": Translation(protect_software("Bonjour {0}, vous avez {1:N0} points & <récompenses>")),
    })
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert "<value>Bonjour {0}, vous avez {1:N0} points &amp; &lt;récompenses&gt;</value>\r\n".encode() in data
    units = {u.getid(): u.source for u in resx.RESXFile.parsestring(data).units}
    assert units["Greeting"] == "Bonjour {0}, vous avez {1:N0} points & <récompenses>"
    assert units["Multi"] == "Line one\nLine two" and units["button1.Size"] == "75, 23"
    before = (FIX / "Strings.resx").read_bytes().split(b"\r\n")
    assert sum(a != b for a, b in zip(before, data.split(b"\r\n"))) == 1


def test_detected_by_content(tmp_path):
    p = tmp_path / "strings.xml"
    p.write_bytes((FIX / "Strings.resx").read_bytes())
    assert detect(p).name == "resx"


def test_other_xml_with_a_root_element_named_root_is_refused_in_one_line(tmp_path):
    p = tmp_path / "config.xml"
    p.write_text('<?xml version="1.0"?>\n<root><setting>1</setting></root>\n')
    with pytest.raises(FormatError, match=r"config\.xml: XML with the root element <root> but no <data>"):
        read_document(p)
