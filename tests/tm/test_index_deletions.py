"""Deleting or editing a unit that sits in a large, already-merged index segment."""
from __future__ import annotations

from engine.tm.memory import TranslationMemory


def test_a_unit_deleted_from_a_large_indexed_tm_is_gone_and_search_still_works(tmp_path):
    # A segment of a few thousand documents is not merged away on the next commit,
    # so the deletion is kept as the segment's deleted-docs set, which the search must read.
    pairs = [(f"The cat number {i} sat on mat {i % 7}", f"Die Katze {i} sass auf Matte {i % 7}")
             for i in range(3000)]
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(pairs)
    with TranslationMemory(tmp_path / "tm") as t:
        uid = t.search("The cat number 5 sat on mat 5")[0].entry.id
        assert t.delete(uid)
        t.flush()
        assert all(m.entry.id != uid for m in t.search("The cat number 5 sat on mat 5", k=10))
    with TranslationMemory(tmp_path / "tm") as t:
        hits = t.search("The cat number 5 sat on mat 5", k=10)
        assert hits and all(m.entry.id != uid for m in hits)
        assert t.stats()["indexed"] == len(pairs) - 1
