"""Issue 45, item 11: a string value holding an article (HTML with block elements) is read as HTML
-- one segment a sentence, inline elements as paired codes, entities as text, placeholders as
codes -- in every string format; a translated sentence is spliced into the value, escaped as the
container writes it; an untouched file exports byte for byte; a short string with a <b> stays one
segment."""
from __future__ import annotations

import json

import pytest
import yaml

from engine.formats import read_document, write_document
from engine.formats.base import Translation
from engine.inline import TaggedText

ARTICLE = ("<h2>Getting started</h2>\n<p>Open the app. It&#39;s free and it doesn&rsquo;t track you. "
           "Click <b>Start</b> to begin, {{name}}.</p>")
SENTENCES = ["Getting started", "Open the app.", "It's free and it doesn\u2019t track you.",
             "Click <b>Start</b> to begin, <{{name}}/>."]


def _xml_escaped(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


FILES = {
    "en.json": json.dumps({"title": "Click <b>Save</b>", "body": ARTICLE}, indent=2) + "\n",
    "en.yml": "en:\n  title: Click <b>Save</b>\n  body: " + json.dumps(ARTICLE) + "\n",
    "app.properties": "title = Click <b>Save</b>\nbody = " + ARTICLE.replace("\n", "\\n") + "\n",
    "app.resx": ('<?xml version="1.0" encoding="utf-8"?>\n<root>\n'
                 '  <data name="title" xml:space="preserve"><value>Click &lt;b&gt;Save&lt;/b&gt;</value></data>\n'
                 f'  <data name="body" xml:space="preserve"><value>{_xml_escaped(ARTICLE)}</value></data>\n'
                 '</root>\n'),
    "Localizable.strings": '"title" = "Click <b>Save</b>";\n"body" = ' + json.dumps(ARTICLE) + ';\n',
}


def _name(seg) -> str:
    """The string's name (YAML's context is its dotted path: ``en.body``)."""
    return seg.context.split(".")[-1]


def _read(path):
    return read_document(path, src_lang="en", tgt_lang="de")


@pytest.fixture(params=sorted(FILES))
def article(request, tmp_path):
    p = tmp_path / request.param
    p.write_text(FILES[request.param], "utf-8")
    return p


def _value(path, key: str) -> str:
    """The value of ``key`` as a program reading the JSON or YAML file sees it."""
    text = path.read_text("utf-8")
    if path.suffix == ".json":
        return json.loads(text)[key]
    return yaml.safe_load(text)["en"][key]


def test_an_article_in_a_string_is_one_segment_a_sentence_with_no_apostrophe_as_a_tag(article):
    doc = _read(article)
    body = [s for s in doc.segments if _name(s) == "body"]
    assert [s.source.display() for s in body] == SENTENCES
    assert all(t.original not in ("&#39;", "&rsquo;") for s in body for t in s.source.tags)
    assert [t.original for t in body[3].source.tags] == ["<b>", "</b>", "{{name}}"]
    # a short string with markup but no block stays one segment with its codes
    title = [s for s in doc.segments if _name(s) == "title"]
    assert [s.source.display() for s in title] == ["Click <b>Save</b>"]


def test_an_untouched_file_with_an_article_exports_byte_for_byte(article, tmp_path):
    doc = _read(article)
    out = tmp_path / ("same" + article.suffix)
    write_document(article, out, {}, format=doc.format, src_lang="en")
    assert out.read_bytes() == article.read_bytes()
    same = {s.key: Translation(s.source) for s in doc.segments}  # confirmed as they are
    write_document(article, out, same, format=doc.format, src_lang="en")
    assert out.read_bytes() == article.read_bytes()


def test_a_translated_sentence_is_spliced_into_the_value_escaped_for_the_container(article, tmp_path):
    doc = _read(article)
    body = [s for s in doc.segments if _name(s) == "body"]
    second, fourth = body[1], body[3]
    chars = [t.char for t in fourth.source.tags]  # <b>, </b>, {{name}}
    tr = {second.key: Translation(TaggedText('Öffne die "App" & los.')),
          fourth.key: Translation(TaggedText(f"Klicke {chars[0]}Start{chars[1]}, {chars[2]}!", fourth.source.tags))}
    out = tmp_path / ("de" + article.suffix)
    write_document(article, out, tr, format=doc.format, src_lang="en")
    value = _value(out, "body") if out.suffix in (".json", ".yml") else None
    again = _read(out)
    got = [s.source.display() for s in again.segments if _name(s) == "body"]
    assert got == ["Getting started", 'Öffne die "App" & los.', SENTENCES[2],
                   "Klicke <b>Start</b>, <{{name}}/>!"]
    if value is not None:  # the program sees HTML: the ampersand escaped once, the quotes as typed
        assert 'Öffne die "App" &amp; los.' in value and "Klicke <b>Start</b>, {{name}}!" in value
    # the strings around the article are as they were
    assert [s.source.display() for s in again.segments if _name(s) == "title"] == ["Click <b>Save</b>"]


def test_a_value_of_inline_markup_only_is_not_taken_for_an_article():
    from engine.formats.htmlsub import is_html

    assert not is_html("Click <b>Save</b> or <a href='x'>cancel</a>.")
    assert not is_html("Use <p> for paragraphs")  # a tag named, never closed
    assert is_html("<p>One.</p><p>Two.</p>")
    assert is_html("Intro<ul><li>One</li></ul>")


ANDROID = ('<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
           '    <string name="title">Click <b>Save</b></string>\n'
           "    <string name=\"body\"><![CDATA[<p>Open the app. It\\'s free &amp; fun.</p>]]></string>\n"
           '</resources>\n')


def test_an_android_cdata_article_is_read_as_html_and_written_with_android_escapes(tmp_path):
    p = tmp_path / "strings.xml"
    p.write_text(ANDROID, "utf-8")
    doc = _read(p)
    body = [s for s in doc.segments if s.context == "body"]
    assert [s.source.display() for s in body] == ["Open the app.", "It's free & fun."]
    write_document(p, tmp_path / "same.xml", {}, format=doc.format)
    assert (tmp_path / "same.xml").read_text("utf-8") == ANDROID
    write_document(p, tmp_path / "de.xml", {body[0].key: Translation(TaggedText("Öffne die 'App'."))},
                   format=doc.format, src_lang="en")
    assert ("<![CDATA[<p>Öffne die \\'App\\'. It\\'s free &amp; fun.</p>]]>"
            in (tmp_path / "de.xml").read_text("utf-8"))


TS = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="de">\n'
      '<context><name>Main</name>\n<message><source>&lt;p&gt;Open the app. It&apos;s free.&lt;/p&gt;</source>'
      '<translation type="unfinished"></translation></message>\n</context>\n</TS>\n')


def test_a_qt_ts_article_is_translated_sentence_by_sentence_and_finished_when_all_are(tmp_path):
    p = tmp_path / "app.ts"
    p.write_text(TS, "utf-8")
    doc = _read(p)
    assert [s.source.display() for s in doc.segments] == ["Open the app.", "It's free."]
    write_document(p, tmp_path / "same.ts", {}, format=doc.format)
    assert (tmp_path / "same.ts").read_text("utf-8") == TS
    first, second = doc.segments
    one = {first.key: Translation(TaggedText("Öffne die App."))}
    write_document(p, tmp_path / "half.ts", one, format=doc.format, src_lang="en")
    half = (tmp_path / "half.ts").read_text("utf-8")
    assert ('<translation type="unfinished">&lt;p&gt;Öffne die App. It&apos;s free.&lt;/p&gt;</translation>'
            in half)
    both = {**one, second.key: Translation(TaggedText("Sie ist gratis."))}
    write_document(p, tmp_path / "de.ts", both, format=doc.format, src_lang="en")
    again = _read(tmp_path / "de.ts")
    assert [(s.target.display(), s.status) for s in again.segments] == [("Öffne die App.", "confirmed"),
                                                                        ("Sie ist gratis.", "confirmed")]
    assert 'type="unfinished"' not in (tmp_path / "de.ts").read_text("utf-8")
