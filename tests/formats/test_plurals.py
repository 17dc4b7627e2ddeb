"""Plural forms the target language needs and the source file lacks: one segment per missing
CLDR category on import, written back as the format's own plural item on export."""
from __future__ import annotations

import json
import plistlib
from pathlib import Path

import pytest

from engine.formats import plurals
from engine.formats.android import FORMAT as ANDROID
from engine.formats.apple import STRINGSDICT
from engine.formats.base import Translation
from engine.formats.jsonfmt import FORMAT as JSON
from engine.formats.qt_ts import FORMAT as TS
from engine.inline import TaggedText

ANDROID_XML = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="title">Songs</string>
    <plurals name="songs">
        <item quantity="one">%d song</item>
        <item quantity="other">%d songs</item>
    </plurals>
</resources>
"""

I18NEXT = """{
  "title": "Files",
  "files": {
    "count_one": "{{count}} file",
    "count_other": "{{count}} files"
  }
}
"""

STRINGSDICT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0">
<dict>
\t<key>%d files</key>
\t<dict>
\t\t<key>NSStringLocalizedFormatKey</key>
\t\t<string>%#@files@</string>
\t\t<key>files</key>
\t\t<dict>
\t\t\t<key>NSStringFormatSpecTypeKey</key>
\t\t\t<string>NSStringPluralRuleType</string>
\t\t\t<key>NSStringFormatValueTypeKey</key>
\t\t\t<string>d</string>
\t\t\t<key>zero</key>
\t\t\t<string>No files</string>
\t\t\t<key>one</key>
\t\t\t<string>%d file</string>
\t\t\t<key>other</key>
\t\t\t<string>%d files</string>
\t\t</dict>
\t</dict>
</dict>
</plist>
"""

TS_XML = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" sourcelanguage="en">
<context>
    <name>Main</name>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n Datei</numerusform>
            <numerusform>%n Dateien</numerusform>
        </translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


def _forms(doc, prefix: str) -> dict[str, object]:
    return {s.meta.get("plural_form") or s.key: s for s in doc.segments if prefix in s.key}


def _translate(doc, text_of) -> dict[str, Translation]:
    """Each segment translated as ``text_of(segment)``, its codes kept."""
    out = {}
    for s in doc.segments:
        text = text_of(s)
        if text is None:
            continue
        codes = "".join(t.char for t in s.source.tags)
        out[s.key] = Translation(TaggedText(text + codes, s.source.tags))
    return out


# -- the CLDR categories ------------------------------------------------------------------------

def test_categories_and_examples_come_from_cldr():
    assert plurals.categories("ru") == ("one", "few", "many", "other")
    assert plurals.categories("pl-PL") == ("one", "few", "many", "other")
    assert plurals.categories("ar") == ("zero", "one", "two", "few", "many", "other")
    assert plurals.categories("ja") == ("other",)
    assert plurals.categories("xx-unknown") == ()
    assert plurals.note("ru", "few") == "few: e.g. 2, 3, 4"
    assert plurals.note("ar", "many") == "many: e.g. 11, 12, 13"
    assert plurals.note("ru", "other") == "other: e.g. 0.5, 1.5, 2.5"


def test_new_forms_take_the_nearest_source_form():
    assert plurals.nearest("few", {"one", "other"}) == "other"
    assert plurals.nearest("one", {"one", "other"}) == "one"
    assert plurals.nearest("one", {"other"}) == "other"
    assert plurals.missing({"one", "other"}, "cs") == ["few", "many"]
    assert plurals.foreign(["one", "other"], "ja") == ["one"]


def test_gettext_forms_are_named_by_their_cldr_category():
    assert plurals.gettext_forms("ru") == ("one", "few", "many")
    assert plurals.gettext_forms("ja") == ("other",)
    assert plurals.gettext_forms("ar") == ("zero", "one", "two", "few", "many", "other")


# -- Android ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang, added", [("ru", ["few", "many"]), ("pl", ["few", "many"]),
                                         ("ar", ["zero", "two", "few", "many"]), ("ja", [])])
def test_android_import_adds_a_segment_per_form_the_target_needs(tmp_path, lang, added):
    doc = ANDROID.read(_write(tmp_path, "strings.xml", ANDROID_XML), src_lang="en", tgt_lang=lang)
    keys = [json.loads(s.key)[1] for s in doc.segments]
    assert keys == ["title", "songs[one]", "songs[other]"] + [f"songs[{c}]" for c in added]
    forms = _forms(doc, "songs")
    for c in added:
        assert forms[c].source.display() == "<%d/> songs"
        assert forms[c].note.startswith(plurals.note(lang, c))


def test_android_form_the_target_lacks_is_kept_and_marked(tmp_path):
    doc = ANDROID.read(_write(tmp_path, "strings.xml", ANDROID_XML), src_lang="en", tgt_lang="ja")
    forms = _forms(doc, "songs")
    assert "not a plural form of ja" in forms["one"].note
    assert "not a plural form" not in forms["other"].note


def test_android_export_writes_new_quantities_inside_the_plurals(tmp_path):
    from translate.storage import aresource

    src = _write(tmp_path, "strings.xml", ANDROID_XML)
    doc = ANDROID.read(src, src_lang="en", tgt_lang="ar")
    ANDROID.write(src, tmp_path / "ar.xml", _translate(doc, lambda s: f"{s.meta.get('plural_form', 'x')} l'\"&"),
                  tgt_lang="ar")
    out = (tmp_path / "ar.xml").read_text("utf-8")
    assert '<item quantity="other">other l\\\'\\"&amp;%d</item>\n        <item quantity="zero">zero l\\\'' in out
    store = aresource.AndroidResourceFile.parsestring(out.encode())
    store.settargetlanguage("ar")  # its plural tags: which quantities it reads
    songs = next(u for u in store.units if u.getid() == "songs")
    assert sorted(str(s) for s in songs.target.strings) == sorted(
        f"{c} l'\"&%d" for c in ("zero", "one", "two", "few", "many", "other"))
    assert out.count("</plurals>") == 1 and out.endswith("</resources>\n")


def test_android_untranslated_new_forms_leave_the_file_byte_identical(tmp_path):
    src = _write(tmp_path, "strings.xml", ANDROID_XML)
    doc = ANDROID.read(src, src_lang="en", tgt_lang="ru")
    ANDROID.write(src, tmp_path / "o.xml", {}, tgt_lang="ru")
    assert (tmp_path / "o.xml").read_bytes() == src.read_bytes()
    only_few = _translate(doc, lambda s: "несколько " if s.meta.get("plural_form") == "few" else None)
    ANDROID.write(src, tmp_path / "few.xml", only_few, tgt_lang="ru")
    out = (tmp_path / "few.xml").read_text("utf-8")
    assert 'quantity="few">несколько %d</item>' in out and "many" not in out


# -- i18next JSON -------------------------------------------------------------------------------

@pytest.mark.parametrize("lang, added", [("ru", ["few", "many"]), ("pl", ["few", "many"]),
                                         ("ar", ["zero", "two", "few", "many"]), ("ja", [])])
def test_json_import_adds_i18next_keys_the_target_needs(tmp_path, lang, added):
    doc = JSON.read(_write(tmp_path, "en.json", I18NEXT), src_lang="en", tgt_lang=lang)
    assert [s.context for s in doc.segments] == ["title", "files.count_one", "files.count_other"] + \
        [f"files.count_{c}" for c in added]
    forms = _forms(doc, "count_")
    for c in added:
        assert forms[c].source.display() == "<{{count}}/> files"
        assert plurals.note(lang, c) in forms[c].note
    if lang == "ja":
        assert "not a plural form of ja" in forms["one"].note


@pytest.mark.parametrize("lang", ["ru", "pl", "ar"])
def test_json_export_puts_new_keys_next_to_key_other(tmp_path, lang):
    src = _write(tmp_path, "en.json", I18NEXT)
    doc = JSON.read(src, src_lang="en", tgt_lang=lang)
    JSON.write(src, tmp_path / "o.json", _translate(doc, lambda s: f'"{s.meta.get("plural_form", "t")}" '),
               tgt_lang=lang)
    text = (tmp_path / "o.json").read_text("utf-8")
    data = json.loads(text)
    assert list(data["files"]) == ["count_one", "count_other"] + [f"count_{c}" for c in plurals.missing(
        ["one", "other"], lang)]
    assert all(v == f'"{k[6:]}" {{{{count}}}}' for k, v in data["files"].items())
    assert '{{count}}",\n    "count_many": "\\"many\\" {{count}}"\n  }\n}\n' in text


def test_json_minified_and_ascii_files_keep_their_style(tmp_path):
    src = _write(tmp_path, "m.json", '{"n_one":"\\u00e9 {{count}}","n_other":"x {{count}}"}')
    doc = JSON.read(src, src_lang="en", tgt_lang="cs")
    JSON.write(src, tmp_path / "o.json", _translate(doc, lambda s: "č " if s.meta.get("plural_added") else None))
    assert (tmp_path / "o.json").read_text("ascii") == \
        '{"n_one":"\\u00e9 {{count}}","n_other":"x {{count}}","n_few":"\\u010d {{count}}","n_many":"\\u010d {{count}}"}'
    JSON.write(src, tmp_path / "same.json", {})
    assert (tmp_path / "same.json").read_bytes() == src.read_bytes()


def test_json_unknown_target_language_adds_nothing(tmp_path):
    doc = JSON.read(_write(tmp_path, "en.json", I18NEXT), src_lang="en", tgt_lang="")
    assert len(doc.segments) == 3 and "plural_groups" not in doc.meta


# -- Apple .stringsdict -------------------------------------------------------------------------

@pytest.mark.parametrize("lang, added", [("ru", ["few", "many"]), ("pl", ["few", "many"]),
                                         ("ar", ["two", "few", "many"]), ("ja", [])])
def test_stringsdict_import_adds_the_forms_the_target_needs(tmp_path, lang, added):
    doc = STRINGSDICT.read(_write(tmp_path, "L.stringsdict", STRINGSDICT_XML), src_lang="en", tgt_lang=lang)
    forms = [json.loads(s.key)[-1] for s in doc.segments]
    assert forms == ["NSStringLocalizedFormatKey", "zero", "one", "other"] + added
    by = _forms(doc, '"files"')
    for c in added:
        assert by[c].source.display() == "<%d/> files" and plurals.note(lang, c) in by[c].note
    assert "not a plural form" not in by["zero"].note  # Foundation reads "zero" for 0 in any language
    assert ("not a plural form of ja" in by["one"].note) == (lang == "ja")


@pytest.mark.parametrize("lang", ["ru", "pl", "ar"])
def test_stringsdict_export_adds_key_and_string_to_the_variable_dict(tmp_path, lang):
    src = _write(tmp_path, "L.stringsdict", STRINGSDICT_XML)
    doc = STRINGSDICT.read(src, src_lang="en", tgt_lang=lang)
    STRINGSDICT.write(src, tmp_path / "o.stringsdict",
                      _translate(doc, lambda s: f"{s.meta['plural_form']} <&> " if s.meta.get("plural_form") else None),
                      tgt_lang=lang)
    out = (tmp_path / "o.stringsdict").read_bytes()
    variable = plistlib.loads(out)["%d files"]["files"]
    wanted = ["zero", "one", "other"] + plurals.missing(["zero", "one", "other"], lang)
    assert [k for k in variable if not k.startswith("NS")] == wanted
    assert all(variable[c] == f"{c} <&> " + ("%d" if c != "zero" else "") for c in wanted)
    assert b"<string>other &lt;&amp;&gt; %d</string>\n\t\t\t<key>" in out
    STRINGSDICT.write(src, tmp_path / "same.stringsdict", {}, tgt_lang=lang)
    assert (tmp_path / "same.stringsdict").read_bytes() == src.read_bytes()


# -- Qt TS --------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang, n", [("ru", 3), ("pl", 3), ("ar", 6), ("ja", 1)])
def test_ts_numerus_message_gets_the_target_languages_form_count(tmp_path, lang, n):
    doc = TS.read(_write(tmp_path, "a.ts", TS_XML), src_lang="en", tgt_lang=lang)
    forms = [s for s in doc.segments if "plural_index" in s.meta]
    assert [s.meta["plural_index"] for s in forms] == list(range(max(n, 2)))
    assert [s.target.display() if s.target else None for s in forms][:2] == ["<%n/> Datei", "<%n/> Dateien"]
    if lang == "ru":
        assert forms[1].note == "form 2 of 3: few: e.g. 2, 3, 4"
        assert forms[2].note == "form 3 of 3: many: e.g. 0, 5, 6" and forms[2].status == "new"
    if lang == "ja":
        assert "not used" in forms[1].note


@pytest.mark.parametrize("lang, n", [("ru", 3), ("pl", 3), ("ar", 6)])
def test_ts_export_writes_as_many_numerusforms_as_the_target_has(tmp_path, lang, n):
    from translate.storage import ts2

    src = _write(tmp_path, "a.ts", TS_XML)
    doc = TS.read(src, src_lang="en", tgt_lang=lang)
    TS.write(src, tmp_path / "o.ts", _translate(
        doc, lambda s: f"{s.meta['plural_index']} <&>" if s.meta.get("plural_added") else None), tgt_lang=lang)
    out = (tmp_path / "o.ts").read_bytes()
    unit = next(u for u in ts2.tsfile.parsestring(out).units if u.source == "%n file(s)")
    assert unit.target.strings == ["%n Datei", "%n Dateien"] + [f"{i} <&>%n" for i in range(2, n)]
    assert f"<numerusform>{n - 1} &lt;&amp;&gt;%n</numerusform>\n        </translation>".encode() in out
    TS.write(src, tmp_path / "same.ts", {}, tgt_lang=lang)
    assert (tmp_path / "same.ts").read_bytes() == src.read_bytes()


def test_ts_a_later_form_alone_leaves_the_ones_between_unfinished(tmp_path):
    src = _write(tmp_path, "a.ts", TS_XML)
    doc = TS.read(src, src_lang="en", tgt_lang="ar")
    TS.write(src, tmp_path / "o.ts", _translate(
        doc, lambda s: "vier " if s.meta.get("plural_index") == 4 else None), tgt_lang="ar")
    back = TS.read(tmp_path / "o.ts", src_lang="en", tgt_lang="ar")
    forms = [s.target.display() if s.target else None for s in back.segments if "plural_index" in s.meta]
    assert forms == ["<%n/> Datei", "<%n/> Dateien", None, None, "vier <%n/>", None]
    assert all(s.status == "draft" for s in back.segments[:5] if s.target)


def test_a_file_that_has_the_targets_forms_gains_none(tmp_path):
    ru = '{"a": {"n_one": "x", "n_few": "y", "n_many": "z", "n_other": "w"}}'
    doc = JSON.read(_write(tmp_path, "ru.json", ru), src_lang="en", tgt_lang="ru")
    assert [s.context for s in doc.segments] == ["a.n_one", "a.n_few", "a.n_many", "a.n_other"]
    assert not any("not a plural form" in s.note for s in doc.segments)


def test_an_added_form_is_refused_on_export_for_a_key_with_no_plural_group(tmp_path):
    from engine.errors import FormatError

    src = _write(tmp_path, "strings.xml", ANDROID_XML)
    with pytest.raises(FormatError, match="does not have"):
        ANDROID.write(src, tmp_path / "o.xml", {'["plurals", "nosuch[few]"]': Translation(TaggedText("x"))})
