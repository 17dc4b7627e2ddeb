"""SubRip and WebVTT: timings kept, cue text in sentences, line breaks and tags as codes."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect
from engine.formats.base import Translation
from engine.formats.subtitles import FORMAT
from engine.inline import TaggedText

FIX = Path(__file__).parent / "fixtures" / "strings"


def _read(name: str):
    return FORMAT.read(FIX / name, src_lang="en")


def _tr(seg, text: str) -> Translation:
    """``text`` with ``{n}`` standing for the source's code n."""
    for t in seg.source.tags:
        text = text.replace("{%d}" % t.n, t.char)
    return Translation(TaggedText(text, seg.source.tags))


def test_cue_text_is_cut_into_sentences_with_the_timing_as_context():
    doc = _read("dialogue.srt")
    assert [s.key for s in doc.segments] == ["c1.s1", "c1.s2", "c2.s1", "c3.s1", "c3.s2", "c4.s1"]
    assert doc.segments[1].source.text == "How are you?"
    assert doc.segments[0].context == "00:00:01,000 --> 00:00:04,000"


def test_line_break_inside_a_sentence_is_a_code_and_between_sentences_is_not():
    by = {s.key: s for s in _read("dialogue.srt").segments}
    assert by["c2.s1"].source.display() == "<i>This sentence runs</i><br/>over two lines."
    assert by["c3.s1"].source.tag_count == 0 and by["c3.s2"].source.text == "- Second speaker!"


def test_webvtt_header_notes_styles_and_settings_are_not_text():
    doc = _read("talk.vtt")
    assert [s.source.display() for s in doc.segments] == [
        "<v>We are in New York City", "<c>Hello</c> <<00:00:06.000>/>world.", "Bye."]
    assert doc.segments[0].context == "00:01.000 --> 00:04.000 align:start position:10%"


@pytest.mark.parametrize("name", ["dialogue.srt", "talk.vtt"])
def test_untouched_export_is_byte_identical(tmp_path, name):
    FORMAT.write(FIX / name, tmp_path / name, {}, src_lang="en")
    assert (tmp_path / name).read_bytes() == (FIX / name).read_bytes()


def test_edited_cues_keep_timings_crlf_and_layout(tmp_path):
    by = {s.key: s for s in _read("dialogue.srt").segments}
    out = tmp_path / "fr.srt"
    FORMAT.write(FIX / "dialogue.srt", out, {
        "c1.s2": _tr(by["c1.s2"], "Comment ça va ?"),
        "c2.s1": _tr(by["c2.s1"], "{1}Cette phrase court{2}{3}sur deux lignes."),
        "c3.s2": _tr(by["c3.s2"], "- Deuxième\nlocuteur !"),
    }, src_lang="en")
    data = out.read_bytes().decode("utf-8-sig")
    assert data == ("1\r\n00:00:01,000 --> 00:00:04,000\r\nHello there. Comment ça va ?\r\n\r\n"
                    "2\r\n00:00:05,000 --> 00:00:08,500\r\n<i>Cette phrase court</i>\r\nsur deux lignes.\r\n\r\n"
                    "3\r\n00:00:09,000 --> 00:00:10,000\r\nFirst line ends.\r\n- Deuxième\r\nlocuteur !\r\n\r\n"
                    "4\r\n00:00:11,000 --> 00:00:12,000\r\n<font color=\"#ff0000\">Red</font> alert\r\n")
    again = FORMAT.read(out, src_lang="fr")
    assert [s.meta["cue"] for s in again.segments].count(3) == 2


def test_empty_line_in_a_translation_does_not_end_the_cue(tmp_path):
    seg = _read("talk.vtt").segments[2]
    out = tmp_path / "o.vtt"
    FORMAT.write(FIX / "talk.vtt", out, {"c2.s2": _tr(seg, "Au\n\nrevoir.")}, src_lang="en")
    assert out.read_text().endswith("world. Au\nrevoir.\n")
    assert len(FORMAT.read(out, src_lang="fr").segments) == 3


def test_cp1252_file_is_read_and_reported(tmp_path):
    p = tmp_path / "old.srt"
    p.write_bytes("1\n00:00:01,000 --> 00:00:02,000\nCaf\xe9 cr\xe8me.\n".encode("cp1252"))
    doc = FORMAT.read(p, src_lang="fr")
    assert doc.segments[0].source.text == "Café crème."
    assert "Windows-1252" in doc.problems[0]


def test_file_without_cues_is_refused_naming_it(tmp_path):
    p = tmp_path / "none.srt"
    p.write_text("just some text\n")
    with pytest.raises(FormatError, match=r"none\.srt: no subtitle cue"):
        FORMAT.read(p)


def test_translation_for_a_missing_cue_is_refused(tmp_path):
    with pytest.raises(FormatError, match="cues the file does not have"):
        FORMAT.write(FIX / "talk.vtt", tmp_path / "o", {"c9.s1": Translation(TaggedText("x"))}, src_lang="en")


def test_detected_by_extension_and_webvtt_header(tmp_path):
    assert detect(FIX / "dialogue.srt").name == "subtitles"
    p = tmp_path / "captions.txt"
    p.write_bytes((FIX / "talk.vtt").read_bytes())
    assert detect(p).name == "subtitles"


def test_cr_cr_lf_line_ends_are_one_line_end(tmp_path):
    p = tmp_path / "twice.srt"
    p.write_bytes(b"1\r\r\n00:00:01,000 --> 00:00:02,000\r\r\nOne line\r\r\nand the next.\r\r\n\r\r\n"
                  b"2\r\r\n00:00:03,000 --> 00:00:04,000\r\r\nBye.\r\r\n")
    doc = FORMAT.read(p, src_lang="en")
    assert [s.source.display() for s in doc.segments] == ["One line<br/>and the next.", "Bye."]
    out = tmp_path / "o.srt"
    FORMAT.write(p, out, {"c2.s1": _tr(doc.segments[1], "Au\nrevoir.")}, src_lang="en")
    assert out.read_bytes().endswith(b"\r\r\nAu\r\r\nrevoir.\r\r\n")


def test_webvtt_references_are_codes_and_typed_ampersands_are_escaped(tmp_path):
    p = tmp_path / "amp.vtt"
    p.write_text("WEBVTT\n\n00:01.000 --> 00:02.000\nTom &amp; Jerry &lt;3\n")
    seg = FORMAT.read(p, src_lang="en").segments[0]
    assert seg.source.display() == "Tom <&amp;/> Jerry <&lt;/>3"
    out = tmp_path / "o.vtt"
    FORMAT.write(p, out, {"c1.s1": _tr(seg, "Tom {1} Jerry & <moi> {2}3")}, src_lang="en")
    assert out.read_text().endswith("\nTom &amp; Jerry &amp; &lt;moi&gt; &lt;3\n")
