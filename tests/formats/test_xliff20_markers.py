"""XLIFF 2.0 validity, the cases a tester found: valid files with the SLR and change-tracking
modules import; a lone <sm> and a target whose codes are not the source's kind are refused,
naming file and line."""
from __future__ import annotations

import re

import pytest

from engine.errors import FormatError
from engine.formats import read_document

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" '
        'version="2.0" srcLang="en" trgLang="de"{ns}>\n <file id="f1">\n')
TAIL = " </file>\n</xliff>\n"


def _file(tmp_path, body: str, ns: str = "") -> str:
    path = tmp_path / "t.xlf"
    path.write_text(HEAD.format(ns=ns) + body + TAIL, encoding="utf-8")
    return path


def test_size_restriction_module_is_valid(tmp_path):
    path = _file(tmp_path, '  <slr:profiles generalProfile="xliff:codepoints" storageProfile="xliff:utf8"/>\n'
                           '  <unit id="u1" slr:sizeRestriction="20" slr:storageRestriction="40">\n'
                           '   <segment><source>Press Enter.</source></segment>\n  </unit>\n',
                 ' xmlns:slr="urn:oasis:names:tc:xliff:sizerestriction:2.0"')
    assert [s.source.text for s in read_document(path).segments] == ["Press Enter."]


def test_revisions_of_a_note_by_ref_are_valid(tmp_path):
    path = _file(tmp_path, '  <unit id="u1">\n   <ctr:changeTrack><ctr:revisions appliesTo="note" ref="n1">'
                           '<ctr:revision author="x" datetime="2016-01-01T00:00:00Z"><ctr:item property="content">'
                           'Old</ctr:item></ctr:revision></ctr:revisions></ctr:changeTrack>\n'
                           '   <notes><note id="n1">New</note></notes>\n'
                           '   <segment><source>Press Enter.</source></segment>\n  </unit>\n',
                 ' xmlns:ctr="urn:oasis:names:tc:xliff:changetracking:2.0"')
    assert len(read_document(path).segments) == 1


def test_a_marker_across_segments_with_only_the_first_translated_is_valid(tmp_path):
    path = _file(tmp_path, '  <unit id="u1">\n   <segment id="s1"><source>Press <sm id="m1" type="term"/>Enter.'
                           '</source><target>Drücke <sm id="m1" type="term"/>Enter.</target></segment>\n'
                           '   <segment id="s2"><source>Then<em startRef="m1"/> wait.</source></segment>\n'
                           '  </unit>\n')
    assert len(read_document(path).segments) == 2


@pytest.mark.parametrize("body, message", [
    ('<segment><source>Press <sm id="m1" type="term"/>Enter.</source></segment>',
     "<sm id='m1'> has no <em> in its unit"),
    ('<segment><source>Press <pc id="1">Enter</pc>.</source><target>Drücke <ph id="1"/>Enter.</target>'
     '</segment>', "<ph> '1' of the target is another kind of code than the source's '1'"),
    ('<segment><source>Press <ph id="1"/>Enter.</source><target>Drücke <pc id="1">Enter</pc>.</target>'
     '</segment>', "<pc> '1' of the target is another kind of code than the source's '1'"),
])
def test_a_lone_marker_or_a_target_code_of_another_kind_is_refused(tmp_path, body, message):
    path = _file(tmp_path, f'  <unit id="u1">\n   {body}\n  </unit>\n')
    with pytest.raises(FormatError) as e:
        read_document(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    assert re.search(r", line \d+: not valid XLIFF 2.0: ", text) and message in text


def test_codes_split_over_segments_in_the_target_stay_the_source_codes(tmp_path):
    path = _file(tmp_path, '  <unit id="u1">\n   <segment id="s1"><source>Press <pc id="1">Enter</pc>.</source>'
                           '<target>Drücke <sc id="1"/>Enter<ec startRef="1"/>.</target></segment>\n  </unit>\n')
    assert len(read_document(path).segments) == 1
