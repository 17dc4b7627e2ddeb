"""What makes a large TM open and answer fast: its columns read in one go, nothing unpickled
again for a query it has seen, the candidate stage keeping the documents that share most."""
from __future__ import annotations

import numpy as np
import pytest
import whoosh.codec.whoosh3 as w3
from whoosh import columns

from engine.tm.candidates import CandidateStage, MemoryLeaf
from engine.tm.memory import TranslationMemory

PAIRS = [(f"Sentence number {i} about layer {i % 13} and colour {i % 7}.",
          f"Satz Nummer {i} über Ebene {i % 13} und Farbe {i % 7}.") for i in range(400)]


@pytest.fixture
def folder(tmp_path):
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS)
        t.flush()
    return tmp_path / "tm"


def test_opening_reads_the_unit_ids_and_lengths_in_one_go_not_one_value_at_a_time(folder, monkeypatch):
    def one_value(self, docnum):
        raise AssertionError("a column value read one call at a time")

    monkeypatch.setattr(columns.TranslatingColumnReader, "__getitem__", one_value)
    with TranslationMemory(folder) as t:
        assert not t.rebuilt_because
        hit = t.search("Sentence number 42 about layer 3 and colour 0.")[0]
        assert hit.score == 1.0 and hit.target.text.startswith("Satz Nummer 42 ")


def test_a_query_seen_before_unpickles_nothing(folder, monkeypatch):
    with TranslationMemory(folder) as t:
        q = "Sentence number 42 about layer 3 and colour 0."
        first = t.search(q)
        calls = []
        real = w3.loads
        monkeypatch.setattr(w3, "loads", lambda b: calls.append(1) or real(b))
        assert t.search(q) == first
        assert calls == []


def test_the_candidates_are_the_documents_sharing_most_and_the_rest_is_bounded():
    leaf = MemoryLeaf()
    query = "alpha beta gamma delta epsilon".split()
    for i in range(300):  # 3 share the whole query, 10 three words of it, the others one word
        core = (query if i % 100 == 0 else query[:3] + [f"w{i}", f"v{i}"] if i % 30 == 15
                else [query[i % 5], f"w{i}", f"v{i}", f"u{i}", f"t{i}"])
        leaf.add(i + 1, " ".join(core), "x", ("a" * 5, "", ""), core)
    r = CandidateStage([leaf]).retrieve(query, limit=3)
    assert {leaf.uids[int(k)] for k in r.keys} == {1, 101, 201} and np.all(r.bounds == 1.0)
    assert r.rest == pytest.approx(0.6)  # the best left out shares three of five words
