"""Java .properties: escapes, continuations, encodings, splice export read back by translate-toolkit."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect
from engine.formats.base import Translation
from engine.formats.placeholders import protect_software
from engine.formats.props import FORMAT

FIX = Path(__file__).parent / "fixtures" / "strings"
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "data" / "format-samples"


def _ttk(data: bytes, personality: str) -> dict[str, str]:
    from translate.storage import properties

    store = properties.propfile(personality=personality)
    store.parse(data)
    return {u.name: u.source for u in store.units}


def _translate(doc, texts: dict[str, str]) -> dict[str, Translation]:
    return {k: Translation(protect_software(v)) for k, v in texts.items()}


def test_entries_become_segments_keyed_by_unescaped_key_with_comments_as_notes():
    doc = FORMAT.read(FIX / "messages.properties")
    by = {s.key: s for s in doc.segments}
    assert list(by) == ["greeting", "login.title", "café", "multi", "path", "key with spaces", "leading",
                        "html", "last"]  # "empty=" has nothing to translate
    assert by["greeting"].note == "Application messages\nsecond comment style"
    assert by["login.title"].note == "shown on the login page"
    assert by["café"].source.text == "Café au lait"
    assert by["multi"].source.text == "first part second part"
    assert by["path"].source.text == "C:\\temp\\new\tline"
    assert by["leading"].source.text == "  starts with a space"


def test_placeholders_and_html_are_codes():
    by = {s.key: s for s in FORMAT.read(FIX / "messages.properties").segments}
    assert by["greeting"].source.display() == "Hello, <{0}/>!"
    assert by["login.title"].source.display() == "Sign in to <%1$s/>"
    assert by["html"].source.display() == "Click <b>here</b> to continue"


@pytest.mark.parametrize("name", ["messages.properties", "latin1.properties", "utf8_bom.properties"])
def test_untouched_export_is_byte_identical(tmp_path, name):
    out = tmp_path / name
    FORMAT.write(FIX / name, out, {})
    assert out.read_bytes() == (FIX / name).read_bytes()


def test_ascii_file_gets_unicode_escapes_and_only_edited_values_change(tmp_path):
    src = FIX / "messages.properties"
    out = tmp_path / "fr.properties"
    FORMAT.write(src, out, _translate(None, {"greeting": "Bonjour, {0} !", "multi": "Ligne\nsuivante",
                                             "path": "C:\\tmp", "leading": " espace été"}))
    data = out.read_bytes()
    assert data.isascii()
    assert b"greeting = Bonjour, {0} !\r\n" in data
    assert b"leading = \\ espace \\u00e9t\\u00e9\r\n" in data
    # every other line as it was: comments, CRLF, the continuation of an untouched entry
    assert data.count(b"\r\n") == src.read_bytes().count(b"\r\n") - 1  # "multi" now fits one line
    assert b"caf\\u00e9=Caf\\u00e9 au lait\r\n" in data
    back = _ttk(data, "java")
    assert back["greeting"] == "Bonjour, {0} !"
    assert back["multi"] == "Ligne\nsuivante"
    assert back["path"] == "C:\\tmp"
    assert back["leading"] == " espace été"
    assert back["html"] == "Click <b>here</b> to continue"


def test_latin1_file_stays_latin1_with_escapes_only_for_what_it_lacks(tmp_path):
    doc = FORMAT.read(FIX / "latin1.properties")
    assert doc.meta["encoding"] == "iso-8859-1"
    assert doc.segments[0].source.text == "Fenêtre principale"
    out = tmp_path / "out.properties"
    FORMAT.write(FIX / "latin1.properties", out, _translate(doc, {"title": "Fenêtre — principale €"}))
    data = out.read_bytes()
    assert "title = Fenêtre \\u2014 principale \\u20ac\n".encode("iso-8859-1") in data
    assert _ttk(data, "java")["title"] == "Fenêtre — principale €"


def test_utf8_file_keeps_bom_and_raw_characters(tmp_path):
    out = tmp_path / "out.properties"
    FORMAT.write(FIX / "utf8_bom.properties", out, _translate(None, {"save": "Сохранить"}))
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and "save = Сохранить\n".encode() in data
    assert _ttk(data, "java-utf8")["save"] == "Сохранить"


def test_duplicate_keys_are_kept_apart_and_reported(tmp_path):
    p = tmp_path / "dup.properties"
    p.write_bytes(b"a=one\na=two\n")
    doc = FORMAT.read(p)
    assert [s.key for s in doc.segments] == ["a", "a#2"]
    assert doc.problems and "line 2" in doc.problems[0]


def test_malformed_unicode_escape_names_file_and_line(tmp_path):
    p = tmp_path / "bad.properties"
    p.write_bytes(b"ok=fine\nbad=\\u12G4\n")
    with pytest.raises(FormatError, match=r"bad\.properties, line 2: malformed"):
        FORMAT.read(p)


def test_unknown_key_is_refused_on_export(tmp_path):
    with pytest.raises(FormatError, match="does not have"):
        FORMAT.write(FIX / "latin1.properties", tmp_path / "o", _translate(None, {"nope": "x"}))


def test_detected_by_extension():
    assert detect(FIX / "messages.properties").name == "properties"


def test_real_samples_import_and_round_trip(tmp_path):
    files = sorted(SAMPLES.rglob("*.properties")) if SAMPLES.is_dir() else []
    if not files:
        pytest.skip("no .properties under ../shared/data/format-samples")
    for f in files:
        FORMAT.read(f)
        FORMAT.write(f, tmp_path / f.name, {})
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), f
