"""Issue 23, every input bounded: a huge paragraph is segmented in linear
time and loss-free; a line or a string over the hard limit is refused with
one line naming the file and the place, before the file is read whole; the
XML prolog check looks at the whole prolog; namespaced TMX is read; a TMX
of many languages without a language pair is refused once.

The hard limits are monkeypatched small so that the files stay small."""
from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.errors import FormatError, UnsafeXMLError
from engine.formats import textutil
from engine.formats.po import FORMAT as PO
from engine.formats.tabular import FORMAT as CSV
from engine.formats.tmfiles import read_tm_file
from engine.formats.tmx import read_tmx
from engine.formats.txt import FORMAT as TXT
from engine.formats.xliff12 import FORMAT as XLIFF12
from engine.inline import protect
from engine.segmentation import PIECE, segment_text

PROSE = ("The committee met on Monday to discuss the new budget. Several members asked "
         "for more time, and the chair agreed! Would the report be ready by June? ")


def _one_line(size: int, unit: str = PROSE) -> str:
    return (unit * (size // len(unit) + 1))[:size].rstrip() + "."


@pytest.fixture
def small_limits(monkeypatch):
    monkeypatch.setattr(textutil, "MAX_LINE_BYTES", 2000)
    monkeypatch.setattr(textutil, "MAX_STRING_CHARS", 3000)


# ------------------------------------------------------------- segmentation
def test_a_300_kb_one_line_text_imports_and_rejoins_loss_free(tmp_path):
    text = _one_line(300_000)
    p = tmp_path / "long.txt"
    p.write_text(text + "\n", "utf-8")
    doc = TXT.read(p, src_lang="en")
    assert len(doc.segments) > 1000
    assert max(len(s.source.text) for s in doc.segments) <= PIECE
    # the sentences and the spaces between them give the paragraph back
    assert " ".join(s.source.text for s in doc.segments) == text
    assert doc.segments[0].key == "p1.s1" and doc.segments[-1].key == f"p1.s{len(doc.segments)}"


def test_a_long_paragraph_breaks_at_sentence_ends_like_a_short_one():
    text = _one_line(50_000)
    seg = segment_text(text, "en")
    assert seg.join() == text
    assert set(seg.sentences[:-1]) == {"The committee met on Monday to discuss the new budget.",
                                       "Several members asked for more time, and the chair agreed!",
                                       "Would the report be ready by June?"}


def test_a_long_run_without_sentence_ends_or_spaces_is_cut_and_kept_whole():
    for text in ("word " * 20_000, "x" * 30_000):
        seg = segment_text(text, "en")
        assert seg.join() == text
        assert max(len(s) for s in seg.sentences) <= PIECE


def test_no_break_falls_inside_a_tag_pair_of_a_long_paragraph():
    tt = protect("Press <b>Save. Then close</b> the window. " * 1000)
    seg = segment_text(tt.text, "en", tt.tags)
    assert seg.join() == tt.text
    opens = {t.char for t in tt.tags if t.kind == "open"}
    closes = {t.char for t in tt.tags if t.kind == "close"}
    for s in seg.sentences:
        assert sum(c in opens for c in s) == sum(c in closes for c in s)


def test_a_long_paragraph_with_more_codes_than_one_segment_can_number(tmp_path):
    # more than the 6399 codes one protected text can hold: numbered piece by piece
    p = tmp_path / "tags.txt"
    original = _one_line(120_000, "Click <b>OK</b> now. ")
    p.write_text(original, "utf-8")
    doc = TXT.read(p, src_lang="en")
    assert len(doc.segments) > 5000
    TXT.write(p, tmp_path / "out.txt", {}, src_lang="en")
    assert (tmp_path / "out.txt").read_text("utf-8") == original


# --------------------------------------------------------------- hard limits
def test_a_text_line_over_the_limit_is_refused_with_file_and_line(tmp_path, small_limits):
    p = tmp_path / "big.txt"
    p.write_text("Short line.\r\nAnother.\r\n" + "x" * 2500 + "\r\nEnd.\r\n", "utf-8")
    with pytest.raises(FormatError) as e:
        TXT.read(p, src_lang="en")
    assert str(e.value).startswith(f"{p}, line 3: a line longer than 2000 bytes")
    assert "\n" not in str(e.value)


def test_a_line_at_the_limit_is_read(tmp_path, small_limits):
    p = tmp_path / "ok.txt"
    p.write_text("y" * 2000 + "\n", "utf-8")
    assert len(TXT.read(p, src_lang="en").segments) == 1


def test_a_long_line_is_refused_before_the_file_is_read_whole(tmp_path, monkeypatch, small_limits):
    p = tmp_path / "huge.txt"
    p.write_bytes(b"z" * (3 << 20))  # 3 MiB on one line
    reads = []
    real_open = open

    class Counting:
        def __init__(self, fh):
            self.fh = fh

        def read(self, n=-1):
            reads.append(n)
            return self.fh.read(n)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.fh.close()

    monkeypatch.setattr("builtins.open", lambda f, m="r", *a, **k:
                        Counting(real_open(f, m, *a, **k)) if str(f) == str(p) else real_open(f, m, *a, **k))
    with pytest.raises(FormatError) as e:
        TXT.read(p, src_lang="en")
    assert e.value.location == "line 1"
    assert reads and all(0 < n <= 1 << 20 for n in reads) and len(reads) == 1


def test_a_po_string_over_the_limit_is_refused_at_its_keyword_line(tmp_path, small_limits):
    p = tmp_path / "big.po"
    body = "".join(f'"{"w" * 500}"\n' for _ in range(8))
    p.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                 'msgid "Open"\nmsgstr "Öffnen"\n\nmsgid ""\n' + body + 'msgstr ""\n', "utf-8")
    with pytest.raises(FormatError) as e:
        PO.read(p)
    assert str(e.value).startswith(f"{p}, line 8: a string longer than 3000 bytes")


def test_a_po_line_over_the_limit_is_refused(tmp_path, small_limits):
    p = tmp_path / "line.po"
    p.write_text('msgid "Open"\nmsgstr "' + "ö" * 1500 + '"\n', "utf-8")
    with pytest.raises(FormatError) as e:
        PO.read(p)
    assert e.value.location == "line 2" and "longer than 2000 bytes" in e.value.message


def test_a_csv_line_over_the_limit_is_refused(tmp_path, small_limits):
    p = tmp_path / "big.csv"
    p.write_text("source,target\nOpen,Öffnen\nSave," + "s" * 2500 + "\n", "utf-8")
    with pytest.raises(FormatError) as e:
        CSV.read(p)
    assert e.value.path == str(p) and e.value.location == "line 3"


def test_an_aligned_pair_with_a_line_over_the_limit_names_the_file_and_line(tmp_path, small_limits):
    (tmp_path / "s.txt").write_text("Open\nSave\n", "utf-8")
    (tmp_path / "t.txt").write_text("Öffnen\n" + "S" * 2500 + "\n", "utf-8")
    with pytest.raises(FormatError) as e:
        list(read_tm_file(tmp_path / "s.txt", target_file=tmp_path / "t.txt", src_lang="en", tgt_lang="de"))
    assert e.value.path == str(tmp_path / "t.txt") and e.value.location == "line 2"


def test_tm_import_of_a_huge_one_line_pair_is_one_error_line(tmp_path, capsys, small_limits):
    (tmp_path / "s.txt").write_text("x" * 5000, "utf-8")
    (tmp_path / "t.txt").write_text("y" * 5000, "utf-8")
    rc = main(["tm", "import", str(tmp_path / "s.txt"), "--target-file", str(tmp_path / "t.txt"),
               "--tm", str(tmp_path / "tm"), "--src-lang", "en", "--tgt-lang", "de"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "s.txt, line 1" in err and "Traceback" not in err


def _tmx(body: str, root: str = '<tmx version="1.4">') -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + root + '\n<header srclang="en" '
            'creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="t" adminlang="en" '
            'datatype="plaintext"/>\n<body>\n' + body + '</body>\n</tmx>\n')


def _tu(*pairs: tuple[str, str]) -> str:
    return "<tu>" + "".join(f'<tuv xml:lang="{lang}"><seg>{text}</seg></tuv>' for lang, text in pairs) + "</tu>\n"


def test_a_tmx_seg_over_the_limit_is_refused_with_its_line(tmp_path, small_limits):
    p = tmp_path / "big.tmx"
    p.write_text(_tmx(_tu(("en", "Hi"), ("de", "Hallo")) + "\n" + _tu(("en", "a " * 2000), ("de", "b"))), "utf-8")
    with pytest.raises(FormatError) as e:
        list(read_tmx(p))
    assert e.value.path == str(p) and e.value.location == "line 7" and "<seg>" in e.value.message


# ----------------------------------------------------------------- XML prolog
def test_a_doctype_with_entities_after_a_long_comment_is_refused_at_its_line(tmp_path):
    p = tmp_path / "late.xlf"
    p.write_text('<?xml version="1.0"?>\n<!--\n' + "padding line\n" * 10_000 + '-->\n'
                 '<!DOCTYPE xliff [\n<!ENTITY a "aaaa">\n]>\n'
                 '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                 '<file source-language="en" target-language="de"><body><trans-unit id="1">'
                 '<source>&a;</source></trans-unit></body></file></xliff>\n', "utf-8")
    with pytest.raises(UnsafeXMLError) as e:
        XLIFF12.read(p)
    assert e.value.location == "line 10004" and str(p) in str(e.value)


def test_entity_text_after_the_root_element_is_not_a_declaration(tmp_path):
    p = tmp_path / "ok.xlf"
    p.write_text('<?xml version="1.0"?>\n<!DOCTYPE xliff>\n'
                 '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                 '<file source-language="en" target-language="de"><body><trans-unit id="1">'
                 '<source>Write &lt;!ENTITY x&gt; here</source></trans-unit></body></file></xliff>\n', "utf-8")
    assert [s.source.text for s in XLIFF12.read(p).segments] == ["Write <!ENTITY x> here"]


# ------------------------------------------------------------------------ TMX
def test_a_tmx_in_the_lisa_namespace_is_read_like_any_other(tmp_path):
    p = tmp_path / "ns.tmx"
    p.write_text(_tmx(_tu(("en", 'Press <ph x="1">&lt;b&gt;</ph>OK'), ("de", 'Drücken Sie <ph x="1">&lt;b&gt;</ph>OK'))
                      + _tu(("en", "Bye"), ("de", "Tschüss")),
                      root='<tmx version="1.4" xmlns="http://www.lisa.org/tmx14">'), "utf-8")
    units = list(read_tmx(p, src_lang="en", tgt_lang="de"))
    assert [u.variants["de"].plain() for u in units] == ["Drücken Sie OK", "Tschüss"]
    assert units[0].variants["en"].tags[0].original == '<ph x="1">&lt;b&gt;</ph>'


def test_a_tmx_body_without_tu_elements_is_an_error_not_an_empty_memory(tmp_path):
    p = tmp_path / "odd.tmx"
    p.write_text(_tmx("<TU><tuv xml:lang=\"en\"><seg>Hi</seg></tuv></TU>\n"), "utf-8")
    with pytest.raises(FormatError) as e:
        list(read_tmx(p))
    assert e.value.location == "line 5" and "<TU>" in e.value.message


def test_a_many_language_tmx_without_a_pair_is_refused_once_naming_its_languages(tmp_path, capsys):
    p = tmp_path / "multi.tmx"
    p.write_text(_tmx("".join(_tu(("en", f"One {i}"), ("de", f"Eins {i}"), ("fr", f"Un {i}"))
                              for i in range(51))), "utf-8")
    rc = main(["tm", "import", str(p), "--tm", str(tmp_path / "tm")])
    captured = capsys.readouterr()
    assert rc == 2 and captured.out == ""
    assert captured.err.count("\n") == 1
    assert "multi.tmx" in captured.err and "de, en, fr" in captured.err
    assert "--src-lang and --tgt-lang" in captured.err
    assert not (tmp_path / "tm").exists()
    # with the pair it imports
    assert main(["tm", "import", str(p), "--tm", str(tmp_path / "tm"), "--src-lang", "en",
                 "--tgt-lang", "fr"]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 51


def test_a_quoted_csv_field_over_the_limit_is_refused_in_verso_words(tmp_path, monkeypatch):
    """A quoted field may span lines; past the string limit it is refused with the file and line,
    not with Python's csv wording of its 128 KiB default."""
    import csv

    from engine.formats import tabular, tabular_records

    monkeypatch.setattr(tabular_records, "MAX_STRING_CHARS", 2000)
    monkeypatch.setattr(textutil, "MAX_STRING_CHARS", 2000)
    body = "\n".join(["word " * 50] * 20)  # 20 lines of 250 characters: no line is long, the field is
    f = tmp_path / "long.csv"
    f.write_text(f'source,target\n"short","kurz"\n"{body}","x"\n', encoding="utf-8")
    with pytest.raises(FormatError) as e:
        tabular.FORMAT.read(f)
    msg = str(e.value)
    assert "long.csv" in msg and "line 3" in msg and "1 MiB" in msg and "field limit" not in msg
    csv.field_size_limit(2 ** 20)  # the module-wide bound the real limit sets


# --------------------------------------------------------- issue 35: XLSX glossaries
def _xlsx(path, rows, extra_strings: int = 0):
    """A workbook as Excel writes it: every text cell a reference into xl/sharedStrings.xml
    (openpyxl writes inline strings), with ``extra_strings`` more strings no cell uses."""
    from benchmarks.bounded_input import shared_strings_xlsx

    shared_strings_xlsx(path, rows, extra_strings)


def test_an_xlsx_with_more_shared_strings_than_the_limit_is_refused_before_openpyxl_reads_them(
        tmp_path, monkeypatch):
    from engine.glossary import formats as gformats, xlsx_read

    monkeypatch.setattr(xlsx_read, "MAX_XLSX_STRINGS", 20)
    p = tmp_path / "bomb.xlsx"
    _xlsx(p, [("en", "de"), ("file", "Datei")], extra_strings=19)
    loaded = []
    monkeypatch.setattr("openpyxl.load_workbook", lambda *a, **k: loaded.append(a))
    with pytest.raises(FormatError) as e:
        gformats.read_glossary_file(p, src_lang="en", tgt_lang="de")
    assert e.value.path == str(p) and "more than 20 strings" in e.value.message and not loaded


def test_an_xlsx_whose_parts_inflate_past_the_limit_is_refused(tmp_path, monkeypatch):
    from engine.glossary import formats as gformats, xlsx_read

    monkeypatch.setattr(xlsx_read, "MAX_XLSX_PART_BYTES", 2000)
    p = tmp_path / "wide.xlsx"
    _xlsx(p, [("en", "de")] + [("x" * 50, "y" * 50)] * 100)
    with pytest.raises(FormatError) as e:
        gformats.read_glossary_file(p, src_lang="en", tgt_lang="de")
    assert e.value.path == str(p) and "2000 bytes" in e.value.message and "xl/" in e.value.message


def test_an_xlsx_under_the_limits_still_reads(tmp_path):
    from engine.glossary.formats import read_glossary_file

    p = tmp_path / "ok.xlsx"
    _xlsx(p, [("en", "de"), ("file", "Datei"), ("save", "speichern")])
    assert [e.source for e in read_glossary_file(p, src_lang="en", tgt_lang="de").entries] == ["file", "save"]
