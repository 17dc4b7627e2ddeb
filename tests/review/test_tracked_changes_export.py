"""A reviewer's tracked changes written on export in the format's own way, read back by Verso's reader;
untouched units byte for byte; all accepted: as if written directly."""
from __future__ import annotations

import re

from engine.formats import read_document
from engine.inline import revision
from engine.review.changes import TrackedChanges, set_tracking
from engine.review.export import note
from engine.store import Project

MQXLIFF = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff" version="1.2"><file original="a.docx" source-language="en" target-language="de" datatype="x-docx"><body>
<trans-unit id="1" mq:status="ManuallyConfirmed"><source>The red house is big.</source><target>Das rote Haus ist gross.</target></trans-unit>
<trans-unit id="2" mq:status="ManuallyConfirmed"><source>Close it.</source><target>Schliessen.</target></trans-unit>
</body></file></xliff>
"""


def _edit(p, seg, text):
    with TrackedChanges(p).recording([seg.id], "Rita Reviewer"):
        p.confirm(seg.id, seg.target.with_text(text))


def _units(data: bytes) -> list[bytes]:
    return re.findall(rb"<trans-unit.*?</trans-unit>", data, re.S)


def test_sdlxliff_export_writes_revision_marks_and_rev_defs_that_reimport(sdl_project, tmp_path):
    p, src = sdl_project
    set_tracking(p, True)
    segs = p.segments(1)
    _edit(p, segs[0], "Das blaue Haus ist gross.")
    _edit(p, segs[1], segs[1].target.text.replace("jetzt", "sofort"))
    out = p.export_document(1, tmp_path / "out.sdlxliff")
    data = out.read_bytes()
    text = data.decode("utf-8-sig")
    ids = re.findall(r'<mrk mtype="x-sdl-deleted" sdl:revid="([^"]+)">rote</mrk>', text)
    assert len(ids) == 1
    assert re.search(rf'<rev-def id="{ids[0]}" type="Delete" author="Rita Reviewer" date="\d\d/\d\d/\d{{4}} ', text)
    added = re.findall(r'<mrk mtype="x-sdl-added" sdl:revid="([^"]+)">blaue</mrk>', text)
    assert len(added) == 1 and f'<rev-def id="{added[0]}" author="Rita Reviewer"' in text
    assert '<g id="1">Datei</g> <mrk mtype="x-sdl-deleted"' in text  # the tag kept intact
    assert _units(data)[2] == _units(src.read_bytes())[2]  # the untouched unit, byte for byte
    # re-imported, the reviewer's changes are the file's tracked changes
    doc = read_document(out)
    t = doc.segments[0].target
    assert [(revision(x), x.original) for x in t.tags if revision(x) == "deleted"][0][1].endswith(">rote</mrk>")
    assert any(revision(x) == "inserted" for x in t.tags)
    assert note(p, p.document(1)) == ""


def test_sdlxliff_with_all_changes_accepted_exports_as_if_written_directly(sdl_project, tmp_path):
    p, _ = sdl_project
    seg = p.segments(1)[0]
    p.confirm(seg.id, seg.target.with_text("Das blaue Haus ist gross."))
    direct = p.export_document(1, tmp_path / "direct.sdlxliff").read_bytes()
    p.confirm(seg.id, seg.target)  # back, then the same edit tracked and accepted
    set_tracking(p, True)
    _edit(p, p.segment(seg.id), "Das blaue Haus ist gross.")
    TrackedChanges(p).accept_document(1)
    accepted = p.export_document(1, tmp_path / "accepted.sdlxliff").read_bytes()
    assert b"x-sdl-" not in accepted and b"rev-def" not in accepted
    assert _units(accepted) == _units(direct)


def test_mqxliff_export_writes_memoq_tracked_changes(tmp_path):
    src = tmp_path / "a.mqxliff"
    src.write_text(MQXLIFF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
        set_tracking(p, True)
        _edit(p, p.segments(1)[0], "Das blaue Haus ist gross.")
        out = p.export_document(1, tmp_path / "out.mqxliff")
    text = out.read_text(encoding="utf-8")
    assert re.search(r'<mrk mtype="x-mq-tc" mq:tctype="del" mq:tcuser="Rita Reviewer" mq:tctime="[\d-]+T[\d:]+Z">rote</mrk>',
                     text)
    assert 'mq:tctype="ins"' in text and ">blaue</mrk>" in text
    assert _units(out.read_bytes())[1] == _units(src.read_bytes())[1]
    t = read_document(out).segments[0].target
    assert {revision(x) for x in t.tags} >= {"deleted", "inserted"}


def test_a_format_without_tracked_changes_exports_the_edit_and_says_so(tmp_path):
    f = tmp_path / "a.po"
    f.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                 'msgid "Red house."\nmsgstr "Rotes Haus."\n', encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(f)
        set_tracking(p, True)
        _edit(p, p.segments(1)[0], "Blaues Haus.")
        out = p.export_document(1, tmp_path / "out.po")
        line = note(p, p.document(1))
    assert 'msgstr "Blaues Haus."' in out.read_text(encoding="utf-8")
    assert "1 segments have tracked changes" in line and "stay in the project" in line and "\n" not in line


def test_cli_export_says_the_changes_stay_in_the_project(tmp_path, capsys):
    import json

    from engine.cli import main
    f = tmp_path / "a.po"
    f.write_text('msgid "Red house."\nmsgstr "Rotes Haus."\n', encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(f)
        set_tracking(p, True)
        _edit(p, p.segments(1)[0], "Blaues Haus.")
    assert main(["doc", "export", "1", "--project", str(tmp_path / "p"), "--out", str(tmp_path / "o.po")]) == 0
    assert "stay in the project" in json.loads(capsys.readouterr().out)["tracked_changes"]


def test_plain_xliff_12_has_no_tracked_changes_so_the_export_says_so(tmp_path):
    f = tmp_path / "a.xlf"
    f.write_text('<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                 '<file original="a" source-language="en" target-language="de" datatype="plaintext"><body>'
                 '<trans-unit id="1"><source>Red house.</source><target>Rotes Haus.</target></trans-unit>'
                 '</body></file></xliff>', encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(f)
        set_tracking(p, True)
        _edit(p, p.segments(1)[0], "Blaues Haus.")
        text = p.export_document(1, tmp_path / "o.xlf").read_text(encoding="utf-8")
        assert ">Blaues Haus.</target>" in text and "mrk" not in text
        assert "stay in the project" in note(p, p.document(1))


MQ_STAMPED = MQXLIFF.replace('mq:status="ManuallyConfirmed">', 'mq:status="ManuallyConfirmed" '
                             'mq:lastchangedtimestamp="2010-04-23T17:43:37Z" mq:lastchanginguser="Translator">')


def test_memoq_units_edited_say_who_changed_them_and_when_untouched_keep_theirs(tmp_path):
    from engine import identity

    src = tmp_path / "a.mqxliff"
    src.write_text(MQ_STAMPED, encoding="utf-8")
    identity.use("Mira Kovač")  # what the editor's Settings ▸ Your name passes
    try:
        with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
            p.import_document(src)
            seg = p.segments(1)[0]
            p.confirm(seg.id, seg.target.with_text("Das blaue Haus ist gross."))
            out = p.export_document(1, tmp_path / "out.mqxliff")
    finally:
        identity.use("")
    units = _units(out.read_bytes())
    assert re.search(rb'mq:lastchangedtimestamp="20\d\d-\d\d-\d\dT[\d:]+Z" mq:lastchanginguser="Mira Kova\xc4\x8d"',
                     units[0]) and b"2010-04-23" not in units[0]
    assert units[1] == _units(src.read_bytes())[1]
