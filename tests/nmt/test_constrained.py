"""Glossary terms in the translation: lexically constrained beam search on the toy model."""
import pytest

from engine.nmt.data import read_lines
from engine.nmt.search import ConstraintState
from engine.nmt.translator import Term
from nmt.toydata import LEXICON


@pytest.fixture(scope="module")
def sentences(toy_corpus):
    return read_lines(toy_corpus["dev_en"])[:6], read_lines(toy_corpus["dev_de"])[:6]


def _absent_word(translator, out: str, ref: str) -> str:
    """A word of the reference the unconstrained translation lacks (else any reference word)."""
    words = [w.strip(".,") for w in ref.split() if w.strip(".,")]
    return next((w for w in words if w not in out.split()), words[0])


def test_every_term_appears_and_the_translation_ends(translator, sentences):
    src, ref = sentences
    plain = translator.translate(src, beam=4)
    terms = [[_absent_word(translator, p.text, r)] for p, r in zip(plain, ref)]
    forced = translator.translate(src, beam=4, terms=terms)
    for t, r in zip(terms, forced):
        assert t[0] in r.text, (t, r.text)
        assert r.tokens[-1] == "</s>" and r.tokens.count("</s>") == 1  # ends once, at the end


def test_two_terms_and_a_multi_word_term(translator, sentences):
    src, ref = sentences
    words = [w.strip(".,") for w in ref[0].split() if len(w.strip(".,")) > 1]
    two = [words[0], words[-1]]
    phrase = " ".join(words[1:3])
    r = translator.translate([src[0]], beam=4, terms=[two])[0]
    assert all(w in r.text for w in two), r.text
    r = translator.translate([src[0]], beam=4, terms=[[phrase]])[0]
    assert phrase in r.text, r.text


def test_no_terms_is_the_usual_search(translator, sentences):
    src, _ = sentences
    plain = [r.text for r in translator.translate(src, beam=4)]
    assert [r.text for r in translator.translate(src, beam=4, terms=[[] for _ in src])] == plain
    assert [r.text for r in translator.translate(src, beam=4, terms=None)] == plain


def test_greedy_with_a_term_still_includes_it(translator, sentences):
    src, ref = sentences
    word = [w.strip(".,") for w in ref[1].split()][-1]
    r = translator.translate([src[1]], beam=1, terms=[[word]])[0]
    assert word in r.text and r.tokens[-1] == "</s>"


def test_a_term_longer_than_the_length_limit_allows_is_still_written_and_the_search_ends(translator, sentences):
    src, ref = sentences
    term = " ".join(w.strip(".,") for w in ref[2].split()[:4])
    r = translator.translate([src[2]], beam=3, max_ratio=0.3, terms=[[term]])[0]
    assert term in r.text and r.tokens[-1] == "</s>"


def test_prefer_is_a_hint_not_a_rule(translator, sentences):
    src, ref = sentences
    plain = translator.translate(src, beam=4)
    terms = [[_absent_word(translator, p.text, r)] for p, r in zip(plain, ref)]
    preferred = translator.translate(src, beam=4, terms=terms, terms_mode="prefer")
    assert all(r.tokens[-1] == "</s>" for r in preferred)
    hits = sum(t[0] in r.text for t, r in zip(terms, preferred))
    base = sum(t[0] in p.text for t, p in zip(terms, plain))
    assert hits >= base  # never fewer terms than without the hint


# -- where the term goes, and in which form ---------------------------------------------------------

#: (source, source term, target term): the toy translates word for word (the verb last), so the
#: place of the model's own word for the source term is known.
PLACED = [("The child has a house.", "house", "Ball"), ("The child has a house.", "child", "Baum"),
          ("A cat has the ball.", "cat", "Baum"), ("The old man throws a ball.", "ball", "Hund"),
          ("A man likes the old tree.", "man", "Auto"), ("The woman has a small cat in the park.", "cat", "Ball")]


def _words(text: str) -> list[str]:
    return [w.strip(".") for w in text.split()]


def _term(src: str, word: str, *targets: str, inflect: bool = False) -> Term:
    a = src.index(word)
    return Term(targets, (a, a + len(word)), inflect)


@pytest.mark.parametrize("threads", [1, 4])
def test_a_term_goes_where_the_attention_says(translator, threads):
    """With the source term's span, the term takes the place of the model's own word for it (the
    subject near the start, not the end), the translation ends once and does not loop; a term is
    never cut into a word and nothing is said twice.  With 4 threads the products round otherwise:
    the search wrote "Der Kind ein Haus ha Baum ein Haus hat." (the machine decided)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        placed = []
        for src, word, term in PLACED:
            plain = _words(translator.translate([src], beam=4)[0].text)
            r = translator.translate([src], beam=4, terms=[[_term(src, word, term)]])[0]
            out = _words(r.text)
            assert term in out, r.text
            assert r.tokens[-1] == "</s>" and r.tokens.count("</s>") == 1, r.tokens
            assert len(out) <= len(plain) + 2, r.text  # no loop, no term tacked on after the sentence
            assert set(out) <= set(plain) | {term}, r.text  # no word cut by the term
            assert all(out.count(w) <= plain.count(w) for w in out if w != term), r.text  # nothing said twice
            if LEXICON[word] in plain:  # the place of the model's own word for it (a toy model may not write it)
                placed.append(out.index(term) == plain.index(LEXICON[word]))
        assert len(placed) >= len(PLACED) - 1 and sum(placed) >= len(placed) - 1, placed
    finally:
        torch.set_num_threads(before)


def test_a_term_given_as_a_glossary_hit_carries_its_span_and_targets(translator):
    from engine.glossary import GlossaryEntry, TermHit

    src = "The child has a house."
    hit = TermHit(src.index("house"), src.index("house") + 5, GlossaryEntry("house", ("Ball",), "en", "de"))
    assert Term.of(hit) == Term(("Ball",), (16, 21), False)
    assert translator.translate([src], beam=4, terms=[[hit]])[0].text == \
        translator.translate([src], beam=4, terms=[[_term(src, "house", "Ball")]])[0].text


def test_a_disjunctive_constraint_follows_every_form_that_fits():
    terms = [[[5, 6, 7], [5, 6, 8], [9]]]
    st = ConstraintState()
    for tok in (5, 6):
        st = st.advance(tok, terms)
    assert st.cur == 0 and st.continuation(terms) == [7, 8] and st.needed(terms) == 1
    assert st.advance(8, terms).met == 1          # the second form completes it
    assert ConstraintState().advance(9, terms).met == 1  # and so does the one-token form


def test_any_accepted_target_meets_a_term(translator):
    src = "A cat has the ball."
    plain = translator.translate([src], beam=4)[0].text
    # one form is what the model writes anyway: nothing is forced
    assert translator.translate([src], beam=4, terms=[[_term(src, "ball", "Auto", "Ball")]])[0].text == plain
    r = translator.translate([src], beam=4, terms=[[_term(src, "ball", "Auto", "Haus")]])[0]
    assert ("Auto" in r.text or "Haus" in r.text) and r.tokens[-1] == "</s>"


def test_an_entry_that_inflects_is_met_by_another_form_of_its_word(translator, monkeypatch):
    """``inflect``: a form of the term's last word with the same Snowball stem in the target
    vocabulary meets it (the toy's vocabulary has no whole-word pieces, so its words are given)."""
    src = "The dog sees a cat."
    plain = translator.translate([src], beam=4)[0].text
    assert "Katze" in plain.split() and "Katzen" not in plain
    strict = translator.translate([src], beam=4, terms=[[_term(src, "cat", "Katzen")]])[0].text
    assert "Katzen" in strict
    monkeypatch.setattr(translator.forms, "_forms", {"katz": ["Katze", "Katzen"]})
    assert translator.forms.inflections("Katzen") == ["Katze"]
    r = translator.translate([src], beam=4, terms=[[_term(src, "cat", "Katzen", inflect=True)]])[0]
    assert r.text == plain


def test_a_term_is_proposed_as_a_word_and_after_a_tag_in_its_bare_form():
    terms = [[[10, 11], [20, 11]]]  # "▁Datei" and, as after a tag, "Datei" (tokens 10 / 20)
    starts = frozenset({10})
    assert ConstraintState().next_tokens(terms, None, starts) == [10]
    assert ConstraintState().next_tokens(terms, None, starts, after_glue=True) == [20]
    assert ConstraintState().next_tokens(terms, [False], starts) == []  # its gate is shut
    assert ConstraintState().advance(20, terms).cur == 0  # the bare form still counts when the model writes it


def test_the_source_span_of_a_term_is_its_words_pieces(translator):
    src = "The small woman sees the green car."
    ids = translator._src_ids(src)
    pieces = translator.loaded.src_vocab.pieces(ids)
    a, b = translator.forms.source_span(src, ids, (src.index("woman"), src.index("woman") + 5))
    assert "".join(pieces[a:b]).replace("\u2581", "") == "woman"
    a, b = translator.forms.source_span(src, ids, (src.index("green"), src.index("car") + 3))
    assert "".join(pieces[a:b]).replace("\u2581", "") == "greencar."  # whole words, their punctuation too


def test_a_long_sentence_with_placed_terms_is_cut_and_each_piece_gets_its_terms():
    from engine.nmt.longsplit import terms_of_pieces

    text = "Open the file. Then close the folder."
    plan = (["Open the file.", "Then close the folder."], [" ", ""])
    file, folder = Term(("Datei",), (9, 13)), Term(("Ordner",), (30, 36))
    assert terms_of_pieces(text, plan, [file, folder]) == (
        plan, [[file], [Term(("Ordner",), (15, 21))]])
    across = Term(("x",), (9, 20))  # "file. Then": in two pieces -- the sentence stays whole
    assert terms_of_pieces(text, plan, [across]) == (([text], [""]), [[across]])


# -- nothing after the finished sentence ------------------------------------------------------------

@pytest.mark.parametrize("mode", ["enforce", "prefer"])
def test_a_term_the_sentence_has_passed_is_left_out_not_appended_after_its_full_stop(translator, mode):
    """The translator typed the whole sentence without the term ("child" -> "Baum" has gone by): the
    search ends the sentence at its full stop rather than writing the term after it (it wrote
    "Der Kind ein Haus hat. Baum ein Haus hat."), and the term is reported as not used."""
    src, typed = "The child has a house.", "Der Kind ein Haus hat."
    r = translator.translate([src], beam=4, prefixes=[typed], terms=[[_term(src, "child", "Baum")]],
                             terms_mode=mode, best_of_both=False)[0]
    assert r.text == typed and r.tokens[-2:] == [".", "</s>"], r.text
    assert "Baum" not in r.text


def test_no_term_starts_after_sentence_final_punctuation_and_the_sentence_may_end_there():
    import torch

    from engine.nmt.constraints import constrain_terms
    from engine.nmt.vocab import EOS

    terms = [[[10, 11]]]
    lp = torch.full((20,), -5.0)
    lp[EOS], lp[10] = -0.1, -3.0
    assert constrain_terms(lp, ConstraintState(), terms, 5, 30, "enforce", [True], ended=True) == 0
    assert lp[EOS] == pytest.approx(-0.1) and lp[10] == float("-inf")   # it ends: nothing after the end
    lp = torch.full((20,), -5.0)
    lp[EOS], lp[10], lp[15] = -3.0, -4.0, -0.1                        # it goes on (a second sentence)
    constrain_terms(lp, ConstraintState(), terms, 5, 30, "enforce", [True], ended=True)
    assert (lp[EOS], lp[10], lp[15]) == (-3.0, -4.0, pytest.approx(-0.1))   # its own choice, nothing forced
    lp = torch.full((20,), -5.0)
    lp[EOS] = -0.1
    constrain_terms(lp, ConstraintState(), terms, 5, 30, "enforce", [True])   # mid-sentence: the term is forced
    assert lp[EOS] == float("-inf") and lp[10] == -5.0 and lp[11] == float("-inf")
    prefer = torch.zeros(20)
    constrain_terms(prefer, ConstraintState(), terms, 5, 30, "prefer", [True], ended=True)
    assert prefer[10] == 0.0                                          # no bonus for a term after the end
    # a term under way (one whose own pieces hold a full stop, "z.B.") goes on
    st = ConstraintState().advance(10, terms)
    lp = torch.full((20,), -5.0)
    constrain_terms(lp, st, terms, 5, 30, "enforce", [True], ended=True)
    assert lp[EOS] == float("-inf") and lp[11] == -5.0


def test_the_sentence_ends_are_read_off_the_vocabulary_once_and_a_term_still_stops_there(translator, monkeypatch):
    """Every search with terms (each keystroke's completion) used to scan all 8,000 target pieces
    for the ones that end a sentence; the vocabulary keeps them, and a term is still not written
    after the full stop of the sentence the translator typed."""
    from engine.nmt import constraints

    scans: list[int] = []
    real = constraints.sentence_end_tokens
    monkeypatch.setattr(constraints, "sentence_end_tokens", lambda keys: scans.append(1) or real(keys))
    translator.forms.word_starts()[2]._derived.clear()   # as a model just loaded
    src, typed = "The child has a house.", "Der Kind ein Haus hat."
    for mode in ("enforce", "prefer", "enforce"):
        r = translator.translate([src], beam=4, prefixes=[typed], terms=[[_term(src, "child", "Baum")]],
                                 terms_mode=mode, best_of_both=False)[0]
        assert r.text == typed and "Baum" not in r.text, r.text
    assert scans == [1]


@pytest.mark.parametrize("typed", ["Der Kind ein Haus hat", "Der Kind ein Haus ha", "Der Kind ein Haus hat "])
@pytest.mark.parametrize("mode", ["enforce", "prefer"])
def test_a_term_the_typed_words_have_passed_is_not_appended_after_them(translator, typed, mode):
    """The translator typed the sentence without the glossary term, in their own word ("Kind" for
    "child", term "Baum"), up to but not including its full stop: the completion finishes their
    sentence rather than appending the term after their last word ("... hat Baum")."""
    src = "The child has a house."
    r = translator.translate([src], beam=4, prefixes=[typed], terms=[[_term(src, "child", "Baum")]],
                             terms_mode=mode)[0]
    assert r.text.startswith(typed.rstrip()[:-1]) and "Baum" not in r.text, r.text
