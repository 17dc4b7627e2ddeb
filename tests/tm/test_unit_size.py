"""A TM unit is bounded (issue 45, item 4): one over engine.tm.limits.MAX_CHARS characters a side is
refused at import with a word, and one a received TM already holds is left out of the index, the
matches, the TM editor and the export -- counted, and never read whole into memory."""
import json
import shutil
import sqlite3
import tracemalloc

from engine.cli import main
from engine.inline import TaggedText
from engine.tm import units as tm_units
from engine.tm.limits import MAX_CHARS
from engine.tm.memory import TranslationMemory

HUGE = "word " * 1_000_000  # 5 MB of text: the first search took 73 s and 422 MiB


def test_an_import_refuses_a_unit_over_the_limit_with_a_word(tmp_path, capsys):
    (tmp_path / "s.txt").write_text("Open the file\n" + "x" * (MAX_CHARS + 1) + "\nClose it\n", "utf-8")
    (tmp_path / "t.txt").write_text("Datei öffnen\nY\nSchließen\n", "utf-8")
    assert main(["tm", "import", str(tmp_path / "s.txt"), "--target-file", str(tmp_path / "t.txt"),
                 "--tm", str(tmp_path / "tm"), "--src-lang", "en", "--tgt-lang", "de"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["added"] == 2 and out["skipped"] == 1
    assert any("unit 2" in e and f"{MAX_CHARS:,}" in e for e in out["errors"])


def _received_with_a_huge_unit(tmp_path):
    folder = tmp_path / "tm"
    with TranslationMemory(folder, src_lang="en", tgt_lang="de") as tm:
        for i in range(50):
            tm.add(f"The word number {i} is here", f"Das Wort Nummer {i} ist hier")
        enc = tm.conn.execute("SELECT enc FROM units LIMIT 1").fetchone()[0]
    conn = sqlite3.connect(folder / TranslationMemory.DB_NAME)  # as another tool wrote it
    conn.execute("INSERT INTO units(source, target, src_lang, tgt_lang, enc, senc, penc, dkey) "
                 "VALUES (?, 'Riesig', 'en', 'de', ?, '', '', 'huge')", (HUGE, enc[0] * 1_000_000))
    conn.commit()
    conn.close()
    shutil.rmtree(folder / "index")  # received: its index is rebuilt here
    return folder


def test_a_received_huge_unit_is_left_out_of_every_read_and_counted(tmp_path, capsys):
    folder = _received_with_a_huge_unit(tmp_path)
    tracemalloc.start()
    try:
        with TranslationMemory(folder) as tm:
            matches = tm.search("word word word word", k=5)
            hits = tm.concordance("word")
            entries = list(tm.entries())
            page = tm_units.page(tm, tm_units.UnitFilter(), limit=100)
            stats = tm.stats()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert all(len(m.entry.source.text) < 100 for m in matches)
    assert all(len(h.entry.source.text) < 100 for h in hits)
    assert len(entries) == 50 and len(page.entries) == 50
    assert stats["units"] == 51 and stats["oversized"] == 1
    assert peak < 3_000_000  # the 5 MB unit never reached Python
    out = tmp_path / "x.tmx"
    assert main(["tm", "export", "--tm", str(folder), "--out", str(out)]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["exported"] == 50 and json.loads(cap.out)["oversized_skipped"] == 1
    assert len(cap.err.strip().splitlines()) == 1 and "1 unit" in cap.err
    assert out.stat().st_size < 100_000


def test_adding_a_unit_over_the_limit_is_one_line(tmp_path):
    import pytest

    from engine.errors import TMError

    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        with pytest.raises(TMError) as e:
            tm.add(TaggedText("y" * (MAX_CHARS + 1)), "Z")
        assert "\n" not in str(e.value) and len(tm) == 0


def test_the_background_build_and_the_scan_meanwhile_leave_a_huge_unit_out(tmp_path, monkeypatch):
    from engine.tm import memory as memory_mod

    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 10)  # the large-TM path: build process, scan
    folder = _received_with_a_huge_unit(tmp_path)
    with TranslationMemory(folder) as tm:
        assert tm.rebuilding is not None
        during = tm.search("word word word word", k=60)
        assert tm.wait_for_index(60)
        after = tm.search("word word word word", k=60)
        assert not tm.last_search.get("scan")
    assert during and after
    assert all(len(m.entry.source.text) < 100 for m in during + after)
