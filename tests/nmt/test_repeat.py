"""No stutter: the search refuses to write a word again at once unless the source repeats it.

The toy corpus of :mod:`nmt.toydata` with "very" before some adjectives, once or twice ("very very
big" -> "sehr sehr groß"), so the model learns to write a word twice where the source has it twice.
A copy of that model whose attention is frozen (the query no longer moves it) reads the same source
place at every step: it stutters, as a decoder that has lost its place does.
"""
from __future__ import annotations

import copy
import dataclasses
import random

import pytest
import torch

from engine.inline import tag_char
from engine.nmt.data import pad_sources
from engine.nmt.repeats import WordKeys, repeat_ban, source_runs, word_repeat_ban
from engine.nmt.search import beam_search, greedy, reference_beam
from engine.nmt.vocab import EOS
from engine.qa import repeats
from nmt.toydata import ADJ, make_pair, toy_config_dict

DOUBLE = "The very very big dog sees a cat."


def _with_very(rng: random.Random) -> tuple[str, str]:
    src, tgt = make_pair(rng)
    words = src.rstrip(".").split()
    adj = [i for i, w in enumerate(words) if w.lower() in ADJ]
    if adj and rng.random() < 0.6:
        n = rng.choice((1, 2))
        i = adj[0]
        words = words[:i] + ["very"] * n + words[i:]
        tw = tgt.rstrip(".").split()
        j = next(k for k, w in enumerate(tw) if w.lower() in {"rot", "groß", "klein", "grün", "blau", "alt", "jung"})
        tgt = " ".join(tw[:j] + ["sehr"] * n + tw[j:]) + "."
    return " ".join(words).capitalize() + ".", tgt


@pytest.fixture(scope="module")
def very_model(tmp_path_factory):
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train
    from engine.nmt.translator import Translator

    folder = tmp_path_factory.mktemp("very")
    rng = random.Random(11)
    for split, n in (("train", 600), ("dev", 20)):
        pairs = [_with_very(rng) for _ in range(n)]
        (folder / f"{split}.en").write_text("".join(p[0] + "\n" for p in pairs), encoding="utf-8")
        (folder / f"{split}.de").write_text("".join(p[1] + "\n" for p in pairs), encoding="utf-8")
    corpus = {f"{s}_{side}": folder / f"{s}.{side}" for s in ("train", "dev") for side in ("en", "de")}
    cfg = ExperimentConfig.from_dict(toy_config_dict(corpus, model={"context_gate": "both"},
                                                     train={"max_steps": 300}))
    train(cfg, folder / "m")
    return Translator.load(folder / "m")


@pytest.fixture(scope="module")
def stuck(very_model):
    """The model with its attention frozen: every step reads the same source place."""
    m = copy.deepcopy(very_model.loaded.model).eval()
    with torch.no_grad():
        m.att_query.weight.zero_()
    return m


def _ids(tr, text: str) -> list[int]:
    return tr.loaded.src_vocab.encode(text) + [EOS]


def _text(tr, h) -> str:
    return tr.loaded.tgt_vocab.decode([t for t in h.tokens if t != EOS])


def test_a_repeat_is_found_only_when_it_starts_at_a_word():
    starts = frozenset({1, 5})
    assert repeat_ban([1, 2, 1], starts) == [(1, 2, (1,)), (2, 2, (2,))]  # "▁a b ▁a" + "▁a" or + "b"
    assert repeat_ban([7, 1, 1], starts) == [(1, 3, (1,))]                # a third "▁a"
    assert repeat_ban([1, 2, 2], starts) == []                  # "b b" inside a word ("Banana") is no repeat
    assert repeat_ban([5], starts, {5: (1, 5), 1: (1, 5)}) == [(1, 2, (1, 5))]  # "▁Ein" + "▁ein"


def test_a_word_cut_into_other_pieces_after_a_tag_is_still_a_repeat():
    """"<b>Ebene" is cut "E ben e" after the tag, "▁Ebene" after a space: the text repeats, not the ids."""
    words = WordKeys(["▁", "\ue001", "E", "ben", "e", "▁Ebene", "▁er", "stellen", "▁Haus"])
    starts = frozenset({0, 5, 6, 8})
    assert word_repeat_ban([1, 2, 3, 4], starts, words) == [(4, 2, (5,))]    # <b>Ebene + ▁Ebene
    assert word_repeat_ban([1, 2, 3, 4, 6], starts, words) == [(2, 2, (6,))]  # only "▁er" again, not "stellen"
    assert word_repeat_ban([8, 8], starts, words) == [(3, 3, (8,))]          # a third ▁Haus
    assert word_repeat_ban([1, 8, 1], starts, words) == []                   # a tag between: no repeat


def test_a_word_in_another_case_or_spelling_that_folds_alike_is_the_same_word():
    """"▁STRASSE ▁Straße", "ǅ ǆ": a repeat in any case is refused, the piece already folded included."""
    words = WordKeys(["▁Straße", "▁strasse", "▁STRASSE", "ǅ", "ǆ", "Ǆ", "▁the", ",", "▁Haus"])
    assert words.same == {0: (0, 1, 2), 1: (0, 1, 2), 2: (0, 1, 2), 3: (3, 4, 5), 4: (3, 4, 5), 5: (3, 4, 5)}
    starts = frozenset({0, 1, 2, 6, 8})
    assert repeat_ban([2], starts, words.same) == [(1, 2, (0, 1, 2))]
    assert words.ids["strasse"] == (0, 1, 2) and words.ids[","] == (7,)
    assert word_repeat_ban([2, 7, 1], starts, words)[0] == (4, 2, (7,))  # "▁STRASSE, ▁strasse" + ",": again


def test_the_source_runs_count_the_copies_in_a_row_around_each_piece():
    assert source_runs([4, 9, 9, 6]) == [1, 2, 2, 1]
    assert source_runs([4, 7, 8, 7, 8, 7, 8, 3]) == [1, 3, 3, 3, 3, 3, 3, 1]


def test_a_stuck_decoder_writes_a_word_again_and_again_without_the_rule(very_model, stuck):
    src, mask = pad_sources([_ids(very_model, "The small dog sees a cat.")])
    plain = _text(very_model, beam_search(stuck, src, mask, beam=3)[0])
    assert repeats(plain), plain


@pytest.mark.parametrize("beam,as_text", [(1, False), (3, False), (3, True)])
def test_the_rule_stops_the_stutter(very_model, stuck, beam, as_text):
    src, mask = pad_sources([_ids(very_model, "The small dog sees a cat.")])
    starts, _, words = very_model.forms.word_starts()  # the pieces as text (WordKeys), as the translator uses them
    same = words if as_text else words.same      # or the token ids up to case only: the same rule
    search = greedy if beam == 1 else beam_search
    h = search(stuck, src, mask, word_starts=starts, same_word=same, **({} if beam == 1 else {"beam": beam}))[0]
    assert not repeats(_text(very_model, h)), _text(very_model, h)


def test_a_word_written_after_a_tag_is_not_written_again_after_a_space(very_model, stuck):
    """"<guimenuitem>Ebene Ebene erstellen": the word after a tag is cut into other pieces than after
    a space ("s e h r" / "▁ s e h r" here), and the suggestion still must not write it twice where
    the source says it once (without the text check: "<b>sehr sehr groß Hund ...")."""
    tr = copy.copy(very_model)  # the translator's own search and word tables, on the stuck decoder
    tr.loaded = dataclasses.replace(very_model.loaded, model=stuck)
    out = tr.translate(["The very big dog sees a cat."], beam=3, prefixes=[tag_char(1) + "sehr"])[0].text
    assert out.startswith(tag_char(1) + "sehr"), out
    assert not repeats(out.replace(tag_char(1), " ")), out


def test_a_word_the_source_repeats_is_kept(very_model):
    out = very_model.translate([DOUBLE], beam=3)[0].text
    assert "sehr sehr" in out and "sehr sehr sehr" not in out, out
    assert not repeats(very_model.translate(["The very big dog sees a cat."], beam=3)[0].text)


def test_beam_greedy_and_the_reference_beam_apply_the_same_rule(very_model, stuck):
    starts, _, same = very_model.forms.word_starts()
    ids = _ids(very_model, "The small dog sees a cat.")
    src, mask = pad_sources([ids])
    assert greedy(stuck, src, mask, word_starts=starts, same_word=same)[0].tokens == \
        beam_search(stuck, src, mask, beam=1, word_starts=starts, same_word=same)[0].tokens
    ref = reference_beam(stuck, ids, beam=3, word_starts=starts, same_word=same)
    assert beam_search(stuck, src, mask, beam=3, word_starts=starts, same_word=same)[0].tokens == ref.tokens
