"""`verso tm import X.sdltm`: a Trados Studio TM read safely, its fields and dates kept for export."""
from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from lxml import etree

from engine.cli import main
from engine.errors import FormatError
from engine.formats.sdltm import read_sdltm

sys.path.insert(0, str(Path(__file__).parent))
from trados import segment_xml, write_sdltm  # noqa: E402

UNITS = [(("Click ", ("Start", 1), "Save", ("End", 1), "."), ("Klicken Sie auf ", ("Start", 1), "Speichern",
                                                               ("End", 1), ".")),
         ("Open the file.", "Öffnen Sie die Datei."), ("Close the window.", "Schließen Sie das Fenster.")]


def _import(tmp_path, capsys, sdltm: Path, *extra) -> tuple[int, dict, str]:
    rc = main(["tm", "import", str(sdltm), "--tm", str(tmp_path / "tm"), *extra])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if out.strip() else {}), err


def test_sdltm_imports_with_its_pair_tags_fields_and_dates_and_exports_them_as_trados_tmx(tmp_path, capsys):
    sdltm = write_sdltm(tmp_path / "Client.sdltm", UNITS)
    rc, res, _ = _import(tmp_path, capsys, sdltm)
    assert rc == 0 and res["added"] == 3
    assert main(["tm", "search", "--tm", str(tmp_path / "tm"), "--json", "Open the file."]) == 0
    hit = json.loads(capsys.readouterr().out)[0]
    assert hit["target"] == "Öffnen Sie die Datei." and hit["score"] == 1.0
    out = tmp_path / "back.tmx"
    assert main(["tm", "export", "--tm", str(tmp_path / "tm"), "--out", str(out)]) == 0
    root = etree.parse(str(out)).getroot()
    assert root.get("version") == "1.4" and root.find("header").get("srclang").lower() == "en-us"
    tus = root.find("body").findall("tu")
    first = next(tu for tu in tus if "Click" in "".join(tu.find("tuv").itertext()))
    assert first.get("creationdate") == "20230201T101112Z" and first.get("changeid") == "AGENCY\\ben"
    props = {p.get("type"): p.text for p in first.iter("prop")}
    assert props == {"x-Client": "Acme", "x-Domain": "Legal", "x-Reviewed": "20230506T070809Z"}
    seg = first.findall("tuv")[1].find("seg")
    assert [c.tag for c in seg] == ["bpt", "ept"] and seg[0].get("i") == seg[1].get("i") == "1"


def test_sdltm_of_another_pair_is_refused_naming_both(tmp_path, capsys):
    sdltm = write_sdltm(tmp_path / "fr.sdltm", UNITS, tgt="fr-FR")
    rc, _, err = _import(tmp_path, capsys, sdltm, "--src-lang", "en", "--tgt-lang", "de")
    assert rc == 2 and "fr.sdltm" in err and "fr" in err.lower() and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("sql, word", [
    ("CREATE TRIGGER t AFTER INSERT ON parameters BEGIN DELETE FROM translation_units; END;", "trigger"),
    ("CREATE VIEW v AS SELECT * FROM translation_units;", "view"),
    ("CREATE TABLE loot (x);", "loot"),
    ("CREATE INDEX ix ON translation_units (lower(source_segment));", "expression"),
])
def test_sdltm_holding_sql_of_its_own_is_refused_in_one_line_and_left_unchanged(tmp_path, capsys, sql, word):
    sdltm = write_sdltm(tmp_path / "bad.sdltm", UNITS, extra_sql=sql)
    before = sdltm.read_bytes()
    rc, _, err = _import(tmp_path, capsys, sdltm)
    assert rc == 2 and "bad.sdltm" in err and word in err and len(err.strip().splitlines()) == 1
    assert sdltm.read_bytes() == before and not (tmp_path / "tm").exists()


def test_oversized_sdltm_segment_is_skipped_unread_with_a_word(tmp_path):
    sdltm = write_sdltm(tmp_path / "big.sdltm", UNITS)
    conn = sqlite3.connect(sdltm)
    conn.execute("UPDATE translation_units SET source_segment = ? WHERE id = 2",
                 (segment_xml("en-US", "x" * (2 << 20)),))
    conn.commit()
    conn.close()
    problems: list[str] = []
    units = list(read_sdltm(sdltm, problems=problems))
    assert len(units) == 2 and len(problems) == 1 and "unit 2" in problems[0]


def test_a_file_that_is_not_sqlite_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "fake.sdltm"
    bad.write_text("<tmx/>", "utf-8")
    with pytest.raises(FormatError, match="fake.sdltm.*not a Trados Studio TM"):
        list(read_sdltm(bad))
