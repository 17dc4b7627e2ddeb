"""`verso review compare A B`: two exports of one document, segment by segment, as an HTML difference."""
from __future__ import annotations

import json

from engine.cli import main
from engine.review.compare import compare, diff_html


def test_compare_two_exports_shows_only_the_changed_segments(sdl_project, tmp_path, capsys):
    p, _ = sdl_project
    a = tmp_path / "v1.sdlxliff"
    p.export_document(1, a)
    seg = p.segments(1)[0]
    p.confirm(seg.id, seg.target.with_text("Das blaue Haus ist gross."))
    b = tmp_path / "v2.sdlxliff"
    p.export_document(1, b)
    pairs = compare(a, b)
    assert [x.state for x in pairs] == ["changed", "same", "same"]
    assert main(["review", "compare", str(a), str(b), "--out", str(tmp_path / "c.html")]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == 1
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "<del>rote</del><ins>blaue</ins>" in page and "Schliessen" not in page


def test_diff_html_escapes_markup():
    assert diff_html("a <b>", "a <i>") == "a &lt;<del>b</del><ins>i</ins>&gt;"


def test_two_docx_exports_compare_by_their_text(tmp_path):
    from formats.docfiles import make_docx

    body = '<w:p><w:r><w:t>{a}</w:t></w:r></w:p><w:p><w:r><w:t>Same here.</w:t></w:r></w:p>'
    a = make_docx(tmp_path / "v1.docx", body.format(a="Das rote Haus."))
    b = make_docx(tmp_path / "v2.docx", body.format(a="Das blaue Haus."))
    pairs = compare(a, b)
    assert [p.state for p in pairs] == ["changed", "same"]
    assert diff_html(pairs[0].a, pairs[0].b) == "Das <del>rote</del><ins>blaue</ins> Haus."


def test_a_malformed_version_is_one_line_naming_the_file(tmp_path, capsys):
    good = tmp_path / "good.xlf"
    good.write_text('<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                    '<file original="a" source-language="en" datatype="plaintext"><body>'
                    '<trans-unit id="1"><source>A</source></trans-unit></body></file></xliff>', encoding="utf-8")
    bad = tmp_path / "bad.xlf"
    bad.write_text('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><xliff version="1.2">&e;</xliff>',
                   encoding="utf-8")
    assert main(["review", "compare", str(good), str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.xlf" in err and "\n" not in err and "Traceback" not in err
