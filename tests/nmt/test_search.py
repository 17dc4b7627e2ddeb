import copy

import pytest
import torch

from engine.nmt.data import pad_sources, read_lines
from engine.nmt.search import Stopped, beam_search, greedy, reference_beam
from engine.nmt.vocab import EOS


@pytest.fixture(scope="module")
def model64(translator):
    """The trained toy model in float64, so that batched and one-by-one arithmetic cannot flip a ranking."""
    return copy.deepcopy(translator.loaded.model).double().eval()


@pytest.fixture(scope="module")
def sources(translator, toy_corpus):
    sv = translator.loaded.src_vocab
    lines = read_lines(toy_corpus["dev_en"])[:8]
    return [sv.encode(s) + [EOS] for s in lines]


def test_beam_of_one_is_greedy(model64, sources):
    src, mask = pad_sources(sources)
    g = greedy(model64, src, mask)
    b = beam_search(model64, src, mask, beam=1)
    for x, y in zip(g, b):
        assert x.tokens == y.tokens
        assert x.score == pytest.approx(y.score, abs=1e-9)
        assert torch.allclose(x.attn, y.attn) and torch.allclose(x.gates, y.gates)


@pytest.mark.parametrize("beam", [2, 5])
def test_batched_beam_equals_reference_beam(model64, sources, beam):
    src, mask = pad_sources(sources)
    batched = beam_search(model64, src, mask, beam=beam)
    for ids, h in zip(sources, batched):
        ref = reference_beam(model64, ids, beam=beam)
        assert h.tokens == ref.tokens
        assert h.norm_score == pytest.approx(ref.norm_score, abs=1e-9)
        assert torch.allclose(h.attn, ref.attn, atol=1e-6)
        assert h.attn.shape == (len(h.tokens), len(ids))


def test_output_length_is_bounded_by_three_times_the_source(model64, sources):
    src, mask = pad_sources(sources[:3])
    with torch.no_grad():  # make </s> nearly impossible: the length limit must stop the search
        model64.out_proj.bias[EOS] -= 1e4
    try:
        for ids, h in zip(sources, beam_search(model64, src, mask, beam=3, max_ratio=1.5)):
            assert len(h.tokens) <= int(1.5 * len(ids)) + 1 and h.tokens[-1] == EOS
    finally:
        with torch.no_grad():
            model64.out_proj.bias[EOS] += 1e4


def test_prefix_constrained_completion(translator, toy_corpus):
    src = read_lines(toy_corpus["dev_en"])[:3]
    free = translator.translate(src, beam=3)
    # force an unlikely start: the completion keeps it and goes on translating
    prefixes = ["Ein Baum", "", "Der Hund"]
    out = translator.translate(src, beam=3, prefixes=prefixes)
    assert out[0].text.startswith("Ein Baum") and len(out[0].text) > len("Ein Baum")
    assert out[1].text == free[1].text
    assert out[2].text.startswith("Der Hund")
    greedy_out = translator.translate(src, beam=1, prefixes=prefixes)
    assert greedy_out[0].text.startswith("Ein Baum")


@pytest.mark.parametrize("beam", [1, 5])
def test_a_search_told_to_stop_ends_within_a_step(model64, sources, beam):
    """The editor cancels a suggestion whose segment the translator has left: the search must end at
    once (after the steps already taken), not finish the sentence nobody waits for."""
    src, mask = pad_sources(sources[:2])
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3  # three steps, then "stop"

    search = greedy if beam == 1 else beam_search
    with pytest.raises(Stopped):
        search(model64, src, mask, stop=stop, **({} if beam == 1 else {"beam": beam}))
    assert len(asked) == 4  # asked once a step: no step after it said stop


def test_the_translator_passes_stop_to_every_search(translator, toy_corpus):
    from engine.nmt.translator import TranslationRequest

    src = read_lines(toy_corpus["dev_en"])[0]
    with pytest.raises(Stopped):
        translator.suggest(TranslationRequest(src), beam=3, stop=lambda: True)
    with pytest.raises(Stopped):
        translator.translate([src], beam=1, stop=lambda: True)
    assert translator.suggest(TranslationRequest(src), beam=3, stop=lambda: False).text  # never told: a translation
