"""Statistics: word counts and match bands as a translator is billed."""
import csv
import io

from engine.inline import protect
from engine.stats import analyse, band_of, to_csv, word_count


def test_word_count_ignores_tags_and_counts_cjk_characters():
    assert word_count(protect("Click <b>Save</b> now, it's done.").text) == 5
    assert word_count("Öffnen Sie die E-Mail-Einstellungen.") == 4
    assert word_count("打开文件") == 4
    assert word_count("") == 0


def test_bands_edges():
    assert band_of(1.0) == "100%"
    assert band_of(0.99) == "95-99%"
    assert band_of(0.95) == "95-99%"
    assert band_of(0.8) == "75-84%"
    assert band_of(0.5) == "50-74%"
    assert band_of(0.49) == "no match"
    assert band_of(None) == "no match"


def test_repetitions_across_documents_and_csv():
    scores = {"Open the file.": 1.0, "Close the window.": 0.9}
    docs = [("a.txt", ["Open the file.", "Close the window.", "Open  the file."]),
            ("b.txt", ["Close the window.", "Something new here."])]
    a, b = analyse(docs, lambda s: scores.get(" ".join(s.split())))
    assert a.rows["100%"] == {"segments": 1, "words": 3}
    assert a.rows["85-94%"]["segments"] == 1
    assert a.rows["repetitions"]["segments"] == 1
    assert b.rows["repetitions"]["segments"] == 1 and b.rows["no match"]["words"] == 3
    rows = list(csv.reader(io.StringIO(to_csv([a, b]))))
    assert rows[0] == ["document", "band", "segments", "words"]
    assert ["a.txt", "total", "3", "9"] in rows
