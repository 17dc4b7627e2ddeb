"""A dictionary for the spelling tests that answers as a spelling process does (a uniquely named
module, not conftest, so that tests/ and tests/app import it alike)."""
from __future__ import annotations


class ChildLikeDictionary:
    """Answers like a spelling process (``on_restored``: words checked without waiting are asked on
    the checker's own thread); words ending in "x" are misspelt."""

    def __init__(self):
        self.on_restored: list = []

    def lookup_many(self, words):
        return [not w.endswith("x") for w in words]

    def suggest(self, word, limit, time_budget):
        return [], True
