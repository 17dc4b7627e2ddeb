"""Statistics: word counts and match bands as a translator is billed."""
import csv
import io

import pytest

from engine.inline import protect
from engine.stats import Count, analyse, band_of, to_csv, word_count


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
    assert a.rows["100%"] == Count(1, 3)
    assert a.rows["85-94%"].segments == 1
    assert a.rows["repetitions"].segments == 1
    assert b.rows["repetitions"].segments == 1 and b.rows["no match"].words == 3
    rows = list(csv.reader(io.StringIO(to_csv([a, b]))))
    assert rows[0] == ["document", "band", "segments", "words"]
    assert ["a.txt", "total", "3", "9"] in rows


def _tm_with_doc(tmp_path):
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.store import Project

    original = tmp_path / "doc.txt"
    original.write_text("Open the blue album now.\n\nClose the red door.", encoding="utf-8")
    segs = [ParsedSegment("k0", protect("Open the blue album now.")), ParsedSegment("k1", protect("Close the red door."))]
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="de")
    p.import_parsed(ParsedDocument(original.name, "txt", "en", "de", segs), original)
    return p


def test_a_unit_imported_after_the_document_is_not_own_work_once_confirmed(tmp_path):
    """Issue 36 item 10: a TMX imported after the document, whose 100 % match the translator
    inserted and confirmed, stays a 100 % match in the analysis: the confirm merged into the
    imported unit (stamping it with the project), but the unit did not come from this project."""
    import time

    from engine.stats import is_own_work
    from engine.tm import TranslationMemory
    from engine.tmsync import add_to_tm

    p = _tm_with_doc(tmp_path)
    doc = p.documents()[0]
    time.sleep(0.01)
    meta = {"origin": p.name, "creator": "translator", "document": doc.name, "project": p.tm_key}
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many([("Open the blue album now.", "Öffnen Sie jetzt das blaue Album.")], origin="client.tmx")
        add_to_tm(tm, protect("Open the blue album now."), protect("Öffnen Sie jetzt das blaue Album."), meta)
        add_to_tm(tm, protect("Close the red door."), protect("Schließen Sie die rote Tür."), meta)
        entries = {e.source.text: e for e in tm.entries()}
    own = {s: is_own_work(e.meta, (p.tm_key,), doc.imported_at, p.name) for s, e in entries.items()}
    assert own == {"Open the blue album now.": False, "Close the red door.": True}
    p.close()


def test_locked_segments_are_counted_apart_and_not_in_the_words_to_translate():
    from engine.stats import Counted, progress

    looked_up = []

    def best(src):
        looked_up.append(src)
        return 1.0 if src == "Open the file." else None

    docs = [("a.txt", [Counted("Open the file.", "confirmed", locked=True), Counted("Open the file."),
                       Counted("Close the big window.", "draft"), Counted("Save it.", "new", locked=True)])]
    (a,) = analyse(docs, best)
    assert a.rows["locked"] == Count(2, 5)
    assert a.rows["100%"] == Count(1, 3)     # not a repetition of the locked one
    assert a.rows["repetitions"].segments == 0
    assert a.total == Count(4, 12) and a.to_translate == Count(2, 7)
    assert a.to_json()["rows"]["locked"] == {"segments": 2, "words": 5}   # the JSON keeps its shape
    assert a.to_json()["to_translate"] == {"segments": 2, "words": 7}
    assert "Save it." not in looked_up                       # a locked segment needs no TM lookup
    (p,) = progress(docs)
    assert p.rows["locked"] == Count(2, 5)
    assert p.rows["confirmed"].segments == 0 and p.rows["new"].segments == 1
    assert p.rows["draft"] == Count(1, 4)
    assert p.to_translate == Count(2, 7)
    rows = list(csv.reader(io.StringIO(to_csv([a]))))
    assert ["a.txt", "locked", "2", "5"] in rows and ["a.txt", "to translate", "2", "7"] in rows


def test_the_statistics_dialog_shows_a_locked_row_and_the_words_to_translate(qtbot, tmp_path):
    pytest.importorskip("PySide6")
    from app.dialogs.stats import StatisticsDialog
    from engine.store.locks import SegmentLocks

    p = _tm_with_doc(tmp_path)
    segs = p.segments(p.documents()[0].id)
    SegmentLocks(p).lock([segs[1].id])                      # "Close the red door." (4 words)
    dlg = StatisticsDialog(None, p, None)
    qtbot.addWidget(dlg)
    table = dlg.progress_table
    heads = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    assert heads[-3:] == ["locked", "total", "to translate"]
    assert table.item(heads.index("locked"), 1).text() == "4"
    assert table.item(heads.index("to translate"), 1).text() == "5"
    a = dlg.analyses[0]
    assert a.rows["locked"].segments == 1 and a.rows["no match"].segments == 1
    assert "5 words to translate (4 locked words left out)" in dlg.info.text()
    p.close()
