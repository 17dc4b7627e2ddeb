"""Completing what the translator typed (issue 47): a word typed half way, never worse than the
suggestion continued, the term rule kept."""
import pytest
import torch

from engine.nmt.completion import along_suggestion, split_typed
from engine.nmt.results import Term

SRC = "The child has a house."


def test_a_typed_prefix_splits_into_whole_words_and_the_word_typed_half_way():
    assert split_typed("Drücken Sie den Kn") == ("Drücken Sie den", " Kn")
    assert split_typed("Kn") == ("", " Kn")
    assert split_typed("Drücken ") == ("Drücken ", "")
    assert split_typed("") == ("", "")


def test_the_suggestion_continues_after_the_typed_words_where_they_fit():
    sug = "Drücken Sie den Knopf OK."
    assert along_suggestion("Drücken Sie", sug) == sug
    assert along_suggestion("Klicken Sie den Kn", sug) == "Klicken Sie den Knopf OK."
    assert along_suggestion("Klicken Sie ", sug) == "Klicken Sie den Knopf OK."
    assert along_suggestion("Klicken Sie da", sug) is None      # the part does not begin its next word
    assert along_suggestion("Bitte klicken ", sug) is None       # no typed word in it


def test_a_word_typed_half_way_is_completed_not_written_again(translator):
    plain = translator.translate([SRC], beam=4)[0].text
    first, second = plain.split()[:2]
    for cut in range(1, len(second)):
        typed = f"{first} {second[:cut]}"
        out = translator.translate([SRC], beam=4, prefixes=[typed])[0].text
        assert out.startswith(f"{first} {second}"), (typed, out)


def test_the_completion_is_never_worse_than_the_suggestion_continued(translator):
    plain = translator.translate([SRC], beam=4)[0].text
    words = plain.split()
    for typed in (f"{words[0]} ", f"Das {words[1]} ", f"Das {words[1]} {words[2][:1]}"):
        out = translator.translate([SRC], beam=4, prefixes=[typed])[0]
        assert out.text.startswith(typed.rstrip()), (typed, out.text)
        other = along_suggestion(typed, plain)
        if other is not None:
            mine, theirs = translator.forced([SRC, SRC], [out.text, other])
            assert mine.score / len(mine.tokens) >= theirs.score / len(theirs.tokens) - 1e-6, (out.text, other)


def test_a_completion_keeps_the_glossary_term(translator):
    a = SRC.index("child")
    r = translator.translate([SRC], beam=4, prefixes=["Der "], terms=[[Term(("Baum",), (a, a + 5), False)]])[0]
    assert r.text.startswith("Der ") and "Baum" in r.text.split(), r.text


def test_the_first_completion_after_the_suggestion_decodes_no_second_suggestion(translator, monkeypatch):
    """The editor asks a segment's suggestion on entering, then a completion at each keystroke: the
    completion's 'never worse than the suggestion continued' reads the suggestion already decoded."""
    from engine.nmt.results import TranslationRequest

    translator.__dict__.pop("_plain", None)
    plain = translator.suggest(TranslationRequest(SRC, "", (), None, ()), beam=4)
    typed = "Das " + plain.text.split()[1][:1]
    translator.__dict__.pop("_plain", None)
    cold = translator.translate([SRC], beam=4, prefixes=[typed])[0].text
    plains = []
    real = translator.translate

    def counting(texts, **kw):
        if not kw.get("prefixes"):
            plains.append(texts)
        return real(texts, **kw)

    monkeypatch.setattr(translator, "translate", counting)
    translator.__dict__["_plain"] = {}
    translator.suggest(TranslationRequest(SRC, "", (), None, ()), beam=4)
    plains.clear()
    warm = translator.suggest(TranslationRequest(SRC, typed, (), None, ()), beam=4)
    assert plains == [] and warm.text == cold


def _same(a, b):
    for x, y in zip(a, b):
        assert x.tokens == y.tokens
        assert x.norm_score == pytest.approx(y.norm_score, abs=1e-9)
        assert torch.allclose(x.attn, y.attn, atol=1e-9)


@pytest.mark.parametrize("kind", ["plain", "bridged", "context", "learned"])
def test_the_typed_words_decoded_on_one_row_give_the_completion_every_row_gives(kind, monkeypatch):
    """The prefix is forced, so decoding it with one row per sentence (the beam widening after it)
    changes no completion: with a kNN memory, the learned memory, the document context and no-stutter."""
    from engine.nmt import search
    from engine.nmt.data import pad_sources
    from engine.nmt.vocab import EOS
    from nmt.test_knn import SRC as IDS, knn_input, make

    m = make(kind).double()
    src, mask = pad_sources(IDS)
    for prefixes in ([[21, 33, 22], [30, 31]], [[21], [25, 26, 27, 28]]):
        for extra in ({}, knn_input([[(IDS[0], [21, 33, 22, 35, EOS])], [(IDS[1], [30, 9, EOS])]])):
            runs = []
            for one_row in (True, False):
                monkeypatch.setattr(search, "ONE_ROW_PREFIX", one_row)
                runs.append(search.beam_search(m, src, mask, beam=3, prefixes=prefixes,
                                               word_starts=frozenset(range(20, 30)), **extra))
            _same(*runs)
            if not extra:  # (a kNN memory sure of another token gives the typed one p = 0: the prefix is lost)
                assert all(h.tokens[:len(p)] == p for h, p in zip(runs[0], prefixes))


def test_a_completion_with_terms_and_a_half_typed_word_is_the_same_on_one_row(translator, monkeypatch):
    from engine.nmt import search

    a = SRC.index("child")
    terms = [[Term(("Baum",), (a, a + 5), False)]]
    plain = translator.translate([SRC], beam=4)[0].text.split()
    for typed in ("Der ", f"Das {plain[1][:2]}", f"{plain[0]} {plain[1]} "):
        for kw in ({}, {"terms": terms}):
            runs = []
            for one_row in (True, False):
                monkeypatch.setattr(search, "ONE_ROW_PREFIX", one_row)
                runs.append(translator.translate([SRC], beam=4, prefixes=[typed], best_of_both=False, **kw)[0])
            assert runs[0].text == runs[1].text and runs[0].score == pytest.approx(runs[1].score, abs=1e-4), typed
            if kw:
                assert "Baum" in runs[0].text.split(), runs[0].text


def test_the_typed_words_are_decoded_with_one_row_per_sentence(translator, monkeypatch):
    """A refresh decodes the typed words once, not once per beam row (issue 47: refresh latency)."""
    model = translator.loaded.model
    rows, real = [], model.step

    def counting(y_emb, state, enc):
        rows.append(y_emb.size(0))
        return real(y_emb, state, enc)

    monkeypatch.setattr(model, "step", counting)
    typed = "Das Kind hat ein "
    n = len(translator.loaded.tgt_vocab.encode(typed.rstrip()))
    translator.translate([SRC], beam=4, prefixes=[typed], best_of_both=False)
    assert rows[:n] == [1] * n and rows[n] == 4, rows
