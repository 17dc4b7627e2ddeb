"""Completing what the translator typed (issue 47): a word typed half way, never worse than the
suggestion continued, the term rule kept."""
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


def test_the_typed_words_are_kept_when_the_model_gives_them_no_probability(translator, monkeypatch):
    """A confident memory (kNN at a high temperature weight) can give a typed token probability 0;
    the search then ended the sentence with what it had ('[30, </s>]' for the prefix [30, 31])."""
    from engine.nmt.vocab import EOS

    plain = translator.translate([SRC], beam=4)[0].text
    typed = " ".join(plain.split()[:2]) + " "
    model = translator.model
    real = model.step_log_probs

    def peaked(out, enc):
        lp = real(out, enc)
        best = lp.argmax(-1, keepdim=True)
        only = torch.full_like(lp, float("-inf"))
        only.scatter_(-1, best, 0.0)      # all mass on the model's own pick: the typed tokens get none
        only[..., EOS] = -1.0
        return only

    monkeypatch.setattr(model, "step_log_probs", peaked)
    out = translator.translate(["The house has a child."], beam=4, prefixes=[typed])[0].text
    assert out.startswith(typed.rstrip()), out


def test_a_typed_part_allows_exactly_the_pieces_that_agree_with_it():
    import random

    from engine.nmt.completion import PieceTexts

    rng = random.Random(3)
    pieces = ["<pad>", "<s>", "</s>", "▁", "▁K", "▁Kn", "▁Knopf", "K", "n", "nopf", "opf", "▁Kno", "▁Ka", "▁k",
              "Kn", "▁Knöpfe", "ö"] + ["".join(rng.choice("▁Knopfa") for _ in range(rng.randint(1, 5))) for _ in range(300)]
    table = PieceTexts(pieces)
    for left in [" Kn", " K", "nopf", "opf", " Knöpfe", "f", " ", "Kno", " Knopfa"] + [
            "".join(rng.choice(" Knopfa") for _ in range(rng.randint(1, 6))) for _ in range(200)]:
        want = {i for i, t in enumerate(table.text) if t and (t.startswith(left) or left.startswith(t))}
        got = table.allowed(left)
        assert sorted(got) == sorted(want) and len(got) == len(set(got)), left
