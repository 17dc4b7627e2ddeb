"""Issue 45: a PO entry whose msgid is HTML (an article of a web app's catalog) is read as HTML, as
the string formats read it (:mod:`engine.formats.htmlsub`): one segment a sentence, inline elements as
paired codes, entities as text; a translation is written back into the msgstr with its markup; an
untouched file exports byte for byte."""
from __future__ import annotations

import polib
import pytest

from engine.formats import read_document, write_document
from engine.formats.base import Translation
from engine.inline import TaggedText

PO = '''\
msgid ""
msgstr ""
"Language: de\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

#: web/dialog.html:3
msgid "<p>Press <b>Save</b> &amp; close.</p>"
msgstr ""

msgid "Click <b>Save</b>"
msgstr "Klicken Sie auf <b>Speichern</b>"

msgctxt "help"
msgid ""
"<h2>Getting started</h2>\\n"
"<p>Open the app. It&#39;s free.</p>"
msgstr ""
"<h2>Erste Schritte</h2>\\n"
"<p>Öffnen Sie die App. Sie ist gratis.</p>"
'''


@pytest.fixture
def po(tmp_path):
    p = tmp_path / "web.po"
    p.write_text(PO, "utf-8")
    return p


def _read(path):
    return read_document(path, src_lang="en", tgt_lang="de")


def _tr(seg, text: str) -> Translation:
    """``text`` with the source's codes put back where it names them as ``{n}``."""
    for t in seg.source.tags:
        text = text.replace("{%d}" % t.n, t.char)
    return Translation(TaggedText(text, seg.source.tags))


def test_an_html_msgid_is_read_as_sentences_with_inline_codes_and_entities_as_text(po):
    doc = _read(po)
    assert [s.source.display() for s in doc.segments] == [
        "Press <b>Save</b> & close.", "Click <b>Save</b>", "Getting started", "Open the app.", "It's free."]
    press = doc.segments[0]
    assert [t.original for t in press.source.tags] == ["<b>", "</b>"]
    assert press.target is None and press.status == "new"
    assert all(t.original not in ("&amp;", "&#39;", "<p>", "</p>") for s in doc.segments for t in s.source.tags)
    # a translated article in the msgstr pairs sentence by sentence
    assert [(s.target.display(), s.status, s.context) for s in doc.segments[2:]] == [
        ("Erste Schritte", "confirmed", "help"), ("Öffnen Sie die App.", "confirmed", "help"),
        ("Sie ist gratis.", "confirmed", "help")]
    assert doc.segments[0].meta["locations"] == ["web/dialog.html:3"]


def test_an_untouched_po_with_html_exports_byte_for_byte(po, tmp_path):
    doc = _read(po)
    out = tmp_path / "same.po"
    write_document(po, out, {}, format="po", src_lang="en", tgt_lang="de")
    assert out.read_bytes() == po.read_bytes()
    same = {s.key: Translation(s.target, s.status) for s in doc.segments if s.target is not None}
    write_document(po, out, same, format="po", src_lang="en", tgt_lang="de")
    assert out.read_bytes() == po.read_bytes()


def test_a_translated_html_sentence_is_written_into_the_msgstr_with_its_markup(po, tmp_path):
    doc = _read(po)
    press = doc.segments[0]
    b = [t.n for t in press.source.tags]
    out = tmp_path / "de.po"
    write_document(po, out, {press.key: _tr(press, "Drücken Sie {%d}Speichern{%d} & schließen." % tuple(b))},
                   format="po", src_lang="en", tgt_lang="de")
    entry = polib.pofile(str(out)).find("<p>Press <b>Save</b> &amp; close.</p>")
    assert entry.msgstr == "<p>Drücken Sie <b>Speichern</b> &amp; schließen.</p>"
    assert "fuzzy" not in entry.flags
    again = _read(out)
    assert again.segments[0].target.display() == "Drücken Sie <b>Speichern</b> & schließen."
    # the other entries' lines are as they were
    assert out.read_text("utf-8").split("\n\n", 2)[2] == PO.split("\n\n", 2)[2]


def test_an_article_with_some_sentences_translated_is_written_fuzzy(tmp_path):
    p = tmp_path / "two.po"
    p.write_text('msgid "<p>One sentence. Two sentences.</p>"\nmsgstr ""\n', "utf-8")
    first, second = _read(p).segments
    write_document(p, tmp_path / "half.po", {first.key: Translation(TaggedText("Ein Satz."))},
                   format="po", src_lang="en", tgt_lang="de")
    entry = polib.pofile(str(tmp_path / "half.po")).find("<p>One sentence. Two sentences.</p>")
    assert entry.msgstr == "<p>Ein Satz. Two sentences.</p>" and "fuzzy" in entry.flags
    both = {first.key: Translation(TaggedText("Ein Satz.")), second.key: Translation(TaggedText("Zwei Sätze."))}
    write_document(p, tmp_path / "de.po", both, format="po", src_lang="en", tgt_lang="de")
    entry = polib.pofile(str(tmp_path / "de.po")).find("<p>One sentence. Two sentences.</p>")
    assert entry.msgstr == "<p>Ein Satz. Zwei Sätze.</p>" and "fuzzy" not in entry.flags


def test_a_comment_on_a_sentence_of_an_html_entry_goes_before_that_entry(po, tmp_path):
    from engine.formats.comments_export import ExportComment
    from engine.formats.comments_po import write_po_comments

    doc = _read(po)
    out = tmp_path / "c.po"
    out.write_bytes(po.read_bytes())
    write_po_comments(out, {doc.segments[4].key: [ExportComment("Ann", "Check the tone", "2026-01-01T00:00:00Z")]})
    entry = polib.pofile(str(out)).find("help", by="msgctxt")
    assert entry.tcomment == "Check the tone"
