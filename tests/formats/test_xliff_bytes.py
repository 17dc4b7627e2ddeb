"""XLIFF export splices the original bytes (issue 36 item 3).

The fixtures in ``fixtures/xliff-bytes/`` are written by hand in the shapes
that serialising a tree used to change: single-quoted attributes in an odd
order, whitespace inside tags, ``<x></x>``, ``&quot;``, CDATA, comments,
CRLF, UTF-16 with a BOM, UTF-8 with a BOM, windows-1252, a unit without a
``<target>``, a ``<target/>``, SDLXLIFF ``<mrk mtype="seg">`` segments with
``sdl:seg-defs``, memoQ ``mq:status`` and XLIFF 2.0 ``state``/``subState``.
Untouched, each comes back byte for byte; edited, each expected output is the
original with exactly the edited target and status attributes replaced.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.formats import xliff12, xliff20
from engine.formats.base import Translation
from engine.inline import TaggedText

FIXTURES = Path(__file__).parent / "fixtures" / "xliff-bytes"
ALL = sorted(FIXTURES.iterdir())


def _fmt(path: Path):
    return xliff20.FORMAT if path.name.startswith("hard-20") else xliff12.FORMAT


def _export(tmp_path: Path, name: str, edits: dict) -> bytes:
    path = FIXTURES / name
    fmt = _fmt(path)
    doc = {s.key: s for s in fmt.read(path).segments}
    translations = {}
    for key, (text, status) in edits.items():
        tags = doc[key].source.tags if any(0xE000 <= ord(c) <= 0xF8FF for c in text) else ()
        translations[key] = Translation(TaggedText(text, tags), status)
    out = tmp_path / name
    fmt.write(path, out, translations, tgt_lang="de")
    return out.read_bytes()


def _one_replacement(original: bytes, old: bytes, new: bytes) -> bytes:
    assert original.count(old) == 1, old
    return original.replace(old, new)


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_untouched_fixture_is_exported_byte_for_byte(path: Path, tmp_path: Path):
    fmt = _fmt(path)
    doc = fmt.read(path)
    out = tmp_path / path.name
    fmt.write(path, out, {}, tgt_lang="de")
    assert out.read_bytes() == path.read_bytes()
    # every segment passed back as read is untouched too
    same = {s.key: Translation(s.target, s.status) for s in doc.segments if s.target is not None}
    fmt.write(path, out, same, tgt_lang="de")
    assert out.read_bytes() == path.read_bytes()


def test_edited_target_keeps_quotes_attribute_order_and_crlf_around_it(tmp_path: Path):
    raw = (FIXTURES / "hard-12-crlf.xlf").read_bytes()
    got = _export(tmp_path, "hard-12-crlf.xlf", {"1": ('Klicke \ue001 f\u00fcr "hallo".', "draft")})
    want = _one_replacement(raw, b"<trans-unit id='1' approved='yes' >",
                            b"<trans-unit id='1' approved='no' >")
    want = _one_replacement(
        want,
        b"<target xml:space='preserve' state='translated' >Klicken Sie <x id='1'></x>, "
        b"um &quot;hallo&quot; zu sagen.</target>",
        b"<target xml:space='preserve' state='needs-review-translation' >Klicke <x id=\"1\"/> "
        b"f\xc3\xbcr \"hallo\".</target>")
    assert got == want


def test_new_target_goes_after_source_with_the_files_indentation_and_crlf(tmp_path: Path):
    raw = (FIXTURES / "hard-12-crlf.xlf").read_bytes()
    got = _export(tmp_path, "hard-12-crlf.xlf", {"2": ("Verwende <b> & <i>.", "confirmed"),
                                                  "3": ("Die dritte.", "confirmed")})
    want = _one_replacement(
        raw, b"<source><![CDATA[Use <b> & <i> tags.]]></source>\r\n",
        b"<source><![CDATA[Use <b> & <i> tags.]]></source>\r\n"
        b"    <target state=\"translated\">Verwende &lt;b&gt; &amp; &lt;i&gt;.</target>\r\n")
    want = _one_replacement(want, b"<target/>", b"<target state=\"translated\">Die dritte.</target>")
    assert got == want


def test_utf16_file_with_bom_and_crlf_keeps_its_encoding(tmp_path: Path):
    raw = (FIXTURES / "utf16-bom.xlf").read_bytes()
    got = _export(tmp_path, "utf16-bom.xlf", {"IDS_OPEN": ("\u30d5\u30a1\u30a4\u30eb\u3092\u958b\u304f",
                                                           "confirmed"),
                                              "IDS_SAVE": ("\u4fdd\u5b58", "draft")})
    text = raw[2:].decode("utf-16-le")
    text = text.replace('<target state="needs-translation"></target>',
                        '<target state="translated">\u30d5\u30a1\u30a4\u30eb\u3092\u958b\u304f</target>')
    text = text.replace("<source>Save</source>",
                        '<source>Save</source><target state="needs-review-translation">\u4fdd\u5b58</target>')
    assert got == b"\xff\xfe" + text.encode("utf-16-le")


def test_sdlxliff_edit_changes_only_its_mrk_and_its_sdl_seg_conf_and_origin(tmp_path: Path):
    raw = (FIXTURES / "segmented.sdlxliff").read_bytes()
    got = _export(tmp_path, "segmented.sdlxliff", {"u1#2": ("Zwei!", "confirmed")})
    want = _one_replacement(raw, b'<mrk mtype="seg" mid="2">Zwei.</mrk>',
                            b'<mrk mtype="seg" mid="2">Zwei!</mrk>')
    # the edited MT segment is the translator's now, its MT origin kept as Trados keeps it
    want = _one_replacement(want, b'<sdl:seg id="2" conf="Draft" origin="mt"/>',
                            b'<sdl:seg id="2" conf="Translated" origin="interactive">'
                            b'<sdl:prev-origin origin="mt"/></sdl:seg>')
    assert got == want


def test_sdlxliff_unit_without_target_gets_one_after_seg_source(tmp_path: Path):
    raw = (FIXTURES / "segmented.sdlxliff").read_bytes()
    got = _export(tmp_path, "segmented.sdlxliff", {"u2#3": ("Drei.", "confirmed")})
    want = _one_replacement(
        raw, b'<mrk mtype="seg" mid="3">Three.</mrk></seg-source>',
        b'<mrk mtype="seg" mid="3">Three.</mrk></seg-source>'
        b'<target><mrk mtype="seg" mid="3">Drei.</mrk></target>')
    want = _one_replacement(want, b'<sdl:seg id="3" origin="not-translated"/>',
                            b'<sdl:seg id="3" origin="interactive" conf="Translated"/>')
    assert got.startswith(b"\xef\xbb\xbf") and got == want


def test_xliff20_edit_keeps_single_quotes_and_sets_state_in_place(tmp_path: Path):
    raw = (FIXTURES / "hard-20.xlf").read_bytes()
    got = _export(tmp_path, "hard-20.xlf", {"u1/s1": ("Pressez \ue001 \u00ab OK \u00bb.", "confirmed"),
                                            "u1/s2": ("a < b", "draft")})
    want = _one_replacement(raw, b"<segment id='s1' state='translated' subState='x:mt'>",
                            b"<segment id='s1' state='reviewed'>")
    want = _one_replacement(want, b"<target>Appuyez <ph id='1'></ph> &quot;OK&quot;.</target>",
                            b"<target>Pressez <ph id=\"1\"/> \xc2\xab OK \xc2\xbb.</target>")
    want = _one_replacement(want, b"<segment id='s2'>", b"<segment id='s2' state='translated'>")
    want = _one_replacement(want, b"<source><![CDATA[a < b]]></source>\n",
                            b"<source><![CDATA[a < b]]></source>\n        <target>a &lt; b</target>\n")
    assert got == want


def test_mqxliff_edit_sets_mq_status_in_place(tmp_path: Path):
    raw = (FIXTURES / "status.mqxliff").read_bytes()
    got = _export(tmp_path, "status.mqxliff", {"1": ("Ja", "confirmed")})
    want = _one_replacement(raw, b'mq:status="NotStarted"', b'mq:status="ManuallyConfirmed"')
    want = _one_replacement(want, b'<target xml:space="preserve"></target>',
                            b'<target xml:space="preserve">Ja</target>')
    assert got == want


def test_character_the_encoding_cannot_hold_is_a_character_reference(tmp_path: Path):
    raw = (FIXTURES / "windows-1252.xlf").read_bytes()
    got = _export(tmp_path, "windows-1252.xlf", {"1": ("\u30ab\u30d5\u30a7 Caf\u00e9", "confirmed")})
    want = _one_replacement(raw, b"<source>Caf\xe9</source>",
                            b'<source>Caf\xe9</source><target state="translated">'
                            b"&#12459;&#12501;&#12455; Caf\xe9</target>")
    assert got == want
    assert xliff12.FORMAT.read(tmp_path / "windows-1252.xlf").segments[0].target.text == \
        "\u30ab\u30d5\u30a7 Caf\u00e9"
