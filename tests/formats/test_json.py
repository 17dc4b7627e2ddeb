"""JSON resources: nested paths, i18next plurals, placeholders, splice export read back by json."""
from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect, textutil
from engine.formats.base import Translation
from engine.formats.jsonfmt import FORMAT
from engine.formats.placeholders import protect_software

FIX = Path(__file__).parent / "fixtures" / "strings"


def _tr(texts: dict) -> dict[str, Translation]:
    return {json.dumps(k, ensure_ascii=False): Translation(protect_software(v)) for k, v in texts}


def test_string_values_become_segments_keyed_by_path():
    doc = FORMAT.read(FIX / "nested.json")
    contexts = [s.context for s in doc.segments]
    assert contexts == ["app.title", "app.welcome", "app.item_one", "app.item_other", "app.nested", "menu[0]",
                        "menu[1]", "menu[2].label", "path/with", "app.title"]
    assert doc.segments[0].source.text == 'My "great" app'
    assert doc.segments[6].source.text == "Save as…"
    assert doc.segments[-1].key.endswith("#2") and "duplicate key" in doc.problems[0]


def test_i18next_plurals_and_interpolation():
    by = {s.context: s for s in FORMAT.read(FIX / "nested.json").segments}
    assert by["app.item_one"].meta["plural_form"] == "one"
    assert by["app.item_other"].note == "plural form 'other' of 'item'"
    assert by["app.welcome"].source.display() == "Welcome, <{{name}}/>!"
    assert by["app.nested"].source.display() == "See <$t(app.title)/> for more"


@pytest.mark.parametrize("name", ["nested.json", "flat_bom.json"])
def test_untouched_export_is_byte_identical(tmp_path, name):
    FORMAT.write(FIX / name, tmp_path / name, {})
    assert (tmp_path / name).read_bytes() == (FIX / name).read_bytes()


def test_edited_export_changes_only_the_translated_literals(tmp_path):
    out = tmp_path / "fr.json"
    FORMAT.write(FIX / "nested.json", out, _tr([
        (["app", "title"], 'Mon appli « géniale » "x"'), (["menu", 2, "label"], "Quitter\nmaintenant"),
        (["app", "item_other"], "{{count}} éléments")]))
    data = out.read_text("utf-8")
    assert data.isascii()  # the file writes non-ASCII as \u escapes: so does the export
    back = json.loads(data)
    assert back["menu"][2]["label"] == "Quitter\nmaintenant"
    first_app = dict(json.loads(data, object_pairs_hook=list)[0][1])  # the file has "app" twice
    assert first_app["title"] == 'Mon appli « géniale » "x"'
    assert first_app["item_other"] == "{{count}} éléments"
    original = (FIX / "nested.json").read_text().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(original, data.splitlines())) if a != b]
    assert changed == [2, 5, 12]  # title, item_other and the menu line; nothing else moved


def test_utf8_file_keeps_bom_and_characters(tmp_path):
    out = tmp_path / "o.json"
    FORMAT.write(FIX / "flat_bom.json", out, _tr([(["café"], "Kaffee 😀")]))
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and raw.endswith(b"}\r\n")
    assert json.loads(raw.decode("utf-8-sig"))["café"] == "Kaffee 😀"


def test_invalid_json_names_line_and_column(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{\n  "a": "x",\n  "b": \n}\n')
    with pytest.raises(FormatError, match=r"bad\.json, line 4, column 1: not valid JSON"):
        FORMAT.read(p)


def test_deep_nesting_is_refused(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(FormatError, match="nested"):
        FORMAT.read(p)


def test_huge_file_is_refused_before_reading(tmp_path):
    p = tmp_path / "big.json"
    with p.open("wb") as fh:  # sparse: one byte over the limit without writing it
        fh.write(b'{"k": "text"}')
        fh.truncate(textutil.MAX_DOCUMENT_BYTES + 1)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="split it"):
            FORMAT.read(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak  # refused on its size: none of its 64 MiB read


def test_too_many_strings_are_refused_before_walking(tmp_path, monkeypatch):
    monkeypatch.setattr(textutil, "MAX_SEGMENTS", 10)
    p = tmp_path / "many.json"
    p.write_text(json.dumps([f"s{i}" for i in range(50)]))
    with pytest.raises(FormatError, match=r"50 strings: more than the 10 "):
        FORMAT.read(p)


def test_detected_by_extension():
    assert detect(FIX / "nested.json").name == "json"


def test_one_string_over_the_string_limit_is_refused_with_its_line(tmp_path):
    p = tmp_path / "long.json"
    p.write_text('{\n  "a": "ok",\n  "b": "' + "x" * (textutil.MAX_STRING_CHARS + 1) + '"\n}\n')
    t = time.thread_time()  # this thread's CPU: a busy machine's other processes do not count
    with pytest.raises(FormatError, match=r"long\.json, line 3: a string longer than 1 MiB"):
        FORMAT.read(p)
    assert time.thread_time() - t < 2


def test_chrome_messages_descriptions_are_notes_not_segments():
    doc = FORMAT.read(FIX / "messages.json")
    assert [s.context for s in doc.segments] == ["extName.message", "savedCount.message",
                                                 "savedCount.placeholders.count.example"]
    assert doc.segments[0].note == "Name of the extension, shown in the store"
