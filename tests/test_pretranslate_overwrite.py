"""Pre-translate with "overwrite drafts" (memoQ's "overwrite: unconfirmed"): a draft -- the
translator's own included -- takes the 100 % TM match, an empty target is filled as before, and a
confirmed or locked segment is never touched; the summary says how many drafts were replaced.
Without the option a draft is kept, as before."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import protect
from engine.pretranslate import open_tms, pretranslate
from engine.store import Project
from engine.store.locks import SegmentLocks
from engine.tm import TranslationMemory

UNITS = {"Open the file.": "Öffnen Sie die Datei.", "Close the window.": "Schließen Sie das Fenster.",
         "Print the page.": "Drucken Sie die Seite.", "Save the file.": "Speichern Sie die Datei.",
         "Undo it.": "Rückgängig machen."}
SOURCES = ["Open the file.", "Close the window.", "Print the page.", "Save the file.", "Quit now.", "Undo it."]
BEFORE = ["", "Fenster zu", "Seite drucken!", "Speichern", "Jetzt beenden", "Rückgängig machen."]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """empty | my draft | confirmed | locked draft | draft with no match | draft equal to its match"""
    original = tmp_path / "guide.txt"
    original.write_text("\n\n".join(SOURCES), encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_parsed(ParsedDocument("guide.txt", "txt", "en", "de",
                                             [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(SOURCES)]),
                              original)
        segs = p.segments(doc)
        for seg, text in zip(segs[1:], BEFORE[1:]):
            p.set_target(seg.id, text)
        p.confirm(segs[2].id)
        SegmentLocks(p).lock(segs[3].id)
        with TranslationMemory(p.folder / "tm", src_lang="en", tgt_lang="de") as tm:
            for s, t in UNITS.items():
                tm.add(protect(s), protect(t))
        p.add_tm_ref("tm", writable=True)
    return tmp_path / "p"


def _run(folder: Path, **kw):
    with Project.open(folder) as p:
        doc = p.documents()[0].id
        tms = open_tms(p)
        try:
            res = pretranslate(p, doc, tms=tms, **kw)
        finally:
            for tm in tms:
                tm.close()
        return res, p.segments(doc)


def test_overwrite_drafts_replaces_my_draft_and_never_a_confirmed_or_locked_segment(folder):
    res, segs = _run(folder, overwrite_drafts=True)
    assert [s.target.text for s in segs] == [
        "Öffnen Sie die Datei.", "Schließen Sie das Fenster.",   # filled, and my draft replaced
        "Seite drucken!", "Speichern",                          # confirmed, locked: untouched
        "Jetzt beenden", "Rückgängig machen."]                  # no match; the same text: kept
    assert [s.status for s in segs] == ["draft", "draft", "confirmed", "draft", "draft", "draft"]
    assert (segs[1].origin, segs[1].origin_score) == ("tm", 1.0)
    assert res.to_json() == {"tm": 2, "mt": 0, "empty": 0, "kept": 4, "replaced": 1}


def test_without_the_option_drafts_are_kept_as_before(folder):
    res, segs = _run(folder)
    assert [s.target.text for s in segs] == ["Öffnen Sie die Datei.", *BEFORE[1:]]
    assert res.to_json() == {"tm": 1, "mt": 0, "empty": 0, "kept": 5}


def test_verso_doc_pretranslate_overwrite_drafts_reports_the_drafts_replaced(folder, capsys):
    rc = main(["doc", "pretranslate", "guide.txt", "--project", str(folder), "--model", "none",
               "--overwrite-drafts"])
    out = capsys.readouterr()
    assert rc == 0 and json.loads(out.out) == {"document_id": 1, "model": None, "tm": 2, "mt": 0, "empty": 0,
                                               "kept": 4, "replaced": 1}
    assert "pretranslate: 4/4" in out.err                      # 1 empty + 3 drafts tried
    with Project.open(folder) as p:
        segs = p.segments(1)
    assert [s.target.text for s in segs][:4] == ["Öffnen Sie die Datei.", "Schließen Sie das Fenster.",
                                                 "Seite drucken!", "Speichern"]


class EchoMT:
    """A stand-in model: translates "Quit now." only (no memory, no document context)."""

    model = None

    def memory_kind(self) -> str:
        return "none"

    def translate(self, texts, beam=5, **kw):
        from types import SimpleNamespace

        return [SimpleNamespace(text="Beenden Sie jetzt." if t == "Quit now." else "") for t in texts]


def test_a_draft_without_a_tm_match_takes_the_machine_translation(folder):
    res, segs = _run(folder, overwrite_drafts=True, translator=EchoMT())
    assert (segs[4].target.text, segs[4].origin, segs[4].status) == ("Beenden Sie jetzt.", "mt", "draft")
    assert res.to_json() == {"tm": 2, "mt": 1, "empty": 0, "kept": 3, "replaced": 2}
