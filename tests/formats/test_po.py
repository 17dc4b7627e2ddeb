"""gettext PO: segments, plurals, context, fuzzy, obsolete entries, encodings, bad input."""
from __future__ import annotations

import difflib
import json
import shutil
import subprocess

import pytest

from datafiles import SHARED_DATA, data_file
from engine.errors import FormatError
from engine.formats import detect
from engine.formats.base import Translation
from engine.formats.po import FORMAT
from engine.inline import TaggedText

PO = '''\
# German translation of Demo.
# Copyright (C) 2024 Demo authors
msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\\n"
"Language: de\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

# Translator: keep it short
#. Shown on the main toolbar
#: src/main.c:12
msgctxt "toolbar"
msgid "Open"
msgstr "Öffnen"

#: src/main.c:40
msgctxt "menu"
msgid "Open"
msgstr ""

#, fuzzy, c-format
#| msgid "Delete %s?"
msgid "Delete %s now?"
msgstr "%s löschen?"

#, python-format
msgid "Hello %(name)s, you have <b>{0}</b> mail"
msgstr ""

#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d Datei"
msgstr[1] "%d Dateien"

msgid "A very long message that translate-toolkit would wrap differently "
"from the way this file wraps it, to show untouched entries stay as they are."
msgstr ""

#~ msgid "Old message"
#~ msgstr "Alte Nachricht"
'''


@pytest.fixture
def po_file(tmp_path):
    p = tmp_path / "demo.po"
    p.write_bytes(PO.encode("utf-8"))
    return p


def _seg(doc, ctx, msgid, i=None):
    key = json.dumps([ctx, msgid] + ([] if i is None else [i]), ensure_ascii=False)
    return next(s for s in doc.segments if s.key == key)


def test_entries_become_segments_with_context_notes_and_status(po_file):
    doc = FORMAT.read(po_file, src_lang="en")
    assert doc.tgt_lang == "de"  # from the header's Language
    assert len(doc.segments) == 7  # header and obsolete entry are not segments
    tb = _seg(doc, "toolbar", "Open")
    assert tb.context == "toolbar" and tb.target.text == "Öffnen" and tb.status == "confirmed"
    assert "keep it short" in tb.note and "main toolbar" in tb.note
    assert tb.meta["locations"] == ["src/main.c:12"]
    menu = _seg(doc, "menu", "Open")
    assert menu.status == "new" and menu.target is None
    fz = _seg(doc, None, "Delete %s now?")
    assert fz.status == "draft" and fz.meta["fuzzy"] is True and "c-format" in fz.meta["flags"]


def test_placeholders_and_html_are_protected_and_shared_with_target(po_file):
    doc = FORMAT.read(po_file)
    hello = _seg(doc, None, "Hello %(name)s, you have <b>{0}</b> mail")
    assert hello.source.display() == "Hello <%(name)s/>, you have <b><{0}/></b> mail"
    fz = _seg(doc, None, "Delete %s now?")
    # the target's %s carries the number of the source's %s
    assert fz.target.tag_numbers() == fz.source.tag_numbers() == [1]


def test_plural_entry_gives_one_segment_per_form(po_file):
    doc = FORMAT.read(po_file)
    f0, f1 = _seg(doc, None, "%d file", 0), _seg(doc, None, "%d file", 1)
    assert f0.source.display() == "<%d/> file" and f1.source.display() == "<%d/> files"
    assert (f0.target.display(), f1.target.display()) == ("<%d/> Datei", "<%d/> Dateien")
    assert f0.meta["plural_index"] == 0 and f1.meta["plural_forms"] == 2


def test_export_without_translations_is_byte_identical(po_file, tmp_path):
    out = tmp_path / "out.po"
    FORMAT.write(po_file, out, {})
    assert out.read_bytes() == po_file.read_bytes()


def test_export_writes_msgstr_and_fuzzy_and_keeps_the_rest(po_file, tmp_path):
    doc = FORMAT.read(po_file)
    menu = _seg(doc, "menu", "Open")
    fz = _seg(doc, None, "Delete %s now?")
    hello = _seg(doc, None, "Hello %(name)s, you have <b>{0}</b> mail")
    f1 = _seg(doc, None, "%d file", 1)
    tr = {
        menu.key: Translation(TaggedText("Öffnen…"), "confirmed"),
        fz.key: Translation(TaggedText(fz.source.text.replace("Delete", "Jetzt") + "!", fz.source.tags), "confirmed"),
        hello.key: Translation(hello.target or TaggedText(
            hello.source.text.replace("Hello", "Hallo").replace("you have", "du hast").replace("mail", "Post"),
            hello.source.tags), "draft"),
        f1.key: Translation(TaggedText(f1.source.text.replace("files", "Dateien!"), f1.source.tags), "confirmed"),
    }
    out = tmp_path / "out.po"
    FORMAT.write(po_file, out, tr)
    text = out.read_text("utf-8")
    assert 'msgstr "Jetzt %s now?!"' in text
    assert "#| msgid" not in text and "#, c-format\nmsgid \"Delete" in text  # fuzzy cleared
    assert '#, fuzzy, python-format\nmsgid "Hello' in text                    # draft -> fuzzy
    assert 'msgstr "Hallo %(name)s, du hast <b>{0}</b> Post"' in text
    assert 'msgstr[0] "%d Datei"\nmsgstr[1] "%d Dateien!"' in text
    assert '#~ msgid "Old message"\n#~ msgstr "Alte Nachricht"' in text      # obsolete survives
    assert text.startswith(PO[:PO.index('msgctxt "toolbar"')])              # header, comments
    assert 'msgid "A very long message that translate-toolkit would wrap differently "\n"from' in text

    again = FORMAT.read(out)
    assert [(s.key, s.source) for s in again.segments] == [(s.key, s.source) for s in doc.segments]
    by_key = {s.key: s for s in again.segments}
    for key, t in tr.items():
        assert by_key[key].target.text == t.target.text
        assert by_key[key].status == t.status
    assert by_key[_seg(doc, "toolbar", "Open").key].target.text == "Öffnen"


def test_export_of_unchanged_translations_is_byte_identical(po_file, tmp_path):
    doc = FORMAT.read(po_file)
    out = tmp_path / "out.po"
    FORMAT.write(po_file, out, {s.key: Translation(s.target, s.status) for s in doc.segments if s.target})
    assert out.read_bytes() == po_file.read_bytes()


def test_draft_for_one_plural_form_makes_the_entry_fuzzy(po_file, tmp_path):
    doc = FORMAT.read(po_file)
    f0 = _seg(doc, None, "%d file", 0)
    out = tmp_path / "out.po"
    FORMAT.write(po_file, out, {f0.key: Translation(f0.target, "draft")})
    again = FORMAT.read(out)
    assert {s.status for s in again.segments if s.meta.get("plural_forms")} == {"draft"}


def test_translation_outside_a_legacy_charset_switches_the_file_to_utf8(tmp_path):
    p = tmp_path / "latin.po"
    p.write_bytes(PO.replace("charset=UTF-8", "charset=ISO-8859-1").encode("latin-1"))
    doc = FORMAT.read(p)
    assert doc.meta["encoding"].lower() == "iso-8859-1"
    menu = _seg(doc, "menu", "Open")
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {menu.key: Translation(TaggedText("打开"))})
    again = FORMAT.read(out)
    assert again.meta["encoding"].lower() == "utf-8"
    assert _seg(again, "menu", "Open").target.text == "打开"
    assert _seg(again, "toolbar", "Open").target.text == "Öffnen"


def test_utf16_with_bom_round_trips(tmp_path):
    p = tmp_path / "u16.po"
    p.write_bytes(b"\xff\xfe" + PO.replace("\n", "\r\n").encode("utf-16-le"))
    doc = FORMAT.read(p)
    assert _seg(doc, "toolbar", "Open").target.text == "Öffnen"
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {})
    assert out.read_bytes() == p.read_bytes()
    FORMAT.write(p, out, {_seg(doc, "menu", "Open").key: Translation(TaggedText("Öffnen…"))})
    raw = out.read_bytes()
    assert raw.startswith(b"\xff\xfe") and "msgstr \"Öffnen…\"\r\n".encode("utf-16-le") in raw


def test_declared_charset_wrong_for_utf8_body_is_read_as_utf8_and_reported(tmp_path):
    p = tmp_path / "mislabelled.po"
    p.write_bytes(PO.replace("charset=UTF-8", "charset=CP1251").encode("utf-8"))
    doc = FORMAT.read(p)
    assert _seg(doc, "toolbar", "Open").target.text == "Öffnen"
    assert any("CP1251" in pr for pr in doc.problems)


def test_detected_by_content_without_extension(po_file, tmp_path):
    other = tmp_path / "messages.strings"
    other.write_bytes(po_file.read_bytes())
    assert detect(other).name == "po"


def test_domain_directive_is_kept_and_keys_the_entries(tmp_path):
    p = tmp_path / "dom.po"
    p.write_text('msgid "A"\nmsgstr "a"\n\ndomain "other"\n\nmsgid "A"\nmsgstr ""\n', "utf-8")
    doc = FORMAT.read(p)
    assert len(doc.segments) == 2 and doc.segments[0].key != doc.segments[1].key
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {doc.segments[0].key: Translation(TaggedText("b")),
                          doc.segments[1].key: Translation(TaggedText("c"))})
    assert out.read_text("utf-8") == 'msgid "A"\nmsgstr "b"\n\ndomain "other"\n\nmsgid "A"\nmsgstr "c"\n'


# ------------------------------------------------ only the msgstr may change
# Lines that translate-toolkit (or any PO serialiser) would not write back the
# same way: a comment block separated from its entry by a blank line, an
# obsolete plural entry, an unquoted domain directive, odd comment spacing,
# a msgid wrapped by hand.
UNTOUCHABLE = '''\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#msgid "You have selected %d file"
#msgid_plural "You have selected %d files"

#:src/a.c:1   src/b.c:2
#,c-format
msgid "Delete %d"
msgstr ""

#~ msgid "old %d file"
#~ msgid_plural "old %d files"
#~ msgstr[0] ""
#~ msgstr[1] ""
domain messages-extra
msgid ""
"Hand "
"wrapped"
msgstr "von Hand"

#, fuzzy
#| msgid "Old text"
msgid "New text"
msgstr "Alter Text"
'''


def _by_source(doc, text):
    return next(s for s in doc.segments if s.source.text == text)


def _changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """Lines removed from ``before`` and lines added in ``after``."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added


def test_export_rewrites_only_the_translated_entrys_msgstr(tmp_path):
    p = tmp_path / "keep.po"
    p.write_bytes(UNTOUCHABLE.encode("utf-8"))
    doc = FORMAT.read(p)
    delete = _seg(doc, None, "Delete %d")
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {delete.key: Translation(TaggedText(delete.source.text.replace("Delete", "Löschen"),
                                                             delete.source.tags), "confirmed")})
    assert _changed_lines(UNTOUCHABLE, out.read_text("utf-8")) == (['msgstr ""\n'], ['msgstr "Löschen %d"\n'])
    # an entry after an obsolete entry and a domain directive (its key names the domain)
    hand = _by_source(doc, "Hand wrapped")
    assert hand.key.startswith("domain=messages-extra|")
    FORMAT.write(p, out, {hand.key: Translation(TaggedText("Handumbruch"), "confirmed")})
    assert _changed_lines(UNTOUCHABLE, out.read_text("utf-8")) == (['msgstr "von Hand"\n'],
                                                                   ['msgstr "Handumbruch"\n'])


def test_fuzzy_flag_changes_touch_only_flag_and_previous_msgid_lines(tmp_path):
    p = tmp_path / "keep.po"
    p.write_bytes(UNTOUCHABLE.encode("utf-8"))
    doc = FORMAT.read(p)
    new = _by_source(doc, "New text")
    delete = _seg(doc, None, "Delete %d")
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {new.key: Translation(new.target, "confirmed"),
                          delete.key: Translation(TaggedText(delete.source.text.replace("Delete", "Löschen"),
                                                             delete.source.tags), "draft")})
    removed, added = _changed_lines(UNTOUCHABLE, out.read_text("utf-8"))
    assert sorted(removed) == sorted(['#,c-format\n', 'msgstr ""\n', '#, fuzzy\n', '#| msgid "Old text"\n'])
    assert sorted(added) == sorted(['#, fuzzy, c-format\n', 'msgstr "Löschen %d"\n'])
    again = FORMAT.read(out)
    assert _by_source(again, "New text").status == "confirmed"
    assert _seg(again, None, "Delete %d").status == "draft"
    # a draft for an entry without any flag line gets one, just before its msgid
    hand = _by_source(doc, "Hand wrapped")
    FORMAT.write(p, out, {hand.key: Translation(hand.target, "draft")})
    assert _changed_lines(UNTOUCHABLE, out.read_text("utf-8")) == ([], ["#, fuzzy\n"])
    assert 'domain messages-extra\n#, fuzzy\nmsgid ""\n"Hand "' in out.read_text("utf-8")


def test_translation_equal_to_the_file_changes_nothing_even_if_wrapped_differently(tmp_path):
    p = tmp_path / "wrap.po"
    text = ('msgid "A"\nmsgstr ""\n"Short "\n"pieces"\n\n'
            'msgid "B"\nmsgid_plural "Bs"\nmsgstr[0] "b"\nmsgstr[1] ""\n"bs"\n')
    p.write_text(text, "utf-8")
    doc = FORMAT.read(p)
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {s.key: Translation(s.target, "confirmed") for s in doc.segments})
    assert out.read_text("utf-8") == text
    # one plural form changed: the other form's lines stay as they were
    FORMAT.write(p, out, {doc.segments[1].key: Translation(TaggedText("bb"), "confirmed")})
    assert _changed_lines(text, out.read_text("utf-8")) == (['msgstr[0] "b"\n'], ['msgstr[0] "bb"\n'])


MSGFMT_OK = '''\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "%d file"
msgid_plural "%d files"
msgstr[0]
"%d fichier"
msgstr[1]
"%d fichiers"

msgid "Screen"
msgstr "Écran"
'''


def _msgfmt_accepts(path) -> None:
    """When gettext is installed, check the claim that ``msgfmt -c`` accepts the file."""
    if shutil.which("msgfmt"):
        r = subprocess.run(["msgfmt", "-c", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_keyword_with_its_string_on_the_next_line_is_accepted(tmp_path):
    p = tmp_path / "nextline.po"
    p.write_text(MSGFMT_OK, "utf-8")
    _msgfmt_accepts(p)
    doc = FORMAT.read(p)
    f0, f1 = _seg(doc, None, "%d file", 0), _seg(doc, None, "%d file", 1)
    assert (f0.target.display(), f1.target.display()) == ("<%d/> fichier", "<%d/> fichiers")
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {})
    assert out.read_bytes() == p.read_bytes()
    FORMAT.write(p, out, {f1.key: Translation(TaggedText(f1.source.text.replace("files", "Fichiers"),
                                                         f1.source.tags), "confirmed")})
    assert _changed_lines(MSGFMT_OK, out.read_text("utf-8")) == (
        ['msgstr[1]\n', '"%d fichiers"\n'], ['msgstr[1] "%d Fichiers"\n'])


def test_cr_cr_lf_line_endings_are_accepted_and_kept(tmp_path):
    # gettext reads CR as white space, so "\r\r\n" ends a line as "\n" does
    p = tmp_path / "crcrlf.po"
    p.write_bytes(MSGFMT_OK.replace("\n", "\r\r\n").encode("utf-8"))
    _msgfmt_accepts(p)
    doc = FORMAT.read(p)
    assert _seg(doc, None, "Screen").target.text == "Écran"
    assert _seg(doc, None, "%d file", 1).target.display() == "<%d/> fichiers"
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {})
    assert out.read_bytes() == p.read_bytes()
    FORMAT.write(p, out, {_seg(doc, None, "Screen").key: Translation(TaggedText("Bildschirm"), "draft")})
    expected = MSGFMT_OK.replace('msgid "Screen"\nmsgstr "Écran"', '#, fuzzy\nmsgid "Screen"\nmsgstr "Bildschirm"')
    assert out.read_bytes() == expected.replace("\n", "\r\r\n").encode("utf-8")


def test_obsolete_entry_without_space_after_the_marker_is_kept(tmp_path):
    # "#~msgstr[1]" (no space) then a fuzzy entry: msgfmt -c accepts it
    text = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
            '#~msgid "x"\n#~msgid_plural "xs"\n#~msgstr[0] ""\n#~msgstr[1] ""\n\n'
            '#, fuzzy\nmsgid "B"\nmsgstr "b"\n')
    p = tmp_path / "obsolete.po"
    p.write_text(text, "utf-8")
    _msgfmt_accepts(p)
    doc = FORMAT.read(p)
    b, = doc.segments
    assert b.status == "draft"
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {b.key: Translation(b.target, "confirmed")})
    assert out.read_text("utf-8") == text.replace("#, fuzzy\n", "")


def test_plural_forms_the_file_lacks_are_added_after_the_last_one_without_gaps(tmp_path):
    text = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
            '"Plural-Forms: nplurals=3; plural=n==1 ? 0 : n==2 ? 1 : 2;\\n"\n\n'
            'msgid "A"\nmsgid_plural "As"\nmsgstr[0] "a"')  # no line end at the end of the file
    p = tmp_path / "three.po"
    p.write_text(text, "utf-8")
    doc = FORMAT.read(p)
    assert [s.meta["plural_index"] for s in doc.segments] == [0, 1, 2]
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {doc.segments[2].key: Translation(TaggedText("aaa"), "confirmed")})
    assert out.read_text("utf-8") == text + '\nmsgstr[1] ""\nmsgstr[2] "aaa"'
    _msgfmt_accepts(out)


def test_private_use_characters_are_kept_as_codes(tmp_path):
    p = tmp_path / "pua.po"
    text = ('msgid "\uf0a7 Item <b>bold</b>"\nmsgstr "\uf0a7 Punkt <b>fett</b>"\n\n'
            'msgid "\uf0a7 Two"\nmsgstr ""\n')
    p.write_text(text, "utf-8")
    doc = FORMAT.read(p)
    one, two = doc.segments
    assert "\ufffd" not in one.source.text + one.target.text
    assert one.source.display() == "<U+F0A7/> Item <b>bold</b>"
    assert one.target.display() == "<U+F0A7/> Punkt <b>fett</b>"
    assert one.target.tag_numbers() == one.source.tag_numbers() == [1, 2, 3]
    assert one.source.tags[0].original == "\uf0a7" and one.source.tags[0].kind == "ph"
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {two.key: Translation(TaggedText(two.source.text.replace("Two", "Zwei"),
                                                          two.source.tags))})
    assert out.read_text("utf-8") == text.replace('msgstr ""', 'msgstr "\uf0a7 Zwei"')


# ----------------------------------------------------------------- bad input
def test_wrong_encoding_names_file_and_line(tmp_path):
    p = tmp_path / "bad.po"
    p.write_bytes(PO.encode("utf-8").replace("Öffnen".encode("utf-8"), "Öffnen".encode("latin-1")))
    with pytest.raises(FormatError) as ei:
        FORMAT.read(p)
    assert "bad.po" in str(ei.value) and ei.value.location == f"line {PO[:PO.index('Öffnen')].count(chr(10)) + 1}"


def test_truncated_po_is_a_format_error_with_line(tmp_path):
    p = tmp_path / "cut.po"
    p.write_bytes(PO[: PO.index("%d Dateien") + 3].encode("utf-8"))
    with pytest.raises(FormatError) as ei:
        FORMAT.read(p)
    assert "cut.po" in str(ei.value) and ei.value.location.startswith("line ")


def test_syntax_error_names_the_line(tmp_path):
    p = tmp_path / "syntax.po"
    p.write_text('msgid "A"\nmsgstr "a"\n\nmsgid "B"\nmsgfoo "b"\n', "utf-8")
    with pytest.raises(FormatError) as ei:
        FORMAT.read(p)
    assert "syntax.po" in str(ei.value) and ei.value.location == "line 5"


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf"])
def test_empty_file_is_a_format_error(tmp_path, content):
    p = tmp_path / "empty.po"
    p.write_bytes(content)
    with pytest.raises(FormatError, match="empty.po"):
        FORMAT.read(p)


# -------------------------------------------------------------- real samples
def _seg_by_key(doc, key):
    return next(s for s in doc.segments if s.key == key)


def _sample_files():
    roots = [SHARED_DATA / "format-samples", SHARED_DATA / "kde4-l10n-de" / "po-samples",
             SHARED_DATA / "python-docs-fr" / "po-samples"]
    files = sorted({f for r in roots if r.is_dir() for pat in ("*.po", "*.pot") for f in r.rglob(pat)})
    return [pytest.param(f, id=str(f.relative_to(SHARED_DATA))) for f in files] or \
        [pytest.param(None, id="no-shared-data")]


@pytest.mark.data
@pytest.mark.parametrize("path", _sample_files())
def test_every_sample_imports_or_raises_format_error_and_round_trips(path, tmp_path):
    if path is None:
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    try:
        doc = FORMAT.read(path)
    except FormatError as e:
        assert path.name in str(e)
        return
    out = tmp_path / "out.po"
    FORMAT.write(path, out, {})
    assert out.read_bytes() == path.read_bytes()
    FORMAT.write(path, out, {s.key: Translation(s.target, s.status) for s in doc.segments if s.target})
    assert out.read_bytes() == path.read_bytes()  # what the store exports for an untouched document
    # One entry translated: only its msgstr lines (and flag lines) change.
    first = doc.segments[0]
    new_target = TaggedText("«" + first.source.text + "»", first.source.tags)
    FORMAT.write(path, out, {first.key: Translation(new_target, "confirmed")})
    enc = doc.meta["encoding"]
    removed, added = _changed_lines(path.read_bytes().decode(enc), out.read_bytes().decode(enc))
    assert added, "the translation was not written"
    for line in removed + added:
        assert line.lstrip().startswith(("msgstr", '"', "#,", "#|")), (line, removed, added)
    assert _seg_by_key(FORMAT.read(out), first.key).target.text == new_target.text
    # Every segment translated; entries with a draft form become fuzzy as a whole.
    draft_lines = {s.meta["line"] for s in doc.segments if s.meta["line"] % 3 == 0}
    # a sentence of an HTML msgid (po_html) is translated keeping its punctuation: "»«" between two
    # sentences would make them one when the msgstr is read back
    tr = {s.key: Translation(TaggedText(s.source.text.upper() if s.meta.get("html") else "«" + s.source.text + "»",
                                        s.source.tags),
                             "draft" if s.meta["line"] in draft_lines else "confirmed")
          for s in doc.segments}
    FORMAT.write(path, out, tr)
    again = FORMAT.read(out)
    assert [(s.key, s.source.text) for s in again.segments] == [(s.key, s.source.text) for s in doc.segments]
    for s in again.segments:
        assert s.target.text == tr[s.key].target.text
        assert s.status == tr[s.key].status


def test_cp1251_sample_decodes_to_cyrillic():
    doc = FORMAT.read(data_file("format-samples", "okapi", "filters", "po", "src", "test", "resources",
                                "Test_DrupalRussianCP1251.po"))
    targets = "".join(s.target.text for s in doc.segments if s.target)
    assert any("а" <= c <= "я" for c in targets) and "\ufffd" not in targets
