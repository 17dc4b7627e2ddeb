"""SDLXLIFF origin after an edit, as Trados Studio writes it: a translator's change to an MT or TM
segment makes it ``origin="interactive"`` and keeps what it was as ``<sdl:prev-origin>`` (Trados'
``OriginBeforeAdaptation``: origin, origin-system, percent, its own history nested), so Studio's
reports still count it as post-edited MT or an edited match; a segment confirmed unchanged keeps
its origin."""
from __future__ import annotations

import sys
from pathlib import Path

from lxml import etree

from datafiles import data_file
from engine.formats.base import Translation
from engine.formats.xliff12 import FORMAT, SDL_NS
from engine.inline import TaggedText

sys.path.insert(0, str(Path(__file__).parent.parent / "packages"))
from trados import sdlxliff_schema  # noqa: E402

NS = "{urn:oasis:names:tc:xliff:document:1.2}"
SDL = f"{{{SDL_NS}}}"
HEAD = ('<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" '
        'version="1.2" sdl:version="1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file original="a.htm" source-language="en-US" datatype="x-sdlfilterframework2" '
        'target-language="de-DE"><header/><body>\n')
MT = HEAD + """<trans-unit id="u1"><source>Open the file.</source><seg-source><mrk mtype="seg" mid="1">Open the file.</mrk></seg-source><target><mrk mtype="seg" mid="1">Öffne die Datei.</mrk></target><sdl:seg-defs><sdl:seg id="1" conf="Draft" origin="mt" origin-system="Google Translate"><sdl:prev-origin origin="tm" percent="75"/><sdl:value key="SDL:OriginalTranslationHash">123</sdl:value></sdl:seg></sdl:seg-defs></trans-unit>
<trans-unit id="u2"><source>Save it.</source><seg-source><mrk mtype="seg" mid="2">Save it.</mrk></seg-source><target><mrk mtype="seg" mid="2">Speichern Sie es.</mrk></target><sdl:seg-defs><sdl:seg id="2" conf="Draft" origin="tm" origin-system="Main TM" percent="95"/></sdl:seg-defs></trans-unit>
</body></file></xliff>"""


def _seg(path: Path, unit: str):
    tree = etree.parse(str(path))
    u = next(u for u in tree.iter(f"{NS}trans-unit") if u.get("id") == unit)
    return u.find(f"{SDL}seg-defs").find(f"{SDL}seg")


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "a.sdlxliff"
    p.write_text(text, encoding="utf-8")
    return p


def test_edited_mt_segment_becomes_interactive_and_keeps_mt_as_prev_origin(tmp_path):
    src = _write(tmp_path, MT)
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {"u1#1": Translation(TaggedText("Öffnen Sie die Datei."), "confirmed")})
    seg = _seg(out, "u1")
    assert seg.attrib == {"id": "1", "conf": "Translated", "origin": "interactive"}
    prev = seg.find(f"{SDL}prev-origin")
    assert prev.attrib == {"origin": "mt", "origin-system": "Google Translate"}
    assert prev.find(f"{SDL}prev-origin").attrib == {"origin": "tm", "percent": "75"}  # older history nested
    assert [v.text for v in seg.iter(f"{SDL}value")] == ["123", "123"]  # the origin's metadata kept on both
    # the untouched unit is the original bytes
    assert out.read_text(encoding="utf-8").split("\n")[2] == MT.split("\n")[2]
    schema = sdlxliff_schema(tmp_path)
    if schema is not None:
        assert schema.validate(etree.parse(str(out))), schema.error_log


def test_edited_tm_match_drops_its_percent_into_prev_origin(tmp_path):
    src = _write(tmp_path, MT)
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {"u2#2": Translation(TaggedText("Speichere es."), "draft")})
    seg = _seg(out, "u2")
    assert seg.attrib == {"id": "2", "conf": "Draft", "origin": "interactive"}
    assert seg.find(f"{SDL}prev-origin").attrib == {"origin": "tm", "origin-system": "Main TM", "percent": "95"}


def test_mt_segment_confirmed_unchanged_keeps_its_origin(tmp_path):
    src = _write(tmp_path, MT)
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {"u1#1": Translation(TaggedText("Öffne die Datei."), "confirmed")})
    seg = _seg(out, "u1")
    assert seg.get("conf") == "Translated" and seg.get("origin") == "mt"
    assert seg.get("origin-system") == "Google Translate"
    assert seg.find(f"{SDL}prev-origin").attrib == {"origin": "tm", "percent": "75"}
    assert out.read_text(encoding="utf-8") == MT.replace('conf="Draft" origin="mt"', 'conf="Translated" origin="mt"')


def test_edited_segment_of_a_real_trados_file_keeps_its_tm_match_as_prev_origin(tmp_path):
    src = data_file("format-samples", "okapi", "filters", "xliff", "src", "test", "resources", "TS09-12-Test01.xlf")
    key = next(s.key for s in FORMAT.read(src).segments if s.key.endswith("#1"))
    out = tmp_path / "out.sdlxliff"
    FORMAT.write(src, out, {key: Translation(TaggedText("Die ersten Schritte"), "confirmed")})
    seg = _seg(out, key.split("#")[0])
    assert seg.attrib == {"id": "1", "conf": "Translated", "origin": "interactive"}
    assert seg.find(f"{SDL}prev-origin").attrib == {
        "origin": "tm", "origin-system": "English-German", "percent": "100", "text-match": "SourceAndTarget"}
    before, after = src.read_bytes(), out.read_bytes()
    unit = key.split("#")[0].encode()
    cut = before.index(b'<trans-unit id="' + unit)
    end = before.index(b"</trans-unit>", cut)
    assert after[:cut] == before[:cut]  # everything before the edited unit, byte for byte
    assert after.endswith(before[end:])  # and everything after it
