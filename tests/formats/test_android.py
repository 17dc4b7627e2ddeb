"""Android strings.xml: plurals, string-arrays, translatable="false", escapes; spliced export
read back by translate-toolkit's aresource store."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats import detect
from engine.formats.android import FORMAT
from engine.formats.base import Translation
from engine.inline import TaggedText

FIX = Path(__file__).parent / "fixtures" / "strings"


def _segments():
    return {s.context: s for s in FORMAT.read(FIX / "strings.xml").segments}


def _tr(seg, text: str) -> Translation:
    for t in seg.source.tags:
        text = text.replace("{%d}" % t.n, t.char)
    return Translation(TaggedText(text, seg.source.tags))


def _ttk(data: bytes) -> dict:
    from translate.storage import aresource

    return {u.getid(): u.source for u in aresource.AndroidResourceFile.parsestring(data).units}


def test_strings_plurals_and_arrays_are_segments_untranslatable_ones_are_not():
    by = _segments()
    assert list(by) == ["app_name", "apostrophe", "welcome", "quoted", "multiline", "amp", "cdata", "songs[one]",
                        "songs[other]", "planets[0]", "planets[1]"]
    assert by["songs[one]"].note == "quantity 'one'"
    assert by["app_name"].note == "The app's name, shown in the launcher"
    assert json.loads(by["planets[1]"].key) == ["string-array", "planets[1]"]


def test_values_read_as_android_reads_them():
    by = _segments()
    assert by["apostrophe"].source.text == "Don't panic, it's \"fine\""
    assert by["quoted"].source.text == "  spaces kept  "
    assert by["multiline"].source.text == "First line\nSecond line continues here"
    assert by["cdata"].source.display() == "Tap <i>here</i> & wait"
    assert by["welcome"].source.display() == \
        "Hello, <xliff:g><%1$s/></xliff:g>! You have <b><%2$d/></b> new messages."


def test_untouched_export_is_byte_identical(tmp_path):
    FORMAT.write(FIX / "strings.xml", tmp_path / "o.xml", {})
    assert (tmp_path / "o.xml").read_bytes() == (FIX / "strings.xml").read_bytes()


def test_edited_export_escapes_and_reads_back_with_translate_toolkit(tmp_path):
    by = _segments()
    out = tmp_path / "values-fr.xml"
    FORMAT.write(FIX / "strings.xml", out, {
        by["apostrophe"].key: _tr(by["apostrophe"], "N'ayez pas peur, c'est \"bien\" & @home"),
        by["welcome"].key: _tr(by["welcome"], "Bonjour, {1}{2}{3} ! Vous avez {4}{5}{6} messages."),
        by["songs[other]"].key: _tr(by["songs[other]"], "{1} chansons\ntrouvées"),
        by["planets[0]"].key: _tr(by["planets[0]"], "@Mercure"),
        by["cdata"].key: _tr(by["cdata"], "Touchez {1}ici{2} & attendez"),
        by["app_name"].key: _tr(by["app_name"], "Notes : "),
    })
    data = out.read_bytes()
    assert b"<string name=\"apostrophe\">N\\'ayez pas peur, c\\'est \\\"bien\\\" &amp; @home</string>\r\n" in data
    assert b"<item>\\@Mercure</item>" in data
    assert b"<![CDATA[Touchez <i>ici</i> & attendez]]>" in data
    back = _ttk(data)
    assert back["apostrophe"] == "N'ayez pas peur, c'est \"bien\" & @home"
    assert back["welcome"] == ('Bonjour, <xliff:g id="user">%1$s</xliff:g> ! Vous avez <b>%2$d</b> messages.')
    assert back["songs"].strings == ["%d song found", "%d chansons\ntrouvées"]
    assert back["cdata"] == "Touchez <i>ici</i> & attendez"
    assert back["app_name"] == "Notes : "  # a trailing space kept by quoting the value
    original = (FIX / "strings.xml").read_bytes().split(b"\r\n")
    changed = [i for i, (a, b) in enumerate(zip(original, data.split(b"\r\n"))) if a != b]
    assert len(changed) == 6


def test_detected_by_content_and_resources_without_strings_refused_naming_them(tmp_path):
    assert detect(FIX / "strings.xml").name == "android"
    p = tmp_path / "colors.xml"
    p.write_text('<?xml version="1.0"?>\n<resources><color name="a">#fff</color></resources>\n')
    with pytest.raises(FormatError, match=r"colors\.xml: Android resources without <string>.*\(<color>"):
        FORMAT.read(p)


def test_entities_are_refused_before_parsing(tmp_path):
    p = tmp_path / "strings.xml"
    p.write_text('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaa">]>\n'
                 '<resources><string name="x">&a;</string></resources>\n')
    with pytest.raises(FormatError, match="entities"):
        FORMAT.read(p)


def test_product_variants_of_one_name_are_separate_segments(tmp_path):
    p = tmp_path / "strings.xml"
    p.write_text('<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
                 '<string name="hint">Tap the phone</string>\n'
                 '<string name="hint" product="tablet">Tap the tablet</string>\n</resources>\n')
    doc = FORMAT.read(p)
    assert [s.context for s in doc.segments] == ["hint", "hint@tablet"] and not doc.problems


ESCAPED = ('<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
           '    <string name="welcome">Hello, %1$s! You have &lt;b>%2$d new messages&lt;/b> &amp; more.</string>\n'
           '    <string name="full">&lt;i&gt;Tap&lt;/i&gt; to start</string>\n'
           '    <string name="body">&lt;p>Open the app. It\\\'s free.&lt;/p></string>\n'
           '    <string name="amp">Terms &lt;beta&gt;</string>\n'
           '</resources>\n')


def _escaped(tmp_path) -> tuple[Path, dict]:
    p = tmp_path / "strings.xml"
    p.write_text(ESCAPED, "utf-8")
    return p, {s.key: s for s in FORMAT.read(p).segments}


def test_escaped_html_in_a_string_reads_as_codes_like_child_elements(tmp_path):
    _, by = _escaped(tmp_path)
    body = [s for s in by.values() if s.meta.get("html")]
    by = {s.context: s for s in by.values() if not s.meta.get("html")}
    welcome = by["welcome"]
    assert "<b>" in [t.original for t in welcome.source.tags] and "</b>" in [t.original for t in welcome.source.tags]
    assert "&lt;" not in welcome.source.display() and "new messages" in welcome.source.text
    assert [t.original for t in by["full"].source.tags] == ["<i>", "</i>"]
    assert [s.source.display() for s in body] == ["Open the app.", "It's free."]
    assert [t.original for t in by["amp"].source.tags] == ["&lt;", "&gt;"]  # not an HTML tag: as before


def test_escaped_html_is_written_back_escaped_as_the_file_wrote_it(tmp_path):
    p, by = _escaped(tmp_path)
    body = [s for s in by.values() if s.meta.get("html")]
    by = {s.context: s for s in by.values() if not s.meta.get("html")}
    FORMAT.write(p, tmp_path / "same.xml", {})
    assert (tmp_path / "same.xml").read_text("utf-8") == ESCAPED
    w = {t.original: t.n for t in by["welcome"].source.tags}
    i = [t.n for t in by["full"].source.tags]
    tr = {by["welcome"].key: _tr(by["welcome"], "Hallo, {%d}! Sie haben {%d}{%d} neue Nachrichten{%d} & mehr." % (
              w["%1$s"], w["<b>"], w["%2$d"], w["</b>"])),
          by["full"].key: _tr(by["full"], "{%d}Tippen{%d} zum Starten" % (i[0], i[1])),
          body[0].key: Translation(TaggedText("Öffne die App."))}
    FORMAT.write(p, tmp_path / "de.xml", tr)
    out = (tmp_path / "de.xml").read_text("utf-8")
    assert ('<string name="welcome">Hallo, %1$s! Sie haben &lt;b>%2$d neue Nachrichten&lt;/b> &amp; mehr.</string>'
            in out)
    assert '<string name="full">&lt;i&gt;Tippen&lt;/i&gt; zum Starten</string>' in out
    assert '<string name="body">&lt;p>Öffne die App. It\\\'s free.&lt;/p></string>' in out
    assert _ttk(out.encode())["welcome"].startswith("Hallo")
