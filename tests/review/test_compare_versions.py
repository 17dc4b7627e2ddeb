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
