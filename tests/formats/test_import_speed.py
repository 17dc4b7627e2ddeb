"""Issue 35 item 9, speed of import: the shortcuts taken on the way from file to store give what
the slower path gave (pysbd's sentences, the same rows)."""
from __future__ import annotations

import json

from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import Tag, TaggedText, protect
from engine.store.project import Project


def test_pysbd_sentences_found_without_a_pattern_per_sentence_are_pysbd_s_own():
    """pysbd finds each sentence again with a pattern compiled from it; the str.find search
    gives the same sentences (repeated sentences, white space of every kind, codes)."""
    from engine import segmentation

    samples = [
        "Yes. Yes. Yes.", "Yes.  Yes.\u00a0Yes.\tNo.", "Go. Go!  Go? Go...", "a. a. a. b.",
        "He said \"Stop. Now.\" Then he left. Then he left.", "It ended. \ue001Next\ue002 one. \ue003Ok.",
        "Dr. Smith met Dr. Smith. Dr. Smith left.", "1. One. 1. One. 2. Two.", "   ", "x",
    ]
    for lang in ("en", "de", "fr", "ja"):
        seg = segmentation._segmenter(segmentation.segmenter_language(lang))
        for text in samples:
            assert segmentation._pysbd_segment(seg, text) == seg.segment(text), (text, lang)


def test_digits_and_codes_before_a_capital_need_no_rules_and_agree_with_pysbd(monkeypatch):
    """A digit sends a piece to pysbd only before its final mark; ``word. <b>Next`` is a sure break."""
    from engine import segmentation

    samples = [
        "Call 555 1234 now. Then wait 20 minutes. It costs 30 euros!", "Step 1. Do it 2. Again.",
        "Chapter 12. Next part 3. The end.", "We met in room 101. The chair agreed 2 times.",
        "Prices rose 3.5 percent in 2020. Then they fell 2 points.", "See item 3) and 4) here. Done 2.",
        "It ended. \ue001Next\ue002 one came. \ue003Ok\ue004 then.", "Stop here. \ue001\ue002Go on 7 times. End.",
        "Total 12! Then 13? Then 14. Then more.", "Version 2 was out. Version 3 is not. iv. Next.",
    ]
    for text in samples:
        for lang in ("en", "de", "fr"):
            code = segmentation.segmenter_language(lang)
            assert segmentation._pysbd_cuts(text, code) == segmentation._rule_cuts(text, code), (text, lang)
    seen = []
    real = segmentation._rule_cuts
    monkeypatch.setattr(segmentation, "_rule_cuts", lambda text, code: seen.append(text) or real(text, code))
    seg = segmentation.segment_text("Call 555 1234 now. It ended. \ue001Next\ue002 one came 2 times.", "en")
    assert seg.sentences == ("Call 555 1234 now.", "It ended.", "\ue001Next\ue002 one came 2 times.")
    assert seen == []


def test_stored_rows_are_the_json_the_store_always_wrote(tmp_path):
    """Rows made one by one as SQLite takes them: tags, meta and statuses as json.dumps gave them."""
    bold = (Tag(1, "open", "<b>", "b", "p1"), Tag(2, "close", "</b>", "b", "p1", {"é": "ü"}))
    segs = [
        ParsedSegment(key="a", source=TaggedText("Plain.")),
        ParsedSegment(key="b", source=TaggedText("\ue001Bold\ue002 é.", bold),
                      target=TaggedText("\ue001Fett\ue002.", bold), status="confirmed",
                      note="n", context="c", meta={"line": 3, "flags": ["c-format"], "x": "ü"}),
        ParsedSegment(key="c", source=TaggedText("\ue001Bold\ue002.", bold), target=TaggedText("Fett."),
                      status="draft", meta={}),
        ParsedSegment(key="d", source=TaggedText("Nothing."), target=TaggedText(""), status="confirmed"),
    ]
    doc = ParsedDocument(path="x.txt", format="txt", segments=segs)
    original = tmp_path / "x.txt"
    original.write_text("x", "utf-8")
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="de")
    doc_id = p.import_parsed(doc, original)
    rows = p._conn.execute("SELECT key, source_tags, target, target_tags, status, origin, meta, confirmed_at "
                           "FROM segments WHERE document_id = ? ORDER BY idx", (doc_id,)).fetchall()
    tags = json.dumps([t.to_json() for t in bold], ensure_ascii=False)
    assert [tuple(r)[:7] for r in rows] == [
        ("a", "[]", "", "[]", "new", "", "{}"),
        ("b", tags, "\ue001Fett\ue002.", tags, "confirmed", "file",
         json.dumps({"line": 3, "flags": ["c-format"], "x": "ü"}, ensure_ascii=False)),
        ("c", tags, "Fett.", tags, "draft", "file", "{}"),
        ("d", "[]", "", "[]", "new", "", "{}"),
    ]
    assert [r["confirmed_at"] is not None for r in rows] == [False, True, False, False]
    assert [s.source for s in p.segments(doc_id)] == [s.source for s in segs]
    p.close()


def test_protecting_text_without_codes_is_the_text_and_private_use_characters_still_become_codes():
    assert protect("Plain words, 50% and 3.5.") == TaggedText("Plain words, 50% and 3.5.")
    assert protect("") == TaggedText("")
    tt = protect("Bullet \ue050 here")
    assert tt.text == "Bullet \ue001 here" and tt.tags[0].original == "\ue050"
    assert protect("Delete %1 <b>now</b>?").display() == "Delete <%1/> <b>now</b>?"
