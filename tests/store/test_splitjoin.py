"""Split and join in the project store: a split's pieces keep the format key and export as the
original paragraph (TXT, DOCX, HTML, XLIFF), undo puts the rows back exactly, joins stay inside
what a split divided, paired tags and locks refuse, and each change is one transaction."""
from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import pytest

from engine.errors import ProjectError
from engine.store import Project
from engine.store.locks import SegmentLocks
from engine.store.splitjoin import SplitJoin, SplitJoinError
from formats.docfiles import make_docx

TXT = "Open the file and close the window. Save it.\n\nSecond paragraph.\n"
XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="guide" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="1"><source>Open the <g id="b">file</g> and close the window.</source></trans-unit>
<trans-unit id="2"><source>Save it.</source></trans-unit>
</body></file></xliff>
"""


def _project(tmp_path: Path, name: str, content: str | None = None, tgt: str = "de"):
    src = tmp_path / name
    if content is not None:
        src.write_text(content, encoding="utf-8")
    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang=tgt)
    return p, p.import_document(src), src


def _export(p: Project, doc: int, tmp_path: Path, name: str) -> Path:
    return p.export_document(doc, tmp_path / name)


def test_a_split_txt_sentence_exports_as_one_paragraph_with_both_translations(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    at = first.source.text.index("and close")
    change = SplitJoin(p).split(first.id, at)
    segs = p.segments(doc)
    assert [s.source.text for s in segs[:3]] == ["Open the file", "and close the window.", "Save it."]
    assert [s.idx for s in segs] == [0, 1, 2, 3] and segs[0].key == segs[1].key
    assert [s.id for s in change.after] == [segs[0].id, segs[1].id]
    p.confirm(segs[0].id, "Öffnen Sie die Datei")
    p.confirm(segs[1].id, "und schließen Sie das Fenster.")
    out = _export(p, doc, tmp_path, "a.de.txt").read_text(encoding="utf-8")
    assert out == "Öffnen Sie die Datei und schließen Sie das Fenster. Save it.\n\nSecond paragraph.\n"


def test_an_untranslated_piece_is_written_as_its_source(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    SplitJoin(p).split(first.id, first.source.text.index("and"))
    p.set_target(p.segments(doc)[1].id, "und schließen Sie das Fenster.")
    out = _export(p, doc, tmp_path, "a.de.txt").read_text(encoding="utf-8")
    assert out.startswith("Open the file und schließen Sie das Fenster. Save it.")


def test_a_split_with_nothing_translated_exports_the_file_unchanged(tmp_path):
    p, doc, src = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    SplitJoin(p).split(first.id, 8)
    assert _export(p, doc, tmp_path, "a.de.txt").read_bytes() == src.read_bytes()


def test_undo_of_a_split_restores_the_segment_exactly(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.confirm(p.segments(doc)[0].id, "Öffnen Sie die Datei und schließen Sie das Fenster.")
    before = p.segments(doc)
    sj = SplitJoin(p)
    change = sj.split(first.id, first.source.text.index("and"))
    pieces = p.segments(doc)
    assert pieces[0].target.text == first.target.text and pieces[0].status == "draft"
    assert (pieces[1].target.text, pieces[1].status) == ("", "new")
    sj.undo(change)
    assert p.segments(doc) == before
    again = sj.redo(change)
    assert [s.id for s in again] == [s.id for s in change.after]
    assert p.segments(doc)[:2] == list(change.after)


def test_a_split_at_a_target_position_divides_the_target_too(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    seg = p.set_target(p.segments(doc)[0].id, "Öffnen Sie die Datei und schließen Sie das Fenster.")
    SplitJoin(p).split(seg.id, seg.source.text.index("and"), target_at=seg.target.text.index("und"))
    a, b = p.segments(doc)[:2]
    assert (a.target.text, b.target.text) == ("Öffnen Sie die Datei", "und schließen Sie das Fenster.")
    assert (a.status, b.status) == ("draft", "draft")


def test_joining_the_pieces_concatenates_targets_and_undo_restores_both(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    sj = SplitJoin(p)
    sj.split(first.id, first.source.text.index("and"))
    a, b = p.segments(doc)[:2]
    p.confirm(a.id, "Öffnen Sie die Datei", origin="tm", origin_score=0.8)
    p.confirm(b.id, "und schließen Sie das Fenster.")
    p.tm_written([a.id, b.id])
    before = p.segments(doc)
    change = sj.join(a.id)
    joined = p.segment(a.id)
    assert joined.source.text == first.source.text
    assert (joined.target.text, joined.status) == ("Öffnen Sie die Datei und schließen Sie das Fenster.", "draft")
    assert len(p.segments(doc)) == 3 and [s.idx for s in p.segments(doc)] == [0, 1, 2]
    sj.undo(change)
    assert p.segments(doc) == before  # ids, status, origin and times
    assert (p.segment(a.id).origin, p.segment(a.id).status) == ("tm", "confirmed")


def test_join_across_paragraphs_or_xliff_units_is_refused_in_one_line(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    save_it = p.segments(doc)[1]
    with pytest.raises(SplitJoinError, match="^segments 2 and 3 are in different paragraphs or units of the "
                                             "file: they cannot be joined$"):
        SplitJoin(p).join(save_it.id)
    last = p.segments(doc)[-1]
    with pytest.raises(SplitJoinError, match="last"):
        SplitJoin(p).join(last.id)
    p.close()
    (tmp_path / "x").mkdir()
    q, xdoc, _ = _project(tmp_path / "x", "guide.xlf", XLF)
    with pytest.raises(SplitJoinError, match="^segments 1 and 2 are in different paragraphs or units"):
        SplitJoin(q).join(q.segments(xdoc)[0].id)


def test_two_sentences_of_a_txt_paragraph_join_and_export_as_the_paragraph(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    a, b = p.segments(doc)[:2]
    p.set_target(a.id, "Öffnen Sie die Datei und schließen Sie das Fenster.")
    p.set_target(b.id, "Speichern Sie sie.")
    SplitJoin(p).join(a.id)
    joined = p.segment(a.id)
    assert joined.source.text == "Open the file and close the window. Save it."
    assert joined.target.text == "Öffnen Sie die Datei und schließen Sie das Fenster. Speichern Sie sie."
    p.confirm(a.id, "Öffnen Sie die Datei, schließen Sie das Fenster und speichern Sie sie.")
    out = _export(p, doc, tmp_path, "a.de.txt").read_text(encoding="utf-8")
    assert out == "Öffnen Sie die Datei, schließen Sie das Fenster und speichern Sie sie.\n\nSecond paragraph.\n"


def test_joined_html_sentences_keep_each_sentences_tags_on_export(tmp_path):
    html = "<html><body><p>Open the <b>file</b>. Save <i>it</i>.</p></body></html>\n"
    p, doc, _ = _project(tmp_path, "a.html", html)
    a, b = p.segments(doc)[:2]
    change = SplitJoin(p).join(a.id)
    joined = p.segment(a.id)
    codes = [c for c in joined.source.text if not c.isascii()]
    assert len(codes) == 4 and len({t.n for t in joined.source.tags}) == 4  # the second's renumbered
    b_open, b_close, i_open, i_close = codes
    p.confirm(a.id, f"Öffnen Sie die {b_open}Datei{b_close} und speichern Sie {i_open}sie{i_close}.")
    out = _export(p, doc, tmp_path, "a.de.html").read_text(encoding="utf-8")
    assert "<p>Öffnen Sie die <b>Datei</b> und speichern Sie <i>sie</i>.</p>" in out
    assert change.before == (a, b)  # what undo puts back: the second sentence with its own numbers


def test_undo_of_a_sentence_join_restores_both_sentences(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    a = p.confirm(p.segments(doc)[0].id, "Öffnen Sie die Datei und schließen Sie das Fenster.")
    before = p.segments(doc)
    sj = SplitJoin(p)
    change = sj.join(a.id)
    with pytest.raises(SplitJoinError, match="^segment 1 holds sentences joined: undo the join to divide them"):
        sj.split(a.id, 10)
    sj.undo(change)
    assert p.segments(doc) == before


def test_a_joined_docx_paragraph_exports_whole(tmp_path):
    make_docx(tmp_path / "a.docx", "<w:p><w:r><w:t>Open the file. Save it.</w:t></w:r></w:p>")
    p, doc, _ = _project(tmp_path, "a.docx")
    a = p.segments(doc)[0]
    SplitJoin(p).join(a.id)
    p.confirm(a.id, "Öffnen und speichern Sie die Datei.")
    xml = zipfile.ZipFile(_export(p, doc, tmp_path, "a.de.docx")).read("word/document.xml").decode("utf-8")
    assert "Öffnen und speichern Sie die Datei." in xml and "Save" not in xml


def test_a_code_moved_into_the_other_sentence_stops_the_export_in_one_line(tmp_path):
    html = "<html><body><p>Open the <b>file</b>. Save <i>it</i>.</p></body></html>\n"
    p, doc, _ = _project(tmp_path, "a.html", html)
    a = p.segments(doc)[0]
    SplitJoin(p).join(a.id)
    b_open, b_close, i_open, i_close = [c for c in p.segment(a.id).source.text if not c.isascii()]
    p.confirm(a.id, f"{i_open}Speichern{i_close} und öffnen Sie die {b_open}Datei{b_close}.")
    with pytest.raises(ProjectError, match="^segment 1: its translation cannot be divided back into the file's "
                                           "sentences"):
        _export(p, doc, tmp_path, "a.de.html")


def test_a_locked_segment_is_neither_split_nor_joined(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    sj = SplitJoin(p)
    sj.split(first.id, 14)
    SegmentLocks(p).lock(first.id)
    with pytest.raises(SplitJoinError, match="^segment 1 is locked: unlock it to split or join it$"):
        sj.split(first.id, 4)
    with pytest.raises(SplitJoinError, match="segment 1 is locked"):
        sj.join(first.id)
    assert len(p.segments(doc)) == 4


def test_a_split_inside_a_paired_tag_is_refused_and_the_pieces_keep_their_codes(tmp_path):
    p, doc, _ = _project(tmp_path, "guide.xlf", XLF)
    seg = p.segments(doc)[0]
    inside = seg.source.text.index("file")
    with pytest.raises(SplitJoinError, match="^segment 1: the cursor is inside a pair of tags; split before "
                                             "or after them$"):
        SplitJoin(p).split(seg.id, inside + 2)
    SplitJoin(p).split(seg.id, seg.source.text.index("and"))
    a, b = p.segments(doc)[:2]
    assert a.source.tag_count == 2 and b.source.tag_count == 0 and b.source.tags == ()


def test_a_split_xliff_unit_exports_one_target_with_its_tags(tmp_path):
    p, doc, _ = _project(tmp_path, "guide.xlf", XLF)
    seg = p.segments(doc)[0]
    SplitJoin(p).split(seg.id, seg.source.text.index("and"))
    a, b = p.segments(doc)[:2]
    opening, closing = [c for c in a.source.text if not c.isascii()]
    p.confirm(a.id, f"Öffnen Sie die {opening}Datei{closing}")
    p.confirm(b.id, "und schließen Sie das Fenster.")
    out = _export(p, doc, tmp_path, "guide.de.xlf").read_text(encoding="utf-8")
    assert '<target state="translated">Öffnen Sie die <g id="b">Datei</g> und schließen Sie das Fenster.' \
           '</target>' in out
    assert "<trans-unit id=\"2\"><source>Save it.</source></trans-unit>" in out


def test_a_split_docx_sentence_exports_as_its_paragraph(tmp_path):
    src = make_docx(tmp_path / "a.docx", "<w:p><w:r><w:t>Open the file and close the window. Save it.</w:t>"
                                         "</w:r></w:p>")
    p, doc, _ = _project(tmp_path, "a.docx")
    seg = p.segments(doc)[0]
    SplitJoin(p).split(seg.id, seg.source.text.index("and"))
    a, b = p.segments(doc)[:2]
    p.confirm(a.id, "Öffnen Sie die Datei")
    p.confirm(b.id, "und schließen Sie das Fenster.")
    out = _export(p, doc, tmp_path, "a.de.docx")
    xml = zipfile.ZipFile(out).read("word/document.xml").decode("utf-8")
    assert "Öffnen Sie die Datei und schließen Sie das Fenster. Save it." in xml
    assert src.exists()


def test_a_split_html_sentence_exports_as_its_paragraph(tmp_path):
    html = "<html><body><p>Open the <b>file</b> and close the window. Save it.</p></body></html>\n"
    p, doc, _ = _project(tmp_path, "a.html", html)
    seg = p.segments(doc)[0]
    SplitJoin(p).split(seg.id, seg.source.text.index("and"))
    a, b = p.segments(doc)[:2]
    opening, closing = [c for c in a.source.text if not c.isascii()]
    p.confirm(a.id, f"Öffnen Sie die {opening}Datei{closing}")
    p.confirm(b.id, "und schließen Sie das Fenster.")
    out = _export(p, doc, tmp_path, "a.de.html").read_text(encoding="utf-8")
    assert "<p>Öffnen Sie die <b>Datei</b> und schließen Sie das Fenster. Save it.</p>" in out


def test_a_confirmation_still_owed_to_the_tm_waits_before_a_split(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    seg = p.confirm(p.segments(doc)[0].id, "Öffnen Sie die Datei.", tm_meta={"x": "1"})
    with pytest.raises(SplitJoinError, match="still on its way to the TM"):
        SplitJoin(p).split(seg.id, 14)
    p.tm_written([seg.id])
    SplitJoin(p).split(seg.id, 14)
    assert p.tm_pending() == []


def test_a_split_that_fails_midway_leaves_the_document_as_it_was(tmp_path, monkeypatch):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    before = p.segments(doc)
    sj = SplitJoin(p)
    real = sj._project.segment
    calls = []

    def failing(sid):  # the read after the second row's write fails: the whole split rolls back
        calls.append(sid)
        if len(calls) == 3:
            raise sqlite3.OperationalError("disk I/O error")
        return real(sid)

    monkeypatch.setattr(sj._project, "segment", failing)
    with pytest.raises(sqlite3.OperationalError):
        sj.split(before[0].id, 14)
    monkeypatch.undo()
    assert p.segments(doc) == before


def test_the_cursor_at_an_edge_is_refused(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    seg = p.segments(doc)[0]
    with pytest.raises(SplitJoinError, match="^segment 1: put the cursor inside the source text to split it"):
        SplitJoin(p).split(seg.id, 0)
    with pytest.raises(SplitJoinError, match="text on both sides"):
        SplitJoin(p).split(seg.id, len(seg.source.text) - 1)


def test_a_japanese_join_adds_no_space(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT, tgt="ja")
    seg = p.segments(doc)[0]
    sj = SplitJoin(p)
    sj.split(seg.id, seg.source.text.index("and"))
    a, b = p.segments(doc)[:2]
    p.set_target(a.id, "ファイルを開き、")
    p.set_target(b.id, "ウィンドウを閉じます。")
    sj.join(a.id)
    assert p.segment(a.id).target.text == "ファイルを開き、ウィンドウを閉じます。"


def test_undo_is_refused_when_a_piece_was_translated_since(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    sj = SplitJoin(p)
    change = sj.split(first.id, first.source.text.index("and"))
    p.set_target(change.after[1].id, "und schließen Sie das Fenster.")
    with pytest.raises(SplitJoinError, match="^segment 2 changed since: cannot undo the split without losing "
                                             "that change$"):
        sj.undo(change)
    assert len(p.segments(doc)) == 4


def test_comments_follow_the_join_and_go_back_with_its_undo(tmp_path):
    from engine.store.comments import Comments

    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    a, b = p.segments(doc)[:2]
    notes = Comments(p)
    kept = notes.add(b.id, "Client: keep 'Save' as in the UI.", author="ana")
    sj = SplitJoin(p)
    change = sj.join(a.id)
    assert [c.id for c in notes.for_segment(a.id)] == [kept.id]  # not lost with the second row
    sj.undo(change)
    assert [c.id for c in notes.for_segment(b.id)] == [kept.id] and notes.for_segment(a.id) == []
    split = sj.split(b.id, 5)
    later = notes.add(split.after[1].id, "on the second piece", author="ana")
    sj.undo(split)
    assert {c.id for c in notes.for_segment(b.id)} == {kept.id, later.id}


def test_a_piece_of_a_split_does_not_join_the_next_sentence(tmp_path):
    p, doc, _ = _project(tmp_path, "a.txt", TXT)
    first = p.segments(doc)[0]
    sj = SplitJoin(p)
    sj.split(first.id, first.source.text.index("and"))
    second_piece = p.segments(doc)[1]
    with pytest.raises(SplitJoinError, match="^segments 2 and 3: a piece of a split joins only its own pieces; "
                                             "join them first$"):
        sj.join(second_piece.id)
    sj.join(first.id)
    sj.join(first.id)  # whole again, it takes the paragraph's next sentence
    assert p.segment(first.id).source.text == "Open the file and close the window. Save it."
