"""Sentence alignment without a model: Gale-Church length, number anchors, confidences."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest
import sacrebleu

from engine.align import chrf
from engine.align.aligner import align_texts


def _words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 9))) for _ in range(n)) + "."


def test_length_aligner_recovers_deletions_and_merges():
    rng = random.Random(3)
    # a deleted sentence is a long one: a short one could as well be half of a 2-1 link, by length
    src = [_words(rng, 40 if i in (4, 17) else rng.choice([3, 8, 15, 25])) for i in range(30)]
    # the "translation": the same sentence a fifth longer, as German is to English
    tr = [s.replace(" ", "  ").upper()[: int(len(s) * 1.2)] + "." for s in src]
    tgt, gold = [], []
    i = 0
    while i < len(src):
        if i in (4, 17):        # deleted from the translation: a 1-0 link, nothing for the TM
            i += 1
            continue
        if i in (9, 22):        # two sentences translated as one: a 2-1 link
            gold.append(((i, i + 1), (len(tgt),)))
            tgt.append(tr[i] + " " + tr[i + 1])
            i += 2
            continue
        gold.append(((i,), (len(tgt),)))
        tgt.append(tr[i])
        i += 1
    links = align_texts(src, tgt)
    assert [(x.src, x.tgt) for x in links if x.src and x.tgt] == gold
    assert {x.src for x in links if not x.tgt} == {(4,), (17,)}
    assert all(0.0 <= x.confidence <= 1.0 for x in links)


def test_numbers_anchor_a_pair_that_length_alone_gets_wrong():
    ctx_s = ["This Regulation shall enter into force on the day of its publication.",
             "It shall be binding in its entirety and directly applicable in all Member States."]
    ctx_t = ["Diese Verordnung tritt am Tag ihrer Veröffentlichung in Kraft.",
             "Sie ist in allen ihren Teilen verbindlich und gilt unmittelbar in jedem Mitgliedstaat."]
    # the translation left out the sentence about Article 12; the one about Article 47 is nearer
    # in length to the Article 12 sentence
    src = ctx_s * 3 + ["The rules of Article 12 apply to all of the imports.",
                       "The rules of Article 47 apply to all imports and to all of the exports too.", ctx_s[1]]
    tgt = ctx_t * 3 + ["Die Regeln von Artikel 47 gelten für alle Einfuhren.", ctx_t[1]]

    def hide(t: str) -> str:
        return t.replace("12", "xy").replace("47", "zw")

    by_length = align_texts([hide(s) for s in src], [hide(t) for t in tgt])
    assert ((6,), (6,)) in [(x.src, x.tgt) for x in by_length]      # the wrong sentence
    anchored = [(x.src, x.tgt) for x in align_texts(src, tgt)]
    assert ((7,), (6,)) in anchored and ((6,), ()) in anchored


def test_a_clear_pair_is_more_confident_than_a_guess():
    src = ["Short one.", "A much longer sentence that goes on for a while here.", "Mid-length sentence here."]
    tgt = ["Kurzer Satz.", "Ein viel längerer Satz, der hier eine ganze Weile weitergeht.", "Mittellanger Satz hier."]
    clear = align_texts(src, tgt)
    guess = align_texts(["Eleven chars", "Twelve chars"], ["Zwölf Zeichen"])
    assert min(x.confidence for x in clear) > max(x.confidence for x in guess if x.tgt)


def test_no_link_crosses_a_paragraph_break_when_both_have_as_many_paragraphs():
    src = ["A first paragraph sentence that is long.", "Yes, certainly.", "Second paragraph."]
    tgt = ["Ein erster langer Absatzsatz, der lang ist.", "Zweiter Absatz, ja, gewiss."]
    # by length alone the last two source sentences are one 2-1 link with the last target one
    assert [(x.src, x.tgt) for x in align_texts(src, tgt)][-1] == ((1, 2), (1,))
    links = align_texts(src, tgt, src_paragraphs=[0, 0, 1], tgt_paragraphs=[0, 1])
    assert [(x.src, x.tgt) for x in links] == [((0,), (0,)), ((1,), ()), ((2,), (1,))]


def test_chrf_equals_sacrebleu():
    pairs = [("Der Hund bellt laut.", "Der Hund bellt sehr laut!"), ("abc", "xyz"),
             ("Die Kommission erlässt die Verordnung (EG) Nr. 1234/2001.", "Die Kommission erlässt Verordnung 1234.")]
    for hyp, ref in pairs:
        ours = chrf.score(chrf.profile(hyp), chrf.profile(ref))
        assert abs(ours - sacrebleu.sentence_chrf(hyp, [ref]).score / 100) < 1e-9


def test_length_aligner_does_not_load_torch():
    code = ("import sys; import engine.align.aligner, engine.align.docs, engine.align.totm; "
            "from engine.align.aligner import align_texts; align_texts(['a.'], ['b.']); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_model_is_asked_only_about_sentences_near_unsure_links():
    from engine.align.dp import Link
    from engine.align.run import unsure_sentences

    links = [Link((i,), (i,), 0.99) for i in range(10)]
    links[6] = Link((6,), (), 0.4)
    assert unsure_sentences(links, 10) == [5, 6, 7]
    assert unsure_sentences([Link((i,), (i,), 0.99) for i in range(10)], 10) == []


def test_a_paragraph_missing_from_the_translation_is_found_before_the_sentences():
    rng = random.Random(5)
    pars = [[_words(rng, rng.choice([4, 9, 16, 24])) for _ in range(rng.randint(2, 4))] for _ in range(9)]
    pars[4] = [_words(rng, 30) for _ in range(4)]   # longer than any other: length alone can tell it
    src = [s for p in pars for s in p]
    sp = [k for k, p in enumerate(pars) for _ in p]
    kept = [i for i in range(len(src)) if sp[i] != 4]           # paragraph 4 was never translated
    tgt = [src[i].replace(" ", "  ").upper()[: int(len(src[i]) * 1.2)] + "." for i in kept]
    tp = [sp[i] for i in kept]
    links = align_texts(src, tgt, src_paragraphs=sp, tgt_paragraphs=tp)
    assert [(x.src, x.tgt) for x in links if x.src and x.tgt] == [((i,), (n,)) for n, i in enumerate(kept)]
    assert {x.src[0] for x in links if not x.tgt} == {i for i in range(len(src)) if sp[i] == 4}


def test_documents_too_unlike_to_align_are_refused_in_one_line(monkeypatch, tmp_path):
    from engine.align import dp
    from engine.align.aligner import align_documents
    from engine.align.docs import AlignDoc
    from engine.errors import VersoError
    from engine.inline import TaggedText

    monkeypatch.setattr(dp, "MAX_CELLS", 1000)
    src = AlignDoc(tmp_path / "long.docx", [TaggedText(f"Sentence {i}.") for i in range(400)], [0] * 400)
    tgt = AlignDoc(tmp_path / "short.docx", [TaggedText("Satz.")] * 5, [0] * 5)
    with pytest.raises(VersoError) as e:
        align_documents(src, tgt)
    assert "long.docx" in str(e.value) and "short.docx" in str(e.value) and "\n" not in str(e.value)
