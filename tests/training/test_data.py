"""The data a model is trained on: gathered from TMs, TM files and line-aligned
corpora, deduplicated, and split by whole documents."""
from __future__ import annotations

import pytest

from engine.errors import ConfigError, FormatError
from engine.training.data import Corpus, Pair, gather, held_aside_sizes, split_by_documents


def test_a_corpus_with_document_ids_is_split_by_whole_documents(pair_corpus):
    got = gather([Corpus(str(pair_corpus["train_de"]), str(pair_corpus["train_en"]),
                         str(pair_corpus["train_doc"]))], "de", "en")
    assert got.duplicates > 0 and len(got.pairs) + got.duplicates == 400
    split = split_by_documents(got.pairs, dev=20, test=20, seed=1)
    docs = {name: {p.doc for p in getattr(split, name)} for name in ("train", "dev", "test")}
    assert docs["dev"] and docs["test"] and docs["train"]
    assert not docs["train"] & docs["dev"] and not docs["train"] & docs["test"] and not docs["dev"] & docs["test"]
    assert all(d.endswith(tuple(f"manual-{i}" for i in range(20))) for d in docs["test"])
    assert len(split.train) + len(split.dev) + len(split.test) == len(got.pairs)
    assert split_by_documents(got.pairs, dev=20, test=20, seed=1) == split  # deterministic


def test_tm_units_keep_the_document_the_editor_wrote_and_others_fall_into_blocks(tmp_path):
    from engine.tm import TranslationMemory

    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="fr") as tm:
        for i in range(30):
            tm.add(f"Sentence {i} of the guide.", f"Phrase {i} du guide.", meta={"document": "guide.docx"})
        for i in range(30):
            tm.add(f"Line {i} without a document.", f"Ligne {i} sans document.")
        tm.add("Close the window.", "Fermez la fenêtre.", meta={"document": "guide.docx"})
    got = gather([Corpus(str(tmp_path / "tm"), tm=True)], "en", "fr")
    docs = {p.source: p.doc for p in got.pairs}
    assert docs["Sentence 0 of the guide."] == docs["Close the window."] == "0:guide.docx"
    blocks = {d for s, d in docs.items() if s.startswith("Line")}
    assert len(blocks) > 1  # contiguous blocks stand for the unnamed documents
    # the TM read the other way round serves the reverse pair
    rev = gather([Corpus(str(tmp_path / "tm"), tm=True)], "fr", "en")
    assert rev.pairs[0].source.startswith("Phrase")


def test_empty_sides_misalignments_and_duplicates_are_left_out(tmp_path):
    src, tgt = tmp_path / "a.en", tmp_path / "a.fr"
    src.write_text("Hello.\n\nA short sentence here.\n" + "x " * 10 + "word\nHello.\n", encoding="utf-8")
    tgt.write_text("Bonjour.\nVide.\nUne phrase courte mais beaucoup, beaucoup trop longue pour en être "
                   "la traduction fidèle.\nmot\nBonjour.\n", encoding="utf-8")
    got = gather([Corpus(str(src), str(tgt))], "en", "fr")
    assert [p.source for p in got.pairs] == ["Hello.", "x x x x x x x x x x word"]
    assert got.duplicates == 1 and got.filtered == 2


def test_line_aligned_files_of_different_lengths_or_encodings_name_the_file(tmp_path):
    src, tgt = tmp_path / "a.en", tmp_path / "a.fr"
    src.write_text("One.\nTwo.\nThree.\n", encoding="utf-8")
    tgt.write_text("Un.\nDeux.\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"a\.fr.*has 2 lines"):
        gather([Corpus(str(src), str(tgt))], "en", "fr")
    tgt.write_bytes("Un.\nDeux.\nTrois \xe9.\n".encode("latin-1"))
    with pytest.raises(FormatError, match=r"a\.fr.*line 3: not UTF-8"):
        gather([Corpus(str(src), str(tgt))], "en", "fr")
    with pytest.raises(ConfigError, match="1 to 3 files"):
        Corpus.from_args(["a", "b", "c", "d"])


def test_a_split_needs_three_documents_and_keeps_a_huge_one_in_training():
    pairs = [Pair(f"s{i}", f"t{i}", "one") for i in range(10)]
    with pytest.raises(ConfigError, match="at least 3"):
        split_by_documents(pairs, dev=1, test=1)
    pairs = [Pair(f"big{i}", "t", "big") for i in range(500)] + [
        Pair(f"s{i}", "t", f"d{i // 5}") for i in range(50)]
    split = split_by_documents(pairs, dev=10, test=10)
    assert {p.doc for p in split.train} >= {"big"} and len(split.test) == 10 and len(split.dev) == 10
    assert held_aside_sizes(100_000) == (500, 1000) and held_aside_sizes(30) == (1, 1)
