"""An edited XLIFF 1.x unit written by serialising it again, only where that keeps its bytes.

The writer serialises an edited unit whole (engine/formats/xmlsplice.py ``Splice.element``) when
lxml's serialisation of it before the edit is its text in the file; otherwise its edited elements
are spliced one by one.  Either way the bytes of every untouched unit, and every byte the edit did
not change inside an edited one, stay as they were; both ways give the same file.
"""
from __future__ import annotations

import contextlib
import gc
from datetime import datetime, timezone
from pathlib import Path

import pytest
from lxml import etree

from datafiles import SHARED_DATA
from formats.xliffbytes import changes_outside_edited_units

from engine.errors import FormatError
from engine.formats import xliff12, xliff_revisions
from engine.formats.base import Translation
from engine.formats.xliffcommon import sniff_version
from engine.formats.xmlsafe import safe_parser
from engine.formats.xmlsplice import Splice

FIXTURES = Path(__file__).parent / "fixtures" / "xliff-bytes"
SUFFIXES = (".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".txlf")


def _xliff1(paths) -> list[Path]:
    return [p for p in paths if p.is_file() and p.suffix.lower() in SUFFIXES
            and sniff_version(p.read_bytes()[:4096]) in ("1", "")]


SAMPLES = _xliff1(sorted(FIXTURES.iterdir())) + _xliff1(
    sorted((SHARED_DATA / "format-samples").rglob("*")) if (SHARED_DATA / "format-samples").is_dir() else [])

HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n<xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0">'
        '<file original="a.docx" datatype="x-sdlfilterframework2" source-language="en-US" '
        'target-language="de-DE"><body>\n')


def _unit(uid: str, mid: str, source: str, target: str, extra: str = "") -> str:
    return (f'<trans-unit id="{uid}">{extra}<source>{source}</source><seg-source><mrk mtype="seg" mid="{mid}">'
            f'{source}</mrk></seg-source><target><mrk mtype="seg" mid="{mid}">{target}</mrk></target>'
            f'<sdl:seg-defs><sdl:seg id="{mid}" conf="Draft" origin="mt" origin-system="E"><sdl:value key="k">{mid}'
            f'</sdl:value></sdl:seg></sdl:seg-defs>'
            f'</trans-unit>\n')


# u1, u3 and u5 serialise as lxml writes them; u2 (a comment, CDATA, a character reference,
# single quotes) and u4 (a comment, <x id='4' />) do not
MIXED = HEAD + "".join([
    _unit("u1", "1", 'Open <x id="1"/> now.', 'Jetzt <x id="1"/> öffnen.'),
    _unit("u2", "2", "Caf&#233; <![CDATA[a < b]]>.", "Caf&#233; <![CDATA[a < b]]>.",
          "<!-- kept as written --><note from='me'>n</note>"),
    _unit("u3", "3", "Three.", "Drei."),
    _unit("u4", "4", "Four <x id='4' />.", "Vier <x id='4' />.", "<!-- u4 -->"),
    _unit("u5", "5", "Five.", "Fünf."),
]) + "</body></file></xliff>\n"


@pytest.fixture(autouse=True)
def _one_clock(monkeypatch):
    """The time an export stamps on an edited memoQ unit, the same in the two exports compared (they
    differed when a second passed between them)."""
    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    monkeypatch.setattr(xliff_revisions, "datetime", Clock)


@contextlib.contextmanager
def _spliced_one_by_one():
    """The writer with every unit's edits spliced element by element (never serialised whole)."""
    as_written = Splice._as_written
    Splice._as_written = lambda self, el: None
    try:
        yield
    finally:
        Splice._as_written = as_written


def _document(data: bytes) -> bytes:
    """The document as lxml writes it (``<x />`` and ``<x/>`` alike; canonical XML refuses memoQ's
    relative namespace URI)."""
    return etree.tostring(etree.fromstring(data, safe_parser()))


def _export(src: Path, out: Path, edits: dict[str, str], status: str = "confirmed") -> bytes:
    segs = {s.key: s for s in xliff12.FORMAT.read(src).segments}
    xliff12.FORMAT.write(src, out, {k: Translation(segs[k].source.with_text(t), status) for k, t in edits.items()})
    return out.read_bytes()


def _both_ways(src: Path, tmp_path: Path, edits: dict[str, str], status: str = "confirmed") -> tuple[bytes, bytes]:
    whole = _export(src, tmp_path / "whole.xlf", edits, status)
    with _spliced_one_by_one():
        spliced = _export(src, tmp_path / "spliced.xlf", edits, status)
    return whole, spliced


def test_edited_units_beside_odd_ones_keep_every_byte_they_did_not_change(tmp_path: Path):
    src = tmp_path / "mixed.sdlxliff"
    src.write_bytes(MIXED.encode("utf-8"))
    keys = [s.key for s in xliff12.FORMAT.read(src).segments]
    edits = {keys[0]: "Jetzt \ue001 sofort öffnen.", keys[2]: "Drei!", keys[3]: "Vier \ue001!", keys[4]: "Fünf!"}
    whole, spliced = _both_ways(src, tmp_path, edits)
    assert whole == spliced
    assert changes_outside_edited_units(src.read_bytes(), whole, "trans-unit", {0, 2, 3, 4}) == []
    text = whole.decode("utf-8")
    assert '<mrk mtype="seg" mid="1">Jetzt <x id="1"/> sofort öffnen.</mrk>' in text
    assert '<mrk mtype="seg" mid="4">Vier <x id="4"/>!</mrk>' in text  # the code as lxml writes it
    assert "<!-- u4 -->" in text and "<source>Four <x id='4' />.</source>" in text  # u4's own bytes
    assert '<sdl:seg id="5" conf="Translated" origin="interactive">' in text
    assert [s.target.text for s in xliff12.FORMAT.read(tmp_path / "whole.xlf").segments] == \
        [edits[keys[0]], "Café a < b.", "Drei!", "Vier \ue001!", "Fünf!"]


def test_plain_and_tagged_targets_with_markup_characters_are_escaped(tmp_path: Path):
    src = tmp_path / "mixed.sdlxliff"
    src.write_bytes(MIXED.encode("utf-8"))
    keys = [s.key for s in xliff12.FORMAT.read(src).segments]
    edits = {keys[0]: "a & b \ue001 <c> ]]> d\r", keys[2]: "x & y < z > w ]]> \"q\" 'r'"}
    whole, spliced = _both_ways(src, tmp_path, edits)
    assert whole == spliced
    text = whole.decode("utf-8")
    assert '>a &amp; b <x id="1"/> &lt;c&gt; ]]&gt; d&#13;</mrk>' in text
    assert ">x &amp; y &lt; z &gt; w ]]&gt; \"q\" 'r'</mrk>" in text
    back = [s.target.text for s in xliff12.FORMAT.read(tmp_path / "whole.xlf").segments]
    assert back[0] == "a & b \ue001 <c> ]]> d" and back[2] == edits[keys[2]]


def test_a_crlf_file_keeps_its_newlines_in_an_edited_unit(tmp_path: Path):
    src = tmp_path / "crlf.sdlxliff"
    src.write_bytes(MIXED.replace("<seg-source>", "\n<seg-source>").replace("\n", "\r\n").encode("utf-8"))
    keys = [s.key for s in xliff12.FORMAT.read(src).segments]
    whole, spliced = _both_ways(src, tmp_path, {keys[0]: "Neu.", keys[2]: "Neu drei."})
    assert whole == spliced
    assert whole.count(b"\n") == whole.count(b"\r\n") == src.read_bytes().count(b"\r\n")


@pytest.mark.parametrize("status", ["confirmed", "draft"])
def test_every_sample_exports_the_same_bytes_whether_units_are_serialised_whole_or_spliced(
        tmp_path: Path, status: str):
    assert SAMPLES
    wrote_whole = []
    write = Splice.write

    def counting(self, out, fallback):
        wrote_whole.append(len(self._whole))
        return write(self, out, fallback)

    Splice.write = counting
    try:
        for src in SAMPLES:
            try:
                segs = xliff12.FORMAT.read(src).segments
            except FormatError:  # a sample that is refused (not well-formed, hostile) has no export
                continue
            edits = {s.key: (s.target.text if s.target else s.source.text) + " x" for s in segs if not s.locked}
            if not edits:
                continue
            whole, spliced = _both_ways(src, tmp_path, edits, status)
            if whole != spliced:  # units written <x />: their new markup is written so, not as lxml does
                assert _document(whole) == _document(spliced), src.name
    finally:
        Splice.write = write
    assert any(wrote_whole)  # the whole-unit way was taken somewhere, or this test shows nothing


def test_an_export_makes_no_garbage_cycles_and_leaves_the_collector_running(tmp_path: Path):
    src = tmp_path / "mixed.sdlxliff"
    src.write_bytes(MIXED.encode("utf-8"))
    keys = [s.key for s in xliff12.FORMAT.read(src).segments]
    assert gc.isenabled()
    gc.collect()
    _export(src, tmp_path / "out.xlf", {k: "Neu." for k in keys})
    assert gc.collect() == 0  # the collector is paused while exporting: nothing may wait for it
    assert gc.isenabled()
    with pytest.raises(FormatError):
        _export(src, tmp_path / "bad.xlf", {keys[0]: "bad \x01"})
    assert gc.isenabled()


def test_an_edited_segments_status_tag_keeps_its_quotes_and_spacing(tmp_path: Path):
    def unit(n: int, seg_tag: str) -> str:  # a comment in each unit: spliced element by element
        return (f'<trans-unit id="u{n}"><!-- c --><source>S{n}.</source><seg-source><mrk mtype="seg" mid="{n}">S{n}.'
                f'</mrk></seg-source><target><mrk mtype="seg" mid="{n}">T{n}.</mrk></target><sdl:seg-defs>'
                f'{seg_tag}<sdl:value key="k">v</sdl:value></sdl:seg></sdl:seg-defs></trans-unit>\n')
    src = tmp_path / "tags.sdlxliff"
    src.write_bytes((HEAD + unit(1, '<sdl:seg id="1" conf="Draft" origin="mt" origin-system="E">')
                     + unit(2, "<sdl:seg id='2' conf='Draft' origin='mt'>")
                     + unit(3, '<sdl:seg  id="3" conf="Draft" origin="tm" percent="90" >')
                     + unit(4, '<sdl:seg id="4" conf="Draft" origin="mt" note="a &quot;b&quot; &amp; c">')
                     + "</body></file></xliff>\n").encode("utf-8"))
    keys = [s.key for s in xliff12.FORMAT.read(src).segments]
    out = _export(src, tmp_path / "out.sdlxliff", {k: f"Neu {i}." for i, k in enumerate(keys)}).decode("utf-8")
    assert '<sdl:seg id="1" conf="Translated" origin="interactive"><sdl:prev-origin origin="mt" origin-system="E">' in out
    assert "<sdl:seg id='2' conf='Translated' origin='interactive'><sdl:prev-origin origin=\"mt\">" in out
    assert '<sdl:seg  id="3" conf="Translated" origin="interactive" ><sdl:prev-origin origin="tm" percent="90">' in out
    assert '<sdl:seg id="4" conf="Translated" origin="interactive" note="a &quot;b&quot; &amp; c">' in out
    assert changes_outside_edited_units(src.read_bytes(), out.encode("utf-8"), "trans-unit", {0, 1, 2, 3}) == []


def test_a_unit_written_as_trados_writes_it_keeps_its_style_where_it_is_edited(tmp_path: Path):
    src = tmp_path / "trados.sdlxliff"
    src.write_bytes(MIXED.replace('"/>', '" />').encode("utf-8"))  # <x id="1" />, as .NET writes it
    keys = [s.key for s in xliff12.FORMAT.read(src).segments]
    edits = {keys[0]: "Jetzt \ue001 sofort öffnen.", keys[2]: "Drei!", keys[4]: "Fünf!"}
    whole, spliced = _both_ways(src, tmp_path, edits)
    assert changes_outside_edited_units(src.read_bytes(), whole, "trans-unit", {0, 2, 4}) == []
    text = whole.decode("utf-8")
    assert '<source>Open <x id="1" /> now.</source>' in text  # kept
    assert '<mrk mtype="seg" mid="1">Jetzt <x id="1" /> sofort öffnen.</mrk>' in text  # written in its style
    assert _document(whole) == _document(spliced)
    assert [s.target.text for s in xliff12.FORMAT.read(tmp_path / "whole.xlf").segments] == \
        [edits[keys[0]], "Café a < b.", "Drei!", "Vier \ue001.", "Fünf!"]
