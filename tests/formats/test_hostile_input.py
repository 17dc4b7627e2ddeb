"""Issue 35, items 9-10: hostile or huge inputs that gave tracebacks or ran without bound
are read, or refused in one line naming the file (and the place), within seconds.

The limits are monkeypatched small so that the files stay small."""
from __future__ import annotations

import pytest

from engine.cli import main
from engine.errors import FormatError
from engine.formats import read_document
from engine.formats.base import Translation
from engine.formats.html import FORMAT as HTML
from engine.formats.po import FORMAT as PO
from engine.inline import TAG_MAX

PO_HEAD = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset={cs}\\n"\n\n'


# ------------------------------------------------------------ inline codes
def test_an_html_block_with_more_inline_tags_than_one_segment_can_number_imports(tmp_path):
    """A tag cloud: 3,300 links in one paragraph is 6,600 codes (one text holds 6,399)."""
    links = " ".join(f'<a href="/t/{i}">tag {i}</a>' for i in range(3300))
    original = f"<html><body><p>{links}</p><p>After the cloud.</p></body></html>\n"
    p = tmp_path / "cloud.html"
    p.write_text(original, "utf-8")
    doc = HTML.read(p, src_lang="en")
    assert all(len(s.source.tags) <= TAG_MAX for s in doc.segments)
    assert sum(len(s.source.tags) for s in doc.segments) == 6600
    assert doc.segments[-1].source.text == "After the cloud."
    # every code keeps its markup; untouched export gives the file back, a translation lands in place
    HTML.write(p, tmp_path / "same.html", {})
    assert (tmp_path / "same.html").read_text("utf-8") == original
    last = doc.segments[-1]
    HTML.write(p, tmp_path / "de.html", {last.key: Translation(last.source.with_text("Nach der Wolke."))})
    assert (tmp_path / "de.html").read_text("utf-8") == original.replace("After the cloud.", "Nach der Wolke.")


def test_a_tag_cloud_imports_through_the_command_line(tmp_path, capsys):
    links = "".join(f"<b>{i}</b>" for i in range(4000))
    (tmp_path / "c.html").write_text(f"<html><body><p>Tags: {links}</p></body></html>", "utf-8")
    rc = main(["doc", "import", str(tmp_path / "c.html"), "--project", str(tmp_path / "p"),
               "--src-lang", "en", "--tgt-lang", "de"])
    assert rc == 0, capsys.readouterr().err


# ------------------------------------------------------------------ charsets
@pytest.mark.parametrize("charset", ["zlib", "rot13", "base64", "hex"])
def test_an_html_meta_charset_that_is_no_text_encoding_is_refused_naming_it(tmp_path, charset):
    p = tmp_path / "x.html"
    p.write_text(f'<html>\n<head><meta charset="{charset}"></head>\n<body><p>Hi there.</p></body></html>', "ascii")
    with pytest.raises(FormatError) as e:
        read_document(p, src_lang="en")
    assert e.value.path == str(p) and e.value.location == "line 2"
    assert charset in e.value.message and "not a text encoding" in e.value.message


@pytest.mark.parametrize("charset", ["zlib", "rot13", "bz2", "uu"])
@pytest.mark.parametrize("body", ["Open", "Öffnen"])
def test_a_po_header_charset_that_is_no_text_encoding_is_refused_naming_it(tmp_path, charset, body):
    p = tmp_path / "x.po"
    p.write_text(PO_HEAD.format(cs=charset) + f'msgid "{body}"\nmsgstr ""\n', "utf-8")
    with pytest.raises(FormatError) as e:
        PO.read(p)
    assert e.value.path == str(p) and e.value.location == "line 3"
    assert charset in e.value.message and "not a text encoding" in e.value.message


def test_doc_import_of_a_rot13_po_is_one_error_line(tmp_path, capsys):
    p = tmp_path / "x.po"
    p.write_text(PO_HEAD.format(cs="rot13") + 'msgid "Open"\nmsgstr ""\n', "utf-8")
    rc = main(["doc", "import", str(p), "--project", str(tmp_path / "p"), "--src-lang", "en", "--tgt-lang", "de"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "x.po, line 3" in err and "rot13" in err
    assert "Traceback" not in err and "LookupError" not in err


def test_a_legacy_text_charset_still_reads(tmp_path):
    p = tmp_path / "x.po"
    p.write_bytes((PO_HEAD.format(cs="ISO-8859-1") + 'msgid "Öffnen"\nmsgstr ""\n').encode("latin-1"))
    assert PO.read(p).segments[0].source.text == "Öffnen"


@pytest.mark.parametrize("name,body", [
    ("x.po", 'msgid ""\nmsgstr ""\n\nmsgid "Open"\nmsgstr ""\n\nmsgid "{tags}"\nmsgstr ""\n'),
    ("x.csv", "source,target\nOpen,Öffnen\n{tags},x\n"),
])
def test_one_string_with_more_codes_than_a_segment_holds_is_refused_at_its_line(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(body.format(tags=" ".join(f"<b>{i}</b>" for i in range(3300))), "utf-8")
    with pytest.raises(FormatError) as e:
        read_document(p, src_lang="en", tgt_lang="de")
    assert e.value.path == str(p) and e.value.location == ("line 7" if name == "x.po" else "line 3")
    assert "inline codes" in e.value.message


# ------------------------------------------------------------ issue 35, item 9
from engine.formats import textutil  # noqa: E402
from engine.formats.txt import FORMAT as TXT  # noqa: E402


def test_a_document_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(textutil, "MAX_DOCUMENT_BYTES", 1000)
    for name in ("big.txt", "big.po", "big.csv", "big.html", "big.md"):
        p = tmp_path / name
        p.write_text("Short line.\n" * 100, "utf-8")
        with pytest.raises(FormatError) as e:
            read_document(p, src_lang="en", tgt_lang="de")
        assert e.value.path == str(p) and "1000 bytes" in e.value.message and "\n" not in str(e.value)


def test_a_po_with_more_entries_than_the_limit_is_refused_before_parsing(tmp_path, monkeypatch):
    monkeypatch.setattr(textutil, "MAX_SEGMENTS", 50)
    p = tmp_path / "many.po"
    p.write_text(PO_HEAD.format(cs="UTF-8") + "".join(f'msgid "Entry {i}"\nmsgstr ""\n\n' for i in range(60)), "utf-8")
    parsed = []
    monkeypatch.setattr("translate.storage.poparser.parse_units", lambda *a: parsed.append(a))
    with pytest.raises(FormatError) as e:
        PO.read(p)
    assert e.value.location == f"line {5 + 3 * 50}" and "more than 50 entries" in e.value.message
    assert not parsed


def test_a_text_with_more_segments_than_the_limit_is_refused_naming_the_line(tmp_path, monkeypatch):
    monkeypatch.setattr(textutil, "MAX_SEGMENTS", 100)
    p = tmp_path / "many.txt"
    p.write_text("".join(f"Line number {i} is here.\n\n" for i in range(150)), "utf-8")
    with pytest.raises(FormatError) as e:
        TXT.read(p, src_lang="en")
    assert e.value.location == "line 201" and "more than 100 segments" in e.value.message
    p.write_text("".join(f"Line number {i} is here.\n\n" for i in range(100)), "utf-8")
    assert len(TXT.read(p, src_lang="en").segments) == 100


def test_a_hard_wrapped_text_segments_at_its_sentence_ends_not_its_lines():
    """The 10 MB text that took 134 s with pysbd: line breaks inside a paragraph are layout."""
    from engine import segmentation

    text = "The committee met on monday.\nSeveral members asked for more time!\nDr. Smith agreed. It was late."
    seg = segmentation.segment_text(text, "en")
    assert seg.sentences == ("The committee met on monday.", "Several members asked for more time!",
                             "Dr. Smith agreed.", "It was late.")


def test_tricky_prose_segments_loss_free_in_every_language():
    from engine import segmentation

    samples = [
        'He said "Stop. Now." Then he left. It was over.', "Prices rose 3.5 percent. Then they fell.",
        "See Fig. 3 for details. The U.S. team won. It was approx. ten.",
        "Visit www.example.com. Then call us. We answer (mostly. Not always.) Done.",
        "Der Ausschuss tagte z. B. am Montag. Dann ging er. Usw. und so weiter.",
        "It ended... Then more. Really?! Yes. i.e. this one. Mr. Brown came.",
        "1. First item. 2. Second item. a) one b) two.", "Wait . Really ? Yes !", "word?! next",
    ]
    for text in samples:
        for lang in ("en", "de", "fr"):
            seg = segmentation.segment_text(text, lang)
            assert seg.join() == text and all(s == s.strip() for s in seg.sentences), (text, lang)
