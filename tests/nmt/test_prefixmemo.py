"""The completion refreshed as the translator types reuses the model's work along the typed words
(issue 47, :mod:`engine.nmt.prefixmemo`): the same completion as a search from scratch, fewer decoder
steps, and an edit in the middle of the typed text recomputed from the change."""
import pytest

from engine.nmt.results import Term

SRC = "The child has a house."


def _fresh(tr, typed: str, **kw) -> str:
    tr.__dict__.pop("_step_memos", None)
    return tr.translate([SRC], beam=2, prefixes=[typed], **kw)[0].text


def _kept(tr, typed: str, **kw) -> str:
    return tr.translate([SRC], beam=2, prefixes=[typed], **kw)[0].text


@pytest.fixture
def steps(translator, monkeypatch):
    """Counts the model's decoder steps (rows of all of them)."""
    model, n = translator.model, [0]
    real = model.step

    def counting(y_emb, state, enc):
        n[0] += 1
        return real(y_emb, state, enc)

    monkeypatch.setattr(model, "step", counting)
    translator.__dict__.pop("_step_memos", None)
    yield n
    translator.__dict__.pop("_step_memos", None)


def _typing(text: str) -> list[str]:
    return [text[:i] for i in range(1, len(text) + 1)]


def test_a_refresh_after_more_typing_completes_as_a_search_from_scratch(translator, steps):
    plain = translator.translate([SRC], beam=2)[0].text
    for kw in ({}, {"best_of_both": False}, {"terms": [[Term(("Baum",), (4, 9), False)]]},
               {"memories": [[("The child has a tree.", "Das Kind hat einen Baum.", 0.8)]]}):   # kNN memory
        translator.__dict__.pop("_step_memos", None)
        for typed in _typing(plain):
            kept = _kept(translator, typed, **kw)
            assert kept == _fresh(translator, typed, **kw), (kw, typed)


def test_a_refresh_runs_the_model_only_after_the_typed_words(translator, steps):
    plain = translator.translate([SRC], beam=2)[0].text
    first, second = plain.split()[:2]
    _kept(translator, f"{first} {second} ", best_of_both=False)
    steps[0] = 0
    _kept(translator, f"{first} {second} ", best_of_both=False)
    again = steps[0]
    steps[0] = 0
    _fresh(translator, f"{first} {second} ", best_of_both=False)
    fresh = steps[0]
    n_typed = len(translator.loaded.tgt_vocab.encode(f"{first} {second}"))
    assert n_typed >= 2 and again <= fresh - (n_typed + 1), (again, fresh, n_typed)


def test_a_refresh_with_other_memory_pairs_is_not_served_from_the_kept_work(translator, steps):
    plain = translator.translate([SRC], beam=2)[0].text
    typed = " ".join(plain.split()[:2]) + " "
    pairs = ([], [("The child has a tree.", "Das Kind hat einen Baum.", 0.8)], [(SRC, "Der Baum hat ein Haus.", 1.0)])
    kept = [_kept(translator, typed, memories=[p], best_of_both=False) for p in pairs]   # one after another
    assert kept == [_fresh(translator, typed, memories=[p], best_of_both=False) for p in pairs]


def test_a_word_edited_or_deleted_in_the_middle_is_decoded_again(translator, steps):
    plain = translator.translate([SRC], beam=2)[0].text
    words = plain.split()
    assert len(words) >= 3, plain
    for typed in (" ".join(words[:3]) + " ",            # typed along
                  f"{words[0]} Haus {words[2]} ",        # a word in the middle changed
                  f"{words[0]} {words[2]} ",             # a word deleted
                  f"{words[0]} {words[1][:-1]}",         # backspaces into the second word
                  " ".join(words[:3]) + " "):            # and typed again
        for kw in ({"best_of_both": False}, {}):
            assert _kept(translator, typed, **kw) == _fresh(translator, typed, **kw), (typed, kw)
            _kept(translator, " ".join(words[:3]) + " ", **kw)   # the memo holds the longer prefix next time
