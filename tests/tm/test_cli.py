"""`verso tm ...`: the JSON contract and error behaviour."""
import json

import pytest

from engine.cli import main
from datafiles import data_file


@pytest.fixture
def tmdir(tmp_path, capsys, make_tm):
    """A TM of each backend (a folder, a postgresql:// URL) imported by the command line."""
    ref = make_tm.ref("tm")
    (tmp_path / "s.txt").write_text("Save the file\nOpen the file\nClose the window\n\n", "utf-8")
    (tmp_path / "t.txt").write_text("Datei speichern\nDatei öffnen\nFenster schließen\n\n", "utf-8")
    rc = main(["tm", "import", str(tmp_path / "s.txt"), "--target-file", str(tmp_path / "t.txt"),
               "--tm", str(ref), "--src-lang", "en", "--tgt-lang", "de"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["added"] == 3 and isinstance(out["skipped"], int) and isinstance(out["errors"], list)
    return ref


def test_search_json(tmdir, capsys):
    assert main(["tm", "search", "--tm", str(tmdir), "--json", "Save the files"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res[0]["source"] == "Save the file" and res[0]["target"] == "Datei speichern"
    assert res[0]["score"] == pytest.approx(2 / 3, abs=1e-3)
    assert all(r["score"] >= 0.3 for r in res)
    assert main(["tm", "search", "--tm", str(tmdir), "--k", "1", "--min-score", "0", "--json",
                 "Open the file"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert len(res) == 1 and res[0]["score"] == 1.0


def test_search_queries_file_one_json_line_each(tmdir, tmp_path, capsys):
    (tmp_path / "q.txt").write_text("Save a file\n\nClose the windows\n", "utf-8")
    assert main(["tm", "search", "--tm", str(tmdir), "--queries", str(tmp_path / "q.txt"),
                 "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["query"] for x in lines] == ["Save a file", "", "Close the windows"]
    assert lines[1]["matches"] == []
    assert lines[2]["matches"][0]["source"] == "Close the window"
    assert all(isinstance(x["ms"], float) for x in lines)


def test_concordance_stats_export(tmdir, tmp_path, capsys):
    assert main(["tm", "concordance", "--tm", str(tmdir), "--side", "target", "--json", "datei"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert {h["target"] for h in hits} == {"Datei speichern", "Datei öffnen"}
    assert hits[0]["spans"] == [[0, 5]]
    assert main(["tm", "stats", "--tm", str(tmdir)]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["units"] == 3 and st["src_lang"] == "en" and st["tgt_lang"] == "de"
    out = tmp_path / "x.tmx"
    assert main(["tm", "export", "--tm", str(tmdir), "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["exported"] == 3
    assert main(["tm", "import", str(out), "--tm", str(tmp_path / "tm2")]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 3


def test_errors_are_one_line_without_traceback(tmp_path, capsys):
    assert main(["tm", "stats", "--tm", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verso: error:") and "Traceback" not in err and err.count("\n") == 1
    assert main(["tm", "import", str(tmp_path / "missing.tmx"), "--tm", str(tmp_path / "tm")]) == 2
    err = capsys.readouterr().err
    assert "missing.tmx" in err and "Traceback" not in err
    assert not (tmp_path / "tm").exists()  # a refused file leaves no TM behind
    (tmp_path / "bad.tmx").write_text('<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/>'
                                      '<body><tu><tuv xml:lang="en"><seg>Hi</seg></tuv>'
                                      '<tuv xml:lang="de"><seg>Hallo</seg></tuv></tu><tu><tuv',
                                      "utf-8")
    rc = main(["tm", "import", str(tmp_path / "bad.tmx"), "--tm", str(tmp_path / "tm3"),
               "--src-lang", "en", "--tgt-lang", "de"])
    err = capsys.readouterr().err
    assert rc == 2 and "bad.tmx" in err
    # refused as a whole: the unit before the break was not kept, and no empty TM was left
    assert not (tmp_path / "tm3").exists()
    assert main(["tm", "stats", "--tm", str(tmp_path / "tm3")]) == 2
    capsys.readouterr()


def test_refused_import_keeps_an_existing_tm_and_foreign_files(tmdir, tmp_path, capsys):
    bad = tmp_path / "bad.tmx"
    bad.write_text('<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/><body><tu>',
                   "utf-8")
    # into an existing TM: refused as a whole, the TM is kept as it was
    assert main(["tm", "import", str(bad), "--tm", str(tmdir), "--src-lang", "en",
                 "--tgt-lang", "de"]) == 2
    capsys.readouterr()
    assert main(["tm", "stats", "--tm", str(tmdir)]) == 0
    assert json.loads(capsys.readouterr().out)["units"] == 3
    # into an existing folder that held no TM: only the TM's own files go
    other = tmp_path / "notes"
    other.mkdir()
    (other / "readme.txt").write_text("keep me", "utf-8")
    assert main(["tm", "import", str(bad), "--tm", str(other), "--src-lang", "en",
                 "--tgt-lang", "de"]) == 2
    capsys.readouterr()
    assert sorted(p.name for p in other.iterdir()) == ["readme.txt"]


def test_search_and_concordance_keep_the_language_pair(tmp_path, capsys):
    (tmp_path / "en.txt").write_text("Save the file\nOpen the file\n", "utf-8")
    (tmp_path / "de.txt").write_text("Datei speichern\nDatei öffnen\n", "utf-8")
    (tmp_path / "fr.txt").write_text("Enregistrer le fichier\nOuvrir le fichier\n", "utf-8")
    tm = str(tmp_path / "tm")
    for tgt, lang in (("de.txt", "de"), ("fr.txt", "fr")):
        assert main(["tm", "import", str(tmp_path / "en.txt"), "--target-file",
                     str(tmp_path / tgt), "--tm", tm, "--src-lang", "en", "--tgt-lang", lang]) == 0
        capsys.readouterr()
    # default: the TM's own pair (en -> de, from the first import)
    assert main(["tm", "search", "--tm", tm, "--json", "Save the file"]) == 0
    assert [m["target"] for m in json.loads(capsys.readouterr().out)] == ["Datei speichern",
                                                                           "Datei öffnen"]
    assert main(["tm", "search", "--tm", tm, "--json", "--tgt-lang", "fr-FR", "Save the file"]) == 0
    assert [m["target"] for m in json.loads(capsys.readouterr().out)] == [
        "Enregistrer le fichier", "Ouvrir le fichier"]
    assert main(["tm", "search", "--tm", tm, "--json", "--tgt-lang", "*", "--k", "10",
                 "Save the file"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 4
    assert main(["tm", "concordance", "--tm", tm, "--json", "--tgt-lang", "fr", "file"]) == 0
    assert {h["target"] for h in json.loads(capsys.readouterr().out)} == {
        "Enregistrer le fichier", "Ouvrir le fichier"}


def test_magento_csv_import_and_placeholder_search(tmp_path, capsys):
    csv = data_file("magento2-de", "de_DE.csv")
    assert main(["tm", "import", str(csv), "--tm", str(tmp_path / "tm"), "--src-lang", "en",
                 "--tgt-lang", "de"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["added"] > 10_000
    assert main(["tm", "search", "--tm", str(tmp_path / "tm"), "--json", "--k", "3",
                 "We can't find a product with ID %1."]) == 0
    ms = json.loads(capsys.readouterr().out)
    assert ms and ms[0]["score"] >= 0.5


def test_a_file_broken_half_way_into_a_new_tm_leaves_no_tm_behind(make_tm, tmp_path, capsys):
    """Both backends: the import of a new TM (a folder; a postgresql:// URL with a new tm
    name) that breaks half way is refused in one line naming the file and the place, and
    no TM -- not even an empty one -- is left."""
    from engine.tm import open_tm
    from engine.errors import TMError

    ref = make_tm.ref("fresh")
    units = "".join(f'<tu><tuv xml:lang="en"><seg>Unit {i}</seg></tuv><tuv xml:lang="de"><seg>Einheit {i}</seg>'
                    "</tuv></tu>\n" for i in range(300))
    bad = tmp_path / "half.tmx"
    bad.write_text('<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/><body>\n' + units
                   + '<tu><tuv xml:lang="en"><seg>Broken</seg></tuv><tuv xml:lang="de"><seg>Kaputt</tuv></tu>\n'
                   + "</body></tmx>\n", "utf-8")
    rc = main(["tm", "import", str(bad), "--tm", str(ref), "--src-lang", "en", "--tgt-lang", "de"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "half.tmx" in err and "line 303" in err
    assert main(["tm", "stats", "--tm", str(ref)]) == 2  # no TM of that name
    capsys.readouterr()
    with pytest.raises(TMError):
        open_tm(ref, create=False)
