"""The TM file dry run (Import TMX's first step): a file broken part-way is a result naming why, not an error."""
from __future__ import annotations

from engine.formats.tmfiles import survey_tm_file

HEAD = ('<?xml version="1.0"?><tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" '
        'adminlang="en" creationtool="t" creationtoolversion="1" o-tmf="t"/><body>')


def _tu(i: int) -> str:
    return f'<tu><tuv xml:lang="en"><seg>Sentence {i}.</seg></tuv><tuv xml:lang="de"><seg>Satz {i}.</seg></tuv></tu>'


def test_a_tmx_cut_part_way_reports_the_units_before_the_break_and_why(tmp_path):
    p = tmp_path / "cut.tmx"
    p.write_text(HEAD + _tu(1) + _tu(2) + '<tu><tuv xml:lang="en"><seg>Sentence 3', encoding="utf-8")
    seen = []
    got = survey_tm_file(p, "en", "de", tick=seen.append)
    assert got.fatal and "cut.tmx" in got.fatal
    assert got.usable == 2 and seen == [1, 2]
    assert got.fatal in got.problems


def test_a_unit_without_the_target_language_is_counted_skipped_and_named(tmp_path):
    p = tmp_path / "fr.tmx"
    other = '<tu><tuv xml:lang="en"><seg>Hello.</seg></tuv><tuv xml:lang="fr"><seg>Bonjour.</seg></tuv></tu>'
    p.write_text(HEAD + _tu(1) + other + "</body></tmx>", encoding="utf-8")
    got = survey_tm_file(p, "en-GB", "de-DE")
    assert got.fatal is None
    assert (got.units, got.usable, got.skipped) == (2, 1, 1)
    assert got.languages == {"en": 1, "de": 1}
    assert len(got.problems) == 1 and got.problems[0].startswith("TU 2, line 1")
