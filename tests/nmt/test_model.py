import pytest
import torch

from engine.nmt.build import build_model
from engine.nmt.config import ModelConfig
from engine.nmt.model import RNNSearch, count_parameters
from engine.nmt.vocab import BOS, EOS, PAD

V = 40


def make(**kw) -> RNNSearch:
    torch.manual_seed(0)
    cfg = ModelConfig(emb_dim=16, hidden=24, src_vocab=V, tgt_vocab=V, dropout=0.0, emb_dropout=0.0, **kw)
    return build_model(cfg).eval()


def batch():
    g = torch.Generator().manual_seed(1)
    src = torch.randint(4, V, (3, 7), generator=g)
    src[1, 5:] = PAD
    src[2, 3:] = PAD
    src[0, 6] = src[1, 4] = src[2, 2] = EOS
    tgt = torch.randint(4, V, (3, 5), generator=g)
    tgt[:, 0] = BOS
    return src, src != PAD, tgt


@pytest.mark.parametrize("kw", [
    {}, {"cell": "tanh"}, {"context_gate": "both"}, {"context_gate": "source", "cell": "tanh"},
    {"context_gate": "target", "readout": "tanh", "tie": "none"},
    {"bridging": ["source"]}, {"bridging": ["target"]}, {"bridging": ["source", "target", "direct"],
                                                         "context_gate": "both", "tie": "all"},
])
def test_shapes_and_attention_masks(kw):
    m = make(**kw)
    src, mask, tgt = batch()
    res = m(src, mask, tgt, tgt_out=tgt)
    assert res["logits"].shape == (3, 5, V)
    attn = res["attn"]
    assert attn.shape == (3, 5, 7)
    assert torch.allclose(attn.sum(-1), torch.ones(3, 5), atol=1e-5)
    assert (attn[1, :, 5:] == 0).all() and (attn[2, :, 3:] == 0).all()  # padding gets no attention
    if kw.get("context_gate", "none") == "none":
        assert res["gates"] is None
    else:
        g = res["gates"]
        assert g.shape == (3, 5, 24) and (g > 0).all() and (g < 1).all()
    assert ("bridge_loss" in res) == ("direct" in kw.get("bridging", []))


def test_padding_does_not_change_a_sentence():
    m = make(context_gate="both", bridging=["source", "target"])
    src, mask, tgt = batch()
    full = m(src, mask, tgt)["logits"][2]
    alone = m(src[2:3, :3], mask[2:3, :3], tgt[2:3])["logits"][0]
    assert torch.allclose(full, alone, atol=1e-5)


def test_gates_change_the_output_and_their_values_matter():
    src, mask, tgt = batch()
    plain = make()
    gated = make(context_gate="both")
    assert count_parameters(gated) > count_parameters(plain)
    out1 = gated(src, mask, tgt)["logits"]
    with torch.no_grad():  # push the gate towards "source only": the distribution changes
        gated.gate_lin.bias.fill_(8.0)
    res = gated(src, mask, tgt)
    assert res["gates"].min() > 0.9
    assert not torch.allclose(out1, res["logits"], atol=1e-3)


def test_source_bridging_widens_the_annotations():
    m = make(bridging=["source"])
    assert m.ann_dim == 2 * 24 + 16
    src, mask, tgt = batch()
    enc = m.encode(src, mask)
    # the last E features of each annotation are the source word embeddings
    assert torch.allclose(enc.ann[..., 48:], m.src_emb(src))


def _bridge_losses(weight: float, steps: int = 40) -> list[float]:
    torch.manual_seed(0)
    m = make(bridging=["direct"])
    m.train()
    src, mask, tgt = batch()
    tgt_out = torch.cat([tgt[:, 1:], torch.full((3, 1), EOS)], 1)
    opt = torch.optim.Adam(m.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        res = m(src, mask, tgt, tgt_out=tgt_out)
        nll = torch.nn.functional.cross_entropy(res["logits"].reshape(-1, V), tgt_out.reshape(-1))
        losses.append(res["bridge_loss"].item())
        opt.zero_grad()
        (nll + weight * res["bridge_loss"]).backward()
        opt.step()
    return losses


def test_direct_bridging_loss_decreases_with_training():
    with_aux = _bridge_losses(1.0)
    without = _bridge_losses(0.0)
    assert with_aux[-1] < 0.6 * with_aux[0]
    assert with_aux[-1] < 0.6 * without[-1]  # it is the auxiliary loss that pulls embeddings together


def test_vanilla_decoder_has_fewer_parameters_than_gru():
    assert count_parameters(make(cell="tanh")) < count_parameters(make(cell="gru"))
