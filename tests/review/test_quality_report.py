"""The LQA quality report: errors by MQM category and severity, penalty points per 1,000 words and
pass/fail, in HTML and CSV, from the store and from `verso review report`; its numbers redone by hand."""
from __future__ import annotations

import csv
import io
import json

import pytest

from engine.cli import main
from engine.errors import ProjectError
from engine.review import report
from engine.review.lqa import Lqa

# the test document's source words: "The red house is big." 5, "Open the file now." 4, "Close it." 2
WORDS = 11


def _errors(p):
    segs = p.segments(1)
    lqa = Lqa(p)
    lqa.add(segs[0].id, 4, 8, "accuracy", "major", "rote is wrong", author="Rita")      # 5 points
    lqa.add(segs[0].id, 0, 3, "fluency", "minor", author="Rita")                        # 1
    lqa.add(segs[1].id, 0, 7, "fluency", "minor", author="Rita")                        # 1
    lqa.add(segs[2].id, 0, 10, "Terminology", "critical", "use Schließen", author="Rita")  # 10
    return lqa


def test_report_numbers_reproduce_by_hand(sdl_project):
    p, _ = sdl_project
    _errors(p)
    rep = report.build(p, 1)
    assert rep.words == WORDS
    assert rep.errors == 4
    assert rep.counts["fluency"] == {"minor": 2, "major": 0, "critical": 0}
    assert rep.penalty == 5 + 1 + 1 + 10
    assert rep.per_1000 == pytest.approx(17 * 1000 / 11)
    assert not rep.passed  # default threshold 10 points per 1,000 words
    assert [(r.idx, r.span) for r in rep.rows][:2] == [(1, "Das"), (1, "rote")]  # document order, then place


def test_project_weights_and_threshold_change_the_verdict(sdl_project):
    p, _ = sdl_project
    _errors(p)
    p.set_setting("lqa_weights", json.dumps({"major": 4, "critical": 8}))
    p.set_setting("lqa_threshold", "1400")
    rep = report.build(p, 1)
    assert rep.penalty == 4 + 1 + 1 + 8
    assert rep.per_1000 == pytest.approx(14 * 1000 / 11)  # 1272.7 <= 1400
    assert rep.passed


def test_bad_settings_and_spans_are_one_line_errors(sdl_project):
    p, _ = sdl_project
    seg = p.segments(1)[0]
    with pytest.raises(ProjectError, match="outside its target"):
        Lqa(p).add(seg.id, 0, 999, "accuracy", "minor")
    with pytest.raises(ProjectError, match="category"):
        Lqa(p).add(seg.id, 0, 1, "grammar", "minor")
    p.set_setting("lqa_weights", "{\"minor\": -1}")
    with pytest.raises(ProjectError, match="lqa_weights"):
        report.build(p, 1)


def test_cli_writes_html_and_csv_with_the_same_numbers(sdl_project, tmp_path, capsys):
    p, _ = sdl_project
    _errors(p)
    folder = p.folder
    p.close()
    assert main(["review", "report", str(folder), "--doc", "1", "--out", str(tmp_path / "r.csv")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["errors"], summary["penalty"], summary["result"]) == (4, 17, "fail")
    rows = list(csv.reader(io.StringIO((tmp_path / "r.csv").read_text(encoding="utf-8"))))
    assert ["accuracy", "0", "1", "0", "1", "5"] in rows
    assert ["per 1000 words", f"{17000 / 11:.2f}"] in rows
    assert main(["review", "report", str(folder), "--out", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "FAIL" in page and f"{17000 / 11:.2f} penalty points per 1,000 words" in page
    assert main(["review", "report", str(folder), "--out", str(tmp_path / "r.txt")]) == 2
    assert "html or .csv" in capsys.readouterr().err


def test_a_comment_written_like_a_formula_stays_text_in_the_csv(sdl_project):
    p, _ = sdl_project
    Lqa(p).add(p.segments(1)[0].id, 0, 3, "style", "minor", '=HYPERLINK("http://x","y")', author="Rita")
    rows = list(csv.reader(io.StringIO(report.to_csv(report.build(p, 1)))))
    assert rows[-1][4] == "'=HYPERLINK(\"http://x\",\"y\")"
