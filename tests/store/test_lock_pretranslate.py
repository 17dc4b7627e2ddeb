"""Pre-translation leaves a locked segment as it is (empty or not), then Lock 100 % matches
locks what it filled from the TM."""
from __future__ import annotations

from pathlib import Path

from engine.pretranslate import open_tms, pretranslate
from engine.store import Project
from engine.store.locks import SegmentLocks
from engine.tm import TranslationMemory

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="guide" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="1"><source>Open the file.</source></trans-unit>
<trans-unit id="2" translate="no"><source>Close the window.</source></trans-unit>
<trans-unit id="3"><source>Save the file.</source></trans-unit>
<trans-unit id="4"><source>Print the file.</source></trans-unit>
</body></file></xliff>
"""


def test_pretranslate_does_not_fill_a_locked_segment(tmp_path: Path):
    src = tmp_path / "guide.xlf"
    src.write_text(XLF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        with TranslationMemory(p.folder / "tm", src_lang="en", tgt_lang="de") as tm:
            for s, t in (("Open the file.", "Öffnen Sie die Datei."), ("Close the window.", "Schließen Sie das Fenster."),
                         ("Save the file.", "Speichern Sie die Datei.")):
                tm.add(s, t)
        p.add_tm_ref("tm", writable=True)
        segs = p.segments(doc)
        SegmentLocks(p).lock(segs[2].id)  # locked by the translator, empty
        tms = open_tms(p)
        try:
            res = pretranslate(p, doc, tms=tms)
        finally:
            for tm in tms:
                tm.close()
        assert (res.tm, res.empty, res.kept, res.locked) == (1, 1, 0, 2)
        assert res.to_json() == {"tm": 1, "mt": 0, "empty": 1, "kept": 0, "locked": 2}
        assert [s.target.text for s in p.segments(doc)] == ["Öffnen Sie die Datei.", "", "", ""]
        assert SegmentLocks(p).lock_exact_matches(doc) == [segs[0].id]
        assert [s.locked for s in p.segments(doc)] == [True, True, True, False]
