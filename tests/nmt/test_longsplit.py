"""Segments longer than the training limit are translated piece by piece."""
from __future__ import annotations

from engine.nmt.longsplit import split_long


def words_at_most(n):
    return lambda s: len(s.split()) <= n


def test_a_segment_that_fits_is_one_piece():
    assert split_long("A short one; with a clause.", words_at_most(10), "en") == (["A short one; with a clause."], [""])


def test_sentence_ends_come_first_and_nothing_is_lost():
    text = "Whereas the request is made; whereas it is long. The Council shall act by a qualified majority.  "
    pieces, gaps = split_long(text, words_at_most(9), "en")
    assert pieces == ["Whereas the request is made; whereas it is long.",
                      "The Council shall act by a qualified majority."]
    assert "".join(p + g for p, g in zip(pieces, gaps)) == text


def test_a_long_sentence_is_cut_at_the_clause_mark_nearest_the_middle():
    text = "Whereas a b c; whereas d e f g h; whereas i j k l m n: o p."
    pieces, gaps = split_long(text, words_at_most(6), "en")
    assert pieces == ["Whereas a b c;", "whereas d e f g h;", "whereas i j k l m n:", "o p."]
    assert "".join(p + g for p, g in zip(pieces, gaps)) == text


def test_abbreviations_and_numbers_are_not_sentence_ends():
    text = "Regulation (EEC) No. 590/79 of 3 May 1979 and Dr. Smith say so and more and more and more."
    assert split_long(text, words_at_most(5), "en") == ([text], [""])   # no mark to cut at: left whole


# ---------------------------------------------------------------- translator
LONG = ("The dog sees a cat. A red man has a ball. The child likes the green tree. "
        "A small woman throws a blue ball. The old car has a young man. The cat likes the house in the park. "
        "A big dog sees the small child. The woman has a red car. A young cat throws the ball.")


def test_a_long_segment_translates_as_its_sentences_do(translator):
    sents = translator._cut(LONG, translator.loaded.cfg.data.max_len)[0]
    assert len(sents) > 1 and all(len(translator.loaded.src_vocab.encode(s)) < 80 for s in sents)
    alone = translator.translate(sents, beam=3)
    r = translator.translate([LONG], beam=3)[0]
    assert r.text == " ".join(a.text for a in alone)
    assert r.words == [w for a in alone for w in a.words]
    assert r.src_words == LONG.split() == [w for a in alone for w in a.src_words]
    # each word aligns inside its own sentence
    w0 = s0 = 0
    for a in alone:
        assert all(s0 <= link < s0 + len(a.src_words) for link in r.links[w0:w0 + len(a.words)])
        w0, s0 = w0 + len(a.words), s0 + len(a.src_words)
    assert len(r.alignment) == len(r.words) and all(len(row) == len(r.src_words) for row in r.alignment)
    assert len(r.token_attention) == len(r.tokens) and all(len(row) == len(r.src_tokens) for row in r.token_attention)
    assert r.gates is not None and len(r.gates) == len(r.words)
    whole = translator.translate([LONG], beam=3, split_long=0)[0]
    assert whole.text != r.text and len(whole.src_words) == len(r.src_words)


def test_a_typed_prefix_keeps_the_segment_whole(translator):
    r = translator.translate([LONG], beam=2, prefixes=["Der Hund"])[0]
    whole = translator.translate([LONG], beam=2, prefixes=["Der Hund"], split_long=0)[0]
    assert r.text == whole.text and r.text.startswith("Der Hund")
