"""`verso tm search` and `concordance` read a query's markup as `verso tm import` stored it."""
import json

from engine.cli import main

LINE = "Click <guibutton>Next</guibutton> to install &kappname;."


def _tm(tmp_path, capsys):
    (tmp_path / "s.txt").write_text(LINE + "\nOpen the <filename>config</filename> file.\n", "utf-8")
    (tmp_path / "t.txt").write_text("Klicken Sie auf <guibutton>Weiter</guibutton>, um &kappname; zu installieren.\n"
                                    "Öffnen Sie die Datei <filename>config</filename>.\n", "utf-8")
    assert main(["tm", "import", str(tmp_path / "s.txt"), "--target-file", str(tmp_path / "t.txt"),
                 "--tm", str(tmp_path / "tm"), "--src-lang", "en", "--tgt-lang", "de"]) == 0
    capsys.readouterr()
    return str(tmp_path / "tm")


def test_a_query_with_markup_finds_its_100_percent_match(tmp_path, capsys):
    tm = _tm(tmp_path, capsys)
    assert main(["tm", "search", "--tm", tm, "--json", "--k", "1", LINE]) == 0
    best = json.loads(capsys.readouterr().out)[0]
    assert best["score"] == 1.0
    assert best["target_display"].startswith("Klicken Sie auf <guibutton>Weiter</guibutton>")
    # Read raw (the old behaviour) the markup is words, and the match is not 100 %.
    assert main(["tm", "search", "--tm", tm, "--json", "--k", "1", "--markup", "none", LINE]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert not raw or raw[0]["score"] < 1.0


def test_queries_file_lines_with_markup_match_as_without(tmp_path, capsys):
    tm = _tm(tmp_path, capsys)
    (tmp_path / "q.txt").write_text(LINE + "\nOpen the <filename>config</filename> file.\n", "utf-8")
    assert main(["tm", "search", "--tm", tm, "--queries", str(tmp_path / "q.txt"), "--json", "--k", "1"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["matches"][0]["score"] for x in lines] == [1.0, 1.0]


def test_concordance_of_a_phrase_typed_with_its_tag(tmp_path, capsys):
    tm = _tm(tmp_path, capsys)
    assert main(["tm", "concordance", "--tm", tm, "--json", "Next</guibutton>"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 1 and "Next" in hits[0]["source"]
