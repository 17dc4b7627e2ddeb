"""Apple .strings (UTF-16 with BOM, UTF-8) and .stringsdict plurals; spliced exports read back by
translate-toolkit (.strings) and plistlib (.stringsdict)."""
from __future__ import annotations

import json
import plistlib
from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect
from engine.formats.apple import STRINGS, STRINGSDICT
from engine.formats.base import Translation
from engine.formats.placeholders import protect_software

FIX = Path(__file__).parent / "fixtures" / "strings"


def _tr(texts: dict) -> dict[str, Translation]:
    return {k: Translation(protect_software(v)) for k, v in texts.items()}


def _ttk(data: bytes) -> dict[str, str]:
    from translate.storage import properties

    store = properties.stringsfile()
    store.parse(data)
    return {u.name: u.source for u in store.units}


def test_entries_comments_and_escapes():
    doc = STRINGS.read(FIX / "Localizable.strings")
    assert doc.meta["encoding"] == "utf-16-le" and doc.meta["bom"]
    by = {s.key: s for s in doc.segments}
    assert list(by) == ["window.title", "greeting", "unquoted_key", "café", "multi"]
    assert by["window.title"].source.text == 'Main "Window"'
    assert by["window.title"].note == "Title of the main window"
    assert by["greeting"].note == "Greeting with the user's name"
    assert by["greeting"].source.display() == "Hello, <%@/>! You have <%1$ld/> new items."
    assert by["unquoted_key"].source.text == "Tab\there\nnew line"
    assert by["multi"].source.text == "spread over lines"


@pytest.mark.parametrize("fmt,name", [(STRINGS, "Localizable.strings"), (STRINGS, "InfoPlist.strings"),
                                      (STRINGSDICT, "Localizable.stringsdict")])
def test_untouched_export_is_byte_identical(tmp_path, fmt, name):
    fmt.write(FIX / name, tmp_path / name, {})
    assert (tmp_path / name).read_bytes() == (FIX / name).read_bytes()


def test_edited_utf16_strings_stay_utf16_and_read_back(tmp_path):
    out = tmp_path / "fr.strings"
    STRINGS.write(FIX / "Localizable.strings", out, _tr({
        "window.title": 'Fenêtre "principale"', "greeting": "Bonjour, %@ ! Vous avez %1$ld éléments.\nSuite"}))
    data = out.read_bytes()
    assert data.startswith(b"\xff\xfe")
    text = data[2:].decode("utf-16-le")
    assert '"window.title" = "Fenêtre \\"principale\\"";\r\n' in text
    back = _ttk(data)
    assert back["window.title"] == 'Fenêtre "principale"'
    assert back["greeting"] == "Bonjour, %@ ! Vous avez %1$ld éléments.\nSuite"
    assert back["unquoted_key"] == "Tab\there\nnew line"


def test_stringsdict_plural_forms_are_segments_and_export_is_a_valid_plist(tmp_path):
    doc = STRINGSDICT.read(FIX / "Localizable.stringsdict")
    assert [json.loads(s.key)[1:] for s in doc.segments] == [["NSStringLocalizedFormatKey"], ["files", "one"],
                                                             ["files", "other"]]
    assert doc.segments[0].source.display() == "<%#@files@/>"
    out = tmp_path / "fr.stringsdict"
    STRINGSDICT.write(FIX / "Localizable.stringsdict", out, {
        doc.segments[1].key: Translation(protect_software("%d fichier sélectionné")),
        doc.segments[2].key: Translation(protect_software("%d fichiers sélectionnés & prêts")),
    })
    files = plistlib.loads(out.read_bytes())["%d files selected"]["files"]
    assert files["one"] == "%d fichier sélectionné"
    assert files["other"] == "%d fichiers sélectionnés & prêts"
    assert files["NSStringFormatValueTypeKey"] == "d"


def test_syntax_error_names_file_and_line(tmp_path):
    p = tmp_path / "bad.strings"
    p.write_text('"a" = "b";\n"c" "d";\n')
    with pytest.raises(FormatError, match=r"bad\.strings, line 2: unexpected '\"d\"': expected '='"):
        STRINGS.read(p)


def test_detected_by_extension():
    assert detect(FIX / "Localizable.strings").name == "apple-strings"
    assert detect(FIX / "Localizable.stringsdict").name == "apple-stringsdict"
