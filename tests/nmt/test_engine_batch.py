"""The rows ahead of the translator translated together (``Translator.suggest_many``, engine/nmt/suggesting.py): each row
gets the suggestion it gets asked alone -- its own TM pairs, context, terms and beam -- in one request."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.nmt.remote import RemoteTranslator
from engine.nmt.results import Term, TranslationRequest

DEMO = Path(__file__).resolve().parents[2] / "resources" / "models" / "demo"
ROWS = ["The red dog sees a small cat.", "A big man has the blue car.", "The child likes the ball.",
        "The small cat sees the red car and the big dog likes the blue ball of the child."]


def requests() -> tuple[list[TranslationRequest], list[int]]:
    reqs = [TranslationRequest(ROWS[0], pairs=(("The red dog sees a cat.", "Der rote Hund sieht eine Katze.", 0.8),),
                               context=("Before.",)),
            TranslationRequest(ROWS[1], context=(ROWS[0],)),
            TranslationRequest(ROWS[2], pairs=(("The child likes the car.", "Das Kind mag das Auto.", 0.7),
                                               ("A ball.", "Ein Ball.", 0.5)), context=ROWS[:2],
                               terms=(Term(("Ball",), (20, 24)),)),
            TranslationRequest(ROWS[3], context=ROWS[:3]),
            TranslationRequest(ROWS[1], pairs=(("A big man has a car.", "Ein großer Mann hat ein Auto.", 0.75),),
                               context=("Before.",))]
    return reqs, [5, 5, 5, 3, 5]


def batches(tr, monkeypatch) -> list[int]:
    """The number of sentences of each ``tr.translate`` call from now on."""
    sizes: list[int] = []
    real = tr.translate
    monkeypatch.setattr(tr, "translate", lambda texts, **kw: sizes.append(len(texts)) or real(texts, **kw))
    return sizes


def same_view(a, b) -> None:
    assert (a.text, a.words, a.src_words, a.memory_kind) == (b.text, b.words, b.src_words, b.memory_kind)
    assert a.score == pytest.approx(b.score, abs=1e-4)
    assert [c and (c.entry_index, c.token_index, c.word) for c in a.memory or ()] == \
        [c and (c.entry_index, c.token_index, c.word) for c in b.memory or ()]
    for ra, rb in zip(a.alignment, b.alignment):
        assert ra == pytest.approx(rb, abs=1e-4)


@pytest.mark.parametrize("terms_mode", ["off", "enforce"])
def test_rows_translated_together_get_each_the_suggestion_asked_alone(translator, terms_mode, monkeypatch):
    reqs, beams = requests()
    sizes = batches(translator, monkeypatch)
    together = translator.suggest_many(reqs, beams=beams, terms_mode=terms_mode)
    assert max(sizes) >= 2 and sum(sizes) == len(reqs)  # those with the same beam and inputs: one batch
    for req, beam, got in zip(reqs, beams, together):
        same_view(got, translator.suggest(req, beam=beam, terms_mode=terms_mode))


def test_the_demo_model_reads_each_rows_own_memory_in_a_batch(monkeypatch):
    from engine.nmt.translator import Translator

    tr = Translator.load(DEMO, threads=1)
    reqs, beams = requests()
    sizes = batches(tr, monkeypatch)
    together = tr.suggest_many(reqs, beams=beams)
    assert max(sizes) >= 2 and sum(sizes) == len(reqs)  # rows 0 and 4, each with its own pairs
    assert [r.memory_kind for r in together] == ["knn", None, "knn", None, "knn"]
    assert together[4].memory_pairs != together[0].memory_pairs
    for req, beam, got in zip(reqs, beams, together):
        same_view(got, tr.suggest(req, beam=beam))


def test_the_engine_process_translates_rows_together_as_one_by_one(trained_model, translator):
    reqs, beams = requests()
    remote = RemoteTranslator(trained_model, threads=1)
    try:
        together = remote.suggest_many(reqs, beams=beams)
    finally:
        remote.close()
    for req, beam, got in zip(reqs, beams, together):
        same_view(got, translator.suggest(req, beam=beam))
