"""A PO template (or a PO whose header gives no plural rule) translated into a language gets the
plural forms of that language, and its export the Plural-Forms header gettext's msginit writes."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from engine.formats.base import Translation
from engine.formats.po import FORMAT
from engine.inline import TaggedText

POT = '''\
# SOME DESCRIPTIVE TITLE.
#, fuzzy
msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\\n"
"Language: \\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"

msgid "Open"
msgstr ""

#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""
'''

PL_RULE = "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"


def _write(tmp_path, text: str, name: str = "demo.pot"):
    p = tmp_path / name
    p.write_text(text, "utf-8")
    return p


def _plural_segments(doc):
    return [s for s in doc.segments if "plural_index" in s.meta]


def _translate_all(doc, lang: str) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(f"{lang}{s.meta.get('plural_index', '')} " + s.source.text,
                                          s.source.tags), "confirmed") for s in doc.segments}


def _msgfmt_or_polib(path, nplurals: int) -> None:
    """``msgfmt -c`` accepts the file when gettext is installed; polib reads it back with
    ``nplurals`` forms per plural entry otherwise."""
    if shutil.which("msgfmt"):
        r = subprocess.run(["msgfmt", "-c", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return
    polib = pytest.importorskip("polib")
    po = polib.pofile(str(path))
    assert all(len(e.msgstr_plural) == nplurals for e in po if e.msgid_plural)


@pytest.mark.parametrize("lang, forms, rule", [
    ("pl", 3, PL_RULE),
    ("ja", 1, "nplurals=1; plural=0;"),
    ("de", 2, "nplurals=2; plural=(n != 1);"),
    ("fr", 2, "nplurals=2; plural=(n > 1);"),       # msginit's, not CLDR's three forms
    ("ar", 6, "nplurals=6; plural="),               # a language msginit has no rule for: CLDR's
])
def test_a_template_gets_the_target_languages_plural_forms_and_header(tmp_path, lang, forms, rule):
    pot = _write(tmp_path, POT)
    doc = FORMAT.read(pot, src_lang="en", tgt_lang=lang)
    plural = _plural_segments(doc)
    assert [s.meta["plural_index"] for s in plural] == list(range(forms))
    assert all(s.meta["plural_forms"] == forms for s in plural)
    out = tmp_path / f"{lang}.po"
    FORMAT.write(pot, out, _translate_all(doc, lang), tgt_lang=lang)
    text = out.read_text("utf-8")
    assert f'"Plural-Forms: {rule}' in text and "INTEGER" not in text
    _msgfmt_or_polib(out, forms)
    again = FORMAT.read(out, src_lang="en", tgt_lang=lang)
    assert [s.target.display() for s in _plural_segments(again)] == [
        f"{lang}{i} <%d/> file" if i == 0 else f"{lang}{i} <%d/> files" for i in range(forms)]
    assert again.meta["nplurals"] == forms


def test_a_template_with_one_form_translated_still_exports_every_form(tmp_path):
    pot = _write(tmp_path, POT)
    doc = FORMAT.read(pot, tgt_lang="pl")
    first = _plural_segments(doc)[0]
    out = tmp_path / "pl.po"
    FORMAT.write(pot, out, {first.key: Translation(TaggedText("%d plik", first.source.tags), "confirmed")},
                 tgt_lang="pl")
    text = out.read_text("utf-8")
    assert 'msgstr[0] "%d plik"\nmsgstr[1] ""\nmsgstr[2] ""\n' in text
    assert [s.meta["plural_forms"] for s in FORMAT.read(out).segments if "plural_index" in s.meta] == [3, 3, 3]


def test_an_untouched_template_export_only_fills_the_plural_rule(tmp_path):
    pot = _write(tmp_path, POT)
    out = tmp_path / "ja.po"
    FORMAT.write(pot, out, {}, tgt_lang="ja")
    assert out.read_text("utf-8") == POT.replace("nplurals=INTEGER; plural=EXPRESSION;", "nplurals=1; plural=0;") \
        .replace('msgstr[0] ""\nmsgstr[1] ""\n', 'msgstr[0] ""\n')


def test_a_po_with_its_own_plural_forms_keeps_them(tmp_path):
    own = POT.replace("nplurals=INTEGER; plural=EXPRESSION;", "nplurals=2; plural=(n != 1);")
    p = _write(tmp_path, own, "de.po")
    doc = FORMAT.read(p, tgt_lang="pl")
    assert len(_plural_segments(doc)) == 2
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {}, tgt_lang="pl")
    assert out.read_bytes() == p.read_bytes()
    FORMAT.write(p, out, _translate_all(doc, "pl"), tgt_lang="pl")
    assert '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"' in out.read_text("utf-8")


def test_a_header_without_a_plural_forms_line_gets_one_from_its_language(tmp_path):
    text = POT.replace('"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"\n', "") \
        .replace('"Language: \\n"', '"Language: pl\\n"')
    p = _write(tmp_path, text, "pl.po")
    doc = FORMAT.read(p)  # no language given: the header's Language
    assert len(_plural_segments(doc)) == 3
    out = tmp_path / "out.po"
    FORMAT.write(p, out, _translate_all(doc, "pl"))
    assert f'"Content-Transfer-Encoding: 8bit\\n"\n"Plural-Forms: {PL_RULE}\\n"\n\n' in out.read_text("utf-8")
    _msgfmt_or_polib(out, 3)


def test_a_file_without_a_header_gets_one_with_the_plural_rule(tmp_path):
    text = 'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\n'
    p = _write(tmp_path, text, "bare.po")
    doc = FORMAT.read(p, tgt_lang="pl")
    assert len(doc.segments) == 3
    out = tmp_path / "out.po"
    FORMAT.write(p, out, _translate_all(doc, "pl"), tgt_lang="pl")
    assert f'"Plural-Forms: {PL_RULE}\\n"' in out.read_text("utf-8")
    _msgfmt_or_polib(out, 3)
    assert [s.target.display() for s in FORMAT.read(out).segments] == [
        "pl0 <%d/> file", "pl1 <%d/> files", "pl2 <%d/> files"]


def test_a_file_without_plural_entries_is_exported_unchanged(tmp_path):
    text = POT.split("#, c-format")[0].replace('"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"\n', "")
    p = _write(tmp_path, text, "simple.po")
    out = tmp_path / "out.po"
    FORMAT.write(p, out, {}, tgt_lang="pl")
    assert out.read_bytes() == p.read_bytes()


def test_a_template_imported_into_a_polish_project_exports_three_forms(tmp_path):
    from engine.store import Project

    pot = _write(tmp_path, POT)
    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="pl") as p:
        doc_id = p.import_document(pot)
        assert len(p.segments(doc_id)) == 4
        out = p.export_document(doc_id, tmp_path / "exported.po", force=True)
    assert f'"Plural-Forms: {PL_RULE}\\n"' in out.read_text("utf-8")
    assert 'msgstr[2] ""' in out.read_text("utf-8")


def test_obsolete_plural_entries_of_a_template_are_kept_as_they_are(tmp_path):
    obsolete = '\n#~ msgid "%d dir"\n#~ msgid_plural "%d dirs"\n#~ msgstr[0] ""\n#~ msgstr[1] ""\n'
    pot = _write(tmp_path, POT + obsolete)
    doc = FORMAT.read(pot, tgt_lang="pl")
    out = tmp_path / "pl.po"
    FORMAT.write(pot, out, _translate_all(doc, "pl"), tgt_lang="pl")
    assert out.read_text("utf-8").endswith(obsolete)
    assert len(_plural_segments(FORMAT.read(out))) == 3


def test_a_plural_forms_field_inside_a_one_line_header_is_filled_not_repeated(tmp_path):
    text = ('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\nPlural-Forms: nplurals=INTEGER; '
            'plural=EXPRESSION;\\n"\n\nmsgid "A"\nmsgid_plural "As"\nmsgstr[0] ""\nmsgstr[1] ""\n')
    p = _write(tmp_path, text)
    out = tmp_path / "ja.po"
    FORMAT.write(p, out, {}, tgt_lang="ja")
    assert out.read_text("utf-8") == text.replace("nplurals=INTEGER; plural=EXPRESSION;", "nplurals=1; plural=0;") \
        .replace('msgstr[1] ""\n', "")


def test_a_template_read_for_a_polish_import_with_its_declared_languages_has_three_forms(tmp_path):
    """What `verso doc import` reads: the template declares no language, the project's is used."""
    from engine.formats import read_declared

    doc, declared = read_declared(_write(tmp_path, POT), src_lang="en", tgt_lang="pl")
    assert declared == ("", "") and doc.tgt_lang == "pl"
    assert len(_plural_segments(doc)) == 3


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="gettext's msgfmt is not installed")
def test_the_compiled_polish_catalogue_picks_the_form_for_each_number(tmp_path):
    import gettext

    pot = _write(tmp_path, POT)
    doc = FORMAT.read(pot, tgt_lang="pl")
    out = tmp_path / "pl.po"
    FORMAT.write(pot, out, _translate_all(doc, "pl"), tgt_lang="pl")
    mo = tmp_path / "pl.mo"
    subprocess.run(["msgfmt", "-o", str(mo), str(out)], check=True)
    with mo.open("rb") as fh:
        catalogue = gettext.GNUTranslations(fh)
    assert [catalogue.ngettext("%d file", "%d files", n) for n in (1, 3, 5, 22, 25)] == [
        "pl0 %d file", "pl1 %d files", "pl2 %d files", "pl1 %d files", "pl2 %d files"]
