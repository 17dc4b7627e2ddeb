"""The locks an XLIFF file sets on its segments: read as ``ParsedSegment.locked`` (XLIFF 1.2 and
2.0 ``translate="no"``, SDL ``<sdl:seg locked="true">``, memoQ ``mq:locked``), stored locked in
the project, and never written back: the file exports byte for byte as it came."""
from __future__ import annotations

from pathlib import Path

from engine.formats.xliff12 import FORMAT as XLIFF12
from engine.formats.xliff20 import FORMAT as XLIFF20
from engine.formats.base import Translation
from engine.inline import TaggedText
from engine.store import Project

XLF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="ui" source-language="en" target-language="de" datatype="plaintext"><body>
  <trans-unit id="open"><source>Open the file.</source></trans-unit>
  <trans-unit id="brand" translate="no"><source>ACME Writer</source></trans-unit>
  <group translate="no">
   <trans-unit id="legal"><source>All rights reserved.</source><target>All rights reserved.</target></trans-unit>
   <trans-unit id="back" translate="yes"><source>Go back.</source></trans-unit>
  </group>
 </body></file>
</xliff>
"""

SDL = """<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" version="1.2" sdl:version="1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a.htm" source-language="en-US" datatype="x-sdlfilterframework2" target-language="de-DE"><body>
<trans-unit id="u1"><source>Home page. Contact.</source><seg-source><mrk mtype="seg" mid="1">Home page.</mrk> <mrk mtype="seg" mid="2">Contact.</mrk></seg-source><target><mrk mtype="seg" mid="1">Startseite.</mrk> <mrk mtype="seg" mid="2"/></target><sdl:seg-defs><sdl:seg id="1" conf="ApprovedSignOff" locked="true" origin="tm"/><sdl:seg id="2" origin="not-translated"/></sdl:seg-defs></trans-unit>
</body></file></xliff>"""

MQ = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff" version="1.2">
<file original="t" source-language="en" target-language="de" datatype="x-memoq"><body>
<trans-unit id="1" mq:status="ManuallyConfirmed" mq:locked="locked"><source>Fixed text.</source><target>Fester Text.</target></trans-unit>
<trans-unit id="2" mq:status="NotStarted" mq:locked="no"><source>Free text.</source><target></target></trans-unit>
</body></file></xliff>
"""

XLF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1"><segment><source>Open the file.</source></segment></unit>
  <group id="g1" translate="no">
   <unit id="u2"><segment><source>ACME Writer</source></segment></unit>
   <unit id="u3" translate="yes"><segment><source>Go back.</source></segment></unit>
  </group>
  <unit id="u4" translate="no"><segment id="a"><source>Fixed.</source></segment><segment id="b"><source>Also fixed.</source></segment></unit>
 </file>
</xliff>
"""


def _write(tmp_path: Path, text: str, name: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _locks(doc) -> dict[str, bool]:
    return {s.key: s.locked for s in doc.segments}


def test_xliff12_translate_no_on_the_unit_or_its_group_is_a_locked_segment(tmp_path):
    doc = XLIFF12.read(_write(tmp_path, XLF12, "ui.xlf"))
    assert _locks(doc) == {"open": False, "brand": True, "legal": True, "back": False}
    legal = next(s for s in doc.segments if s.key == "legal")
    assert legal.target.text == "All rights reserved."  # the file's target comes along, locked


def test_sdlxliff_locked_seg_is_locked_and_only_that_segment(tmp_path):
    doc = XLIFF12.read(_write(tmp_path, SDL, "a.sdlxliff"))
    assert _locks(doc) == {"u1#1": True, "u1#2": False}


def test_mqxliff_locked_row_is_locked_and_no_means_no(tmp_path):
    doc = XLIFF12.read(_write(tmp_path, MQ, "t.mqxliff"))
    assert _locks(doc) == {"1": True, "2": False}


def test_xliff20_translate_no_on_a_unit_or_its_group_locks_its_segments(tmp_path):
    doc = XLIFF20.read(_write(tmp_path, XLF20, "ui.xlf"))
    assert _locks(doc) == {"u1/1": False, "u2/1": True, "u3/1": False, "u4/a": True, "u4/b": True}


def test_a_lock_read_from_the_file_changes_nothing_in_it(tmp_path):
    """Translating the free segments writes them and leaves every locked unit as it was."""
    for fmt, text, name, free in ((XLIFF12, XLF12, "ui.xlf", "open"), (XLIFF20, XLF20, "ui2.xlf", "u1/1"),
                                  (XLIFF12, SDL, "a.sdlxliff", "u1#2"), (XLIFF12, MQ, "t.mqxliff", "2")):
        src = _write(tmp_path, text, name)
        out = tmp_path / f"out-{name}"
        fmt.write(src, out, {free: Translation(TaggedText("Übersetzt."), "confirmed")}, tgt_lang="de")
        written = out.read_text(encoding="utf-8")
        for marker in ('translate="no"', 'locked="true"', 'mq:locked="locked"'):
            assert written.count(marker) == text.count(marker), (name, marker)
        again = _locks(fmt.read(out))
        assert again == _locks(fmt.read(src)), name
        assert "Übersetzt." in written


def test_an_xliff_with_translate_no_opens_locked_and_exports_byte_identical(tmp_path):
    src = _write(tmp_path, XLF12, "ui.xlf")
    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        assert [s.locked for s in p.segments(doc)] == [False, True, True, False]
        out = p.export_document(doc, tmp_path / "out.xlf")
        assert out.read_bytes() == src.read_bytes()
