"""benchmarks/effort.py counts a simulated translator's effort as the protocols say: accept the longest
correct part of each completion, type the next word (character), ask again."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]


class OneWrongWord:
    """A stand-in translator whose completion is the reference except the word ``wrong`` (index), written
    "X" until the translator has typed a character of it."""

    def __init__(self, ref: str, wrong: int):
        self.ref, self.wrong = ref, wrong
        words = ref.split()
        self.start = len(" ".join(words[:wrong])) + (1 if wrong else 0) if wrong < len(words) else len(ref) + 1

    def suggest(self, req, **kw):
        if len(req.prefix) > self.start or self.start > len(self.ref):
            return SimpleNamespace(text=self.ref)
        words = self.ref.split()
        return SimpleNamespace(text=" ".join("X" if i == self.wrong else w for i, w in enumerate(words)))


def _run(ref: str, wrong: int, protocol: str, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))   # as `python -m benchmarks.effort` from the repository root
    from benchmarks.effort import Segment, Simulator, Tally

    args = SimpleNamespace(beam=1, memory="auto", terms="prefer", raw=True, interactive=protocol, ghost="rest")
    tr = OneWrongWord(ref, wrong)
    t = Tally()
    first = tr.suggest(SimpleNamespace(prefix="")).text
    sim = Simulator(tr, args, None)
    (sim.word_protocol if protocol == "word" else sim.char_protocol)(Segment("source", ref), first, (), (), t)
    return t


def test_word_protocol_types_only_the_word_the_engine_gets_wrong(monkeypatch):
    t = _run("Das ist ein kleiner Test", 2, "word", monkeypatch)
    assert (t.words_typed, t.word_chars) == (1, len("ein"))


def test_char_protocol_types_one_character_and_accepts_the_rest(monkeypatch):
    t = _run("Das ist ein kleiner Test", 2, "char", monkeypatch)
    assert t.chars_typed == 1          # "e": the completion of "e" is "ein kleiner Test"
    assert t.accepts == 2              # "Das ist " before, "in kleiner Test" after


def test_a_right_suggestion_costs_nothing_to_type(monkeypatch):
    t = _run("Alles richtig", 99, "word", monkeypatch)
    assert t.words_typed == 0 and t.asks == 0
