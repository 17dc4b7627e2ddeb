"""Issue 35 item 9, speed of import: the shortcuts taken on the way from file to store give what
the slower path gave (the same sentences, the same rows)."""
from __future__ import annotations

import json

import pytest

from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import Tag, TaggedText, protect
from engine.store.project import Project


def test_digits_and_codes_before_a_capital_end_sentences_as_a_reader_expects():
    """A digit before the final mark and ``word. <b>Next``: sentence ends; a code standing alone
    as a word (``{0}``) may start one."""
    from engine import segmentation

    seg = segmentation.segment_text("Call 555 1234 now. It ended. \ue001Next\ue002 one came 2 times.", "en")
    assert seg.sentences == ("Call 555 1234 now.", "It ended.", "\ue001Next\ue002 one came 2 times.")
    assert segmentation.split_sentences("Chapter 12. Next part 3. The end.", "en") == [
        "Chapter 12.", "Next part 3.", "The end."]


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


def test_a_sentence_cut_from_a_paragraph_numbers_its_codes_from_one_keeping_their_markup():
    """``renumber`` (one split at the code characters) gives what a walk over every character gives:
    codes numbered 1, 2, ... in order, each with its markup; a code the table lacks is left as it is."""
    import random

    from engine.formats.textutil import renumber
    from engine.inline import TAG_BASE, new_tag, tag_char

    def walk(text, tags):
        by_n = {t.n: t for t in tags}
        out, new = [], []
        for ch in text:
            t = by_n.get(ord(ch) - TAG_BASE) if TAG_BASE < ord(ch) <= 0xF8FF else None
            if t is None:
                out.append(ch)
                continue
            new.append(new_tag(len(new) + 1, t.kind, t.original, t.label, t.pair, t.attrs))
            out.append(tag_char(len(new)))
        return TaggedText("".join(out), tuple(new))

    rng = random.Random(3)
    seen = 0
    for _ in range(3000):
        tags = [Tag(i, rng.choice(["open", "close", "ph"]), f"<x{i}>", "x", f"p{i}", {"at": i})
                for i in range(1, rng.randint(0, 8) + 1)]
        words = ["a", " b. ", "é", "\U000f0002", "x"] + [tag_char(rng.randint(1, 12)) for _ in range(rng.randint(0, 6))]
        text = "".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        got, want = renumber(text, tags), walk(text, tags)
        assert got == want and [t.attrs for t in got.tags] == [t.attrs for t in want.tags]
        seen += len(got.tags) > 1
    assert seen > 500


@pytest.mark.parametrize("count", [1, 59, 60, 61, 121])
def test_a_document_is_stored_whole_and_in_order_whatever_its_number_of_segments(tmp_path, count):
    """Segments go into the store several rows a statement (engine/store/bulk.py): every one is there,
    in the document's order, with the rows ``executemany`` would have stored, across statement ends."""
    from engine.store.project import _segment_rows

    bold = (Tag(1, "open", "<b>", "b", "p1"), Tag(2, "close", "</b>", "b", "p1"))
    segs = [ParsedSegment(key=f"k{i}", source=TaggedText(f"\ue001S\ue002 {i}." if i % 3 else f"S {i}.",
                                                          bold if i % 3 else ()),
                          target=TaggedText(f"Z {i}.") if i % 2 else None, status="confirmed" if i % 4 else "draft",
                          note=f"n{i}", meta={"i": i} if i % 5 else {}, locked=i % 7 == 0) for i in range(count)]
    doc = ParsedDocument(path="x.txt", format="txt", segments=segs)
    original = tmp_path / "x.txt"
    original.write_text("x", "utf-8")
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="de")
    p.import_parsed(ParsedDocument(path="y.txt", format="txt", segments=segs[:1]), original)  # ids go on after it
    doc_id = p.import_parsed(doc, original)
    rows = p._conn.execute("SELECT * FROM segments WHERE document_id = ? ORDER BY id", (doc_id,)).fetchall()
    now = rows[0]["created_at"]
    cols = ("document_id, idx, key, source, source_tags, target, target_tags, status, origin, note, context, meta, "
            "created_at, updated_at, confirmed_at, locked").split(", ")
    assert [tuple(r[c] for c in cols) for r in rows] == list(_segment_rows(doc_id, doc, now))
    assert [r["id"] for r in rows] == list(range(2, count + 2))
    assert [s.key for s in p.segments(doc_id)] == [f"k{i}" for i in range(count)]
    p.close()
