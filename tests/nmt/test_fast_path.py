"""Issue 46 item 3: translating faster changes no translation (weights packed once, the beam's
top-k in single precision) and the editor's shorter search still ends in a finished sentence."""
from __future__ import annotations

import pytest
import torch
from torch import nn

from engine.nmt import packed
from engine.nmt.translator import Translator

SENTENCES = ["the red cat sees the dog", "a big dog runs", "the small bird sings a song to the cat",
             "dogs and cats", "the cat runs to the big red house and the dog sees it"]


@pytest.fixture(scope="module")
def plain_translator(trained_model):
    real = packed.can_pack
    packed.can_pack = lambda: False
    try:
        tr = Translator.load(trained_model, threads=1)
    finally:
        packed.can_pack = real
    return tr


@pytest.mark.skipif(not packed.can_pack(), reason="this torch build has no oneDNN packed linear")
def test_packed_weights_translate_the_same_as_plain_ones(translator, plain_translator):
    assert any(isinstance(m, packed.PackedLinear) for m in translator.model.modules())
    assert not any(isinstance(m, packed.PackedLinear) for m in plain_translator.model.modules())
    for beam in (1, 5):
        fast = translator.translate(SENTENCES, beam=beam)
        slow = plain_translator.translate(SENTENCES, beam=beam)
        assert [r.text for r in fast] == [r.text for r in slow]
        assert [r.score for r in fast] == pytest.approx([r.score for r in slow], abs=1e-3)
    one = [translator.translate([s], beam=5)[0].text for s in SENTENCES]  # one row block, as the editor asks
    assert one == [r.text for r in plain_translator.translate(SENTENCES, beam=5)]


@pytest.mark.skipif(not packed.can_pack(), reason="this torch build has no oneDNN packed linear")
def test_a_packed_layer_keeps_its_parameters_and_still_learns():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 4), nn.Tanh(), nn.Linear(4, 3))
    keys = {k: v.clone() for k, v in model.state_dict().items()}
    x = torch.randn(5, 6)
    want = model(x).detach()
    assert packed.pack_linears(model) == 2
    assert {k: v for k, v in model.state_dict().items()}.keys() == keys.keys()
    with torch.inference_mode():
        assert torch.allclose(model(x), want, atol=1e-5)
    loss = model(x).sum()  # gradients on: the parameters themselves, not the packed copy
    loss.backward()
    assert model[0].weight.grad is not None and model[0].weight.grad.abs().sum() > 0


@pytest.mark.skipif(not packed.can_pack(), reason="this torch build has no oneDNN packed linear")
def test_a_packed_layer_follows_new_weights_and_copies():
    import copy

    torch.manual_seed(1)
    lin = nn.Linear(8, 5)
    model = nn.Sequential(lin)
    packed.pack_linears(model)
    x = torch.randn(3, 8)
    with torch.inference_mode():
        model(x)
    with torch.no_grad():
        model[0].weight.mul_(2.0)   # as load_state_dict writes
    twin = copy.deepcopy(model).double()
    with torch.inference_mode():
        assert torch.allclose(model(x), x @ model[0].weight.T + model[0].bias, atol=1e-5)
        assert torch.allclose(twin(x.double()), x.double() @ twin[0].weight.T + twin[0].bias, atol=1e-9)


@pytest.mark.skipif(not packed.can_pack(), reason="this torch build has no oneDNN packed linear")
def test_a_packed_gru_cell_steps_as_torchs_cell():
    import copy

    torch.manual_seed(2)
    model = nn.ModuleDict({"cell": nn.GRUCell(6, 4)})
    x, h = torch.randn(5, 6), torch.randn(5, 4)
    want = model["cell"](x, h).detach()
    keys = set(model.state_dict())
    assert packed.pack_linears(model) == 1
    assert isinstance(model["cell"], packed.PackedGRUCell) and set(model.state_dict()) == keys
    with torch.inference_mode():
        assert torch.allclose(model["cell"](x, h), want, atol=1e-6)
        assert torch.allclose(copy.deepcopy(model)["cell"](x, h), want, atol=1e-6)
    model["cell"](x, h).sum().backward()
    assert model["cell"].weight_hh.grad.abs().sum() > 0


def test_a_long_segment_is_suggested_with_a_smaller_beam_a_short_one_with_the_setting():
    from engine.nmt.editorbeam import LONG_BEAM, LONG_WORDS, suggestion_beam

    long = " ".join(["word"] * LONG_WORDS)
    assert suggestion_beam(long, 5) == LONG_BEAM < 5
    assert suggestion_beam("Click the button to save the file.", 5) == 5
    assert suggestion_beam(long, 1) == 1  # never wider than the editor's setting


def test_the_smaller_beam_of_a_long_segment_still_writes_a_finished_sentence(translator):
    from engine.nmt.editorbeam import suggestion_beam
    from engine.nmt.vocab import EOS

    long = " and ".join(SENTENCES)
    beam = suggestion_beam(long, 5)
    assert beam < 5
    res = translator.translate([long], beam=beam, split_long=0)[0]
    assert res.text.strip() and res.tokens[-1] in ("</s>", EOS)
    assert len(res.tokens) < 3 * len(translator.loaded.src_vocab.encode(long)) + 1  # ended by </s>, not the limit
