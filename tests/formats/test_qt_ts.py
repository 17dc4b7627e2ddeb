"""Qt TS: contexts, plurals, unfinished/vanished messages; translation elements spliced and read
back by translate-toolkit's ts2 store."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect
from engine.formats.base import Translation
from engine.formats.qt_ts import FORMAT
from engine.inline import TaggedText

FIX = Path(__file__).parent / "fixtures" / "strings"


def _segs():
    return FORMAT.read(FIX / "app_de.ts").segments


def _tr(seg, text: str, status="confirmed") -> Translation:
    for t in seg.source.tags:
        text = text.replace("{%d}" % t.n, t.char)
    return Translation(TaggedText(text, seg.source.tags), status)


def _ttk(data: bytes) -> list:
    from translate.storage import ts2

    return ts2.tsfile.parsestring(data).units


def test_messages_contexts_plurals_and_states():
    doc = FORMAT.read(FIX / "app_de.ts")
    assert doc.tgt_lang == "de-DE"
    segs = doc.segments
    assert [s.context for s in segs] == ["MainWindow"] * 5 + ["Dialog"]  # the vanished one is left out
    assert [s.status for s in segs] == ["new", "confirmed", "new", "new", "new", "draft"]
    assert segs[0].note == "menu entry" and segs[1].note == "Asked before closing"
    assert [s.meta.get("plural_index") for s in segs[2:4]] == [0, 1]
    assert segs[1].target.display() == '"<%1/>" speichern?'
    assert segs[4].source.display() == "Rich <b>bold</b> text"


def test_untouched_export_is_byte_identical(tmp_path):
    FORMAT.write(FIX / "app_de.ts", tmp_path / "o.ts", {})
    assert (tmp_path / "o.ts").read_bytes() == (FIX / "app_de.ts").read_bytes()


def test_edited_export_reads_back_with_translate_toolkit(tmp_path):
    s = _segs()
    out = tmp_path / "o.ts"
    FORMAT.write(FIX / "app_de.ts", out, {
        s[0].key: _tr(s[0], "&Öffnen {1}"),
        s[2].key: _tr(s[2], "{1} Datei gelöscht"),
        s[3].key: _tr(s[3], "{1} Dateien gelöscht"),
        s[4].key: _tr(s[4], "Reich {1}fett{2} 'Text'", "draft"),
    })
    data = out.read_bytes()
    assert b'<translation>&amp;\xc3\x96ffnen %1</translation>' in data
    assert b'<translation type="unfinished">Reich &lt;b&gt;fett&lt;/b&gt; &apos;Text&apos;</translation>' in data
    units = {(u.getcontext().split("\n")[0], str(u.source)): u for u in _ttk(data)}  # context + comment
    assert units[("MainWindow", "&Open %1")].target == "&Öffnen %1"
    assert not units[("MainWindow", "&Open %1")].isfuzzy()
    plural = units[("MainWindow", "%n file(s) deleted")]
    assert plural.target.strings == ["%n Datei gelöscht", "%n Dateien gelöscht"]
    assert units[("MainWindow", "Rich <b>bold</b> text")].isfuzzy()
    # the other context's message with the same source, and the vanished one, are as they were
    assert units[("Dialog", "&Open %1")].target == "&Öffnen %1" and units[("Dialog", "&Open %1")].isfuzzy()
    assert b'<translation type="vanished">Alter Eintrag</translation>' in data


def test_typescript_file_is_not_taken_for_a_ts_file(tmp_path):
    p = tmp_path / "app.ts"
    p.write_text("export const x: number = 1;\n")
    assert not FORMAT.sniff(p, p.read_bytes())
    assert detect(FIX / "app_de.ts").name == "qt-ts"


def test_message_without_source_is_refused_with_its_line(tmp_path):
    p = tmp_path / "bad.ts"
    p.write_text('<?xml version="1.0"?>\n<TS version="2.1"><context><name>C</name>\n'
                 '<message><comment>x</comment></message></context></TS>\n')
    with pytest.raises(FormatError, match=r"bad\.ts, line 3: a <message> without <source>"):
        FORMAT.read(p)


def test_declared_languages_are_read_and_a_conflict_named():
    from engine.formats import language_conflict, read_declared

    _, declared = read_declared(FIX / "app_de.ts", src_lang="en", tgt_lang="fr")
    assert declared == ("en-US", "de-DE")
    assert "de" in language_conflict(declared, "en", "fr") and not language_conflict(declared, "en", "de")
