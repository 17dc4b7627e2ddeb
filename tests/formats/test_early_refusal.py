"""Issue 45, item 5: a file with more units than Verso imports is refused before it is parsed, in
one line naming the file, the line where the count passed the limit, the number and the limit;
a file at the limit still reads.  The limit is monkeypatched small so that the files stay small."""
from __future__ import annotations

import pytest

from engine.cli import main
from engine.errors import FormatError
from engine.formats import read_document, textutil
from engine.formats.strings_registry import FORMATS

LIMIT = 40


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(textutil, "MAX_SEGMENTS", LIMIT)


def _srt(n: int) -> str:
    return "".join(f"{i}\n00:00:{i % 60:02d},000 --> 00:00:{i % 60:02d},500\nLine number {i}.\n\n"
                   for i in range(1, n + 1))


def _props(n: int) -> str:
    return "# a comment\n\n" + "".join(f"key{i} = Value number {i} \\\n    continued\n" for i in range(n))


def _json(n: int) -> str:
    return "{\n" + ",\n".join(f'  "k{i}": "Value \\"number\\" {i}"' for i in range(n)) + "\n}\n"


def _yaml(n: int) -> str:
    return "en:\n" + "".join(f"  k{i}: Value number {i}\n" for i in range(n))


def _android(n: int) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
            + "".join(f'  <string name="k{i}">Value {i}</string>\n' for i in range(n)) + "</resources>\n")


def _resx(n: int) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<root>\n'
            + "".join(f'  <data name="k{i}" xml:space="preserve"><value>Value {i}</value></data>\n'
                      for i in range(n)) + "</root>\n")


def _strings(n: int) -> str:
    return "".join(f'/* note */\n"k{i}" = "Value {i}";\n' for i in range(n))


def _ts(n: int) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="de">\n'
            '<context><name>Main</name>\n'
            + "".join(f'<message><source>Value {i}</source><translation type="unfinished"/></message>\n'
                      for i in range(n)) + "</context>\n</TS>\n")


# name, builder, lines before the first unit, lines per unit, line of a unit that is counted, what
CASES = [
    ("subs.srt", _srt, 0, 4, 2, "cues"),
    ("app.properties", _props, 2, 2, 1, "strings"),
    ("en.json", _json, 1, 1, 1, "strings"),
    ("en.yml", _yaml, 1, 1, 1, "strings"),
    ("strings.xml", _android, 2, 1, 1, "strings"),
    ("app.resx", _resx, 2, 1, 1, "strings"),
    ("Localizable.strings", _strings, 0, 2, 2, "strings"),
    ("app.ts", _ts, 4, 1, 1, "strings"),
]


@pytest.mark.parametrize("name,build,head,per,first,what", CASES, ids=[c[0] for c in CASES])
def test_a_file_of_more_strings_than_the_limit_is_refused_before_it_is_parsed(
        tmp_path, monkeypatch, small_limit, name, build, head, per, first, what):
    p = tmp_path / name
    p.write_text(build(LIMIT + 25), "utf-8")
    parsed = []
    for fmt in FORMATS:
        monkeypatch.setattr(fmt, "parse", lambda *a: parsed.append(a), raising=False)
    monkeypatch.setattr("engine.formats.subtitles.protect_cue", lambda *a: parsed.append(a))
    with pytest.raises(FormatError) as e:
        read_document(p, src_lang="en", tgt_lang="de")
    err = str(e.value)
    assert err == (f"{p}, line {head + LIMIT * per + first}: "
                   f"{LIMIT + 25} {what}: more than the {LIMIT} Verso imports as one document; split it")
    assert not parsed


@pytest.mark.parametrize("name,build,head,per,first,what", CASES, ids=[c[0] for c in CASES])
def test_a_file_at_the_limit_still_reads(tmp_path, small_limit, name, build, head, per, first, what):
    p = tmp_path / name
    p.write_text(build(LIMIT), "utf-8")
    assert len(read_document(p, src_lang="en", tgt_lang="de").segments) == LIMIT


def test_doc_import_of_a_huge_subtitle_file_is_one_error_line(tmp_path, capsys, small_limit):
    p = tmp_path / "film.srt"
    p.write_text(_srt(1000), "utf-8")
    rc = main(["doc", "import", str(p), "--project", str(tmp_path / "p"), "--src-lang", "en", "--tgt-lang", "de"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "film.srt, line 162" in err
    assert "1,000 cues: more than the 40" in err and "Traceback" not in err


# ------------------------------------------------------------------------ HTML
def test_a_paragraph_of_deeply_nested_inline_tags_is_refused_at_its_line(tmp_path, monkeypatch):
    from engine.formats import html_scan

    monkeypatch.setattr(html_scan, "MAX_INLINE_DEPTH", 30)
    p = tmp_path / "nest.html"
    p.write_text("<html><body>\n<p>Fine <b><i>words</i></b>.</p>\n<p>" + "<span>" * 31 + "deep"
                 + "</span>" * 31 + "</p>\n</body></html>\n", "utf-8")
    with pytest.raises(FormatError) as e:
        read_document(p, src_lang="en")
    assert str(e.value) == (f"{p}, line 3: inline elements nested more than 30 deep in one paragraph: "
                            "not a page Verso translates")


def test_inline_tags_closed_before_the_next_paragraph_do_not_add_up(tmp_path, monkeypatch):
    from engine.formats import html_scan

    monkeypatch.setattr(html_scan, "MAX_INLINE_DEPTH", 30)
    p = tmp_path / "ok.html"
    paras = "".join("<p>" + "<span>" * 20 + f"Para {i}." + "</span>" * 20 + "</p>\n" for i in range(5))
    unclosed = "".join(f"<p><font>Old {i}.</p>\n" for i in range(40))  # never closed: each block starts afresh
    p.write_text("<html><body>\n" + paras + unclosed + "</body></html>\n", "utf-8")
    assert len(read_document(p, src_lang="en").segments) == 45


def test_an_html_file_of_more_tags_than_the_limit_is_refused_before_it_is_tokenized(tmp_path, monkeypatch):
    from engine.formats import html, html_scan

    monkeypatch.setattr(html, "MAX_TAGS", 200)
    monkeypatch.setattr(html_scan.Scanner, "feed", lambda *a: pytest.fail("tokenized"))
    p = tmp_path / "tags.html"
    p.write_text("<html><body>\n" + "".join(f"<p>Item <b>{i}</b>.</p>\n" for i in range(60)) + "</body></html>\n",
                 "utf-8")
    with pytest.raises(FormatError) as e:
        read_document(p, src_lang="en")
    assert str(e.value) == f"{p}, line 51: 244 tags: more than the 200 Verso imports as one document; split it"


# ------------------------------------------------------------------ TM import
def _tmx_file(path, n: int) -> None:
    tus = "".join(f'<tu><tuv xml:lang="en"><seg>Unit {i}</seg></tuv><tuv xml:lang="de"><seg>Einheit {i}</seg>'
                  "</tuv></tu>\n" for i in range(n))
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" '
                    'creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="t" adminlang="en" '
                    f'datatype="plaintext"/><body>\n{tus}</body></tmx>\n', "utf-8")


def test_a_long_tm_import_prints_units_read_and_their_rate_on_stderr(tmp_path, capsys, monkeypatch):
    import re

    from engine.cli import tm as tm_cli

    _tmx_file(tmp_path / "big.tmx", 600)
    monkeypatch.setattr(tm_cli, "PROGRESS_EVERY_S", 0.0)
    rc = main(["tm", "import", str(tmp_path / "big.tmx"), "--tm", str(tmp_path / "tm"),
               "--src-lang", "en", "--tgt-lang", "de"])
    out = capsys.readouterr()
    assert rc == 0 and '"added": 600' in out.out
    lines = [ln for ln in out.err.splitlines() if "units read" in ln]
    assert [re.sub(r"\(.*\)", "()", ln) for ln in lines] == ["verso: big.tmx: 256 units read ()",
                                                             "verso: big.tmx: 512 units read ()"]
    assert all(re.search(r"\([\d,]+ a second\)$", ln) for ln in lines)


def test_a_short_tm_import_prints_no_progress(tmp_path, capsys):
    _tmx_file(tmp_path / "small.tmx", 600)
    assert main(["tm", "import", str(tmp_path / "small.tmx"), "--tm", str(tmp_path / "tm"),
                 "--src-lang", "en", "--tgt-lang", "de"]) == 0
    assert "units read" not in capsys.readouterr().err
