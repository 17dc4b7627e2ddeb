"""Glossary terms in the translation: lexically constrained beam search on the toy model."""
import pytest

from engine.nmt.data import read_lines


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
