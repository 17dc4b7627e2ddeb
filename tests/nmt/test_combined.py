"""One model with every knob of the seeds at once: context gates (001), document context (002),
bridging (003) and the translation memory (004) -- the issues say they combine."""
from __future__ import annotations

import torch

from engine.nmt.build import build_model
from engine.nmt.config import ModelConfig
from engine.nmt.data import pad_sources
from engine.nmt.doccontext import ContextTable, DocBatch, find_doc_context
from engine.nmt.memory import memory_source
from engine.nmt.pairs import pack_memory
from engine.nmt.model import RNNSearch
from engine.nmt.search import beam_search, greedy
from engine.nmt.vocab import BOS, EOS, PAD

V = 40
STRATEGIES = ["init-enc", "init-dec", "gated-aux"]


def make(**kw) -> RNNSearch:
    torch.manual_seed(0)
    cfg = ModelConfig(emb_dim=16, hidden=24, src_vocab=V, tgt_vocab=V, dropout=0.0, emb_dropout=0.0,
                      context_gate="both", bridging=["source"], memory="shallow", memory_gate_bias=2.0,
                      doc_context=STRATEGIES, **kw)
    return build_model(cfg).eval()


def twin(m: RNNSearch, **off) -> RNNSearch:
    """The same weights with some sources switched off (``memory="none"``, ``doc_context=[]``)."""
    p = build_model(ModelConfig(**{**m.cfg.__dict__, **off})).eval()
    missing, _ = p.load_state_dict(m.state_dict(), strict=False)
    assert not missing
    return p


SRC = [[5, 6, 7, 8, EOS], [9, 10, 11, EOS]]
PAIRS = [[([5, 6, 7, EOS], [12, 13, 30, EOS]), ([5, 20, EOS], [31, 13, EOS])], [([9, 10, EOS], [16, 32, EOS])]]
CONTEXT = ContextTable({0: [21, 22, 23, EOS], 1: [24, 25, EOS], 2: [26, 27, 28, 29, EOS]}, [[0, 1], [2]], 3)


def batch():
    src, mask = pad_sources(SRC)
    tgt_in = torch.tensor([[BOS, 12, 13, 14, 15], [BOS, 16, 17, 18, PAD]])
    return src, mask, tgt_in


def test_without_pairs_and_at_a_document_start_the_model_is_its_sentence_level_network():
    m = make()
    plain = twin(m, memory="none", doc_context=[])
    src, mask, tgt_in = batch()
    empty = DocBatch(torch.full((2, 1), -1), *pad_sources([[EOS]]))
    with torch.no_grad():
        a = m(src, mask, tgt_in, doc=empty, memory=pack_memory([[], []]))
        b = plain(src, mask, tgt_in)
    got = a["log_probs"] if "log_probs" in a else torch.log_softmax(a["logits"], -1)
    want = torch.log_softmax(b["logits"], -1)
    assert torch.allclose(got, want, atol=1e-5)
    hm = beam_search(m, src, mask, beam=3, doc=empty)
    hp = beam_search(plain, src, mask, beam=3)
    assert [h.tokens for h in hm] == [h.tokens for h in hp]


def test_memory_and_context_each_change_the_prediction_and_together_differ_from_either():
    m = make()
    src, mask, tgt_in = batch()
    mem, doc = pack_memory(PAIRS), CONTEXT.batch([0, 1])
    with torch.no_grad():
        runs = {name: m(src, mask, tgt_in, **kw)["log_probs"] for name, kw in {
            "none": {}, "memory": {"memory": mem}, "context": {"doc": doc},
            "both": {"memory": mem, "doc": doc}}.items()}
    names = list(runs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert (runs[a] - runs[b]).abs().max() > 1e-4, f"{a} and {b} predict the same"
    assert torch.allclose(runs["both"].exp().sum(-1), torch.ones(2, 5), atol=1e-4)  # still distributions


def test_both_sources_train_and_the_search_reports_what_came_from_memory():
    m = make().train()
    src, mask, tgt_in = batch()
    out = m(src, mask, tgt_in, memory=pack_memory(PAIRS), doc=CONTEXT.batch([0, 1]))
    out["log_probs"].masked_fill(~torch.isfinite(out["log_probs"]), 0).sum().backward()
    for source in (memory_source(m), find_doc_context(m)):
        grads = [p.grad for p in source.parameters() if p.requires_grad]
        assert grads and any(g is not None and g.abs().sum() > 0 for g in grads)
    m.eval()
    for search in (beam_search, greedy):
        hyps = search(m, src, mask, memory=pack_memory(PAIRS), doc=CONTEXT.batch([0, 1]))
        for h, pairs in zip(hyps, PAIRS):
            assert h.copy is not None and h.copy.shape == (len(h.tokens), 4)
            weight, zeta, pair, pos = h.copy.unbind(-1)
            assert ((0 <= weight) & (weight <= zeta + 1e-6) & (zeta <= 1)).all()
            copied = 0
            for tok, w, j, t in zip(h.tokens, weight.tolist(), pair.long().tolist(), pos.long().tolist()):
                if w > 0:  # reported as copied: from this sentence's own memory, the very token at that slot
                    assert pairs[j][1][t] == tok
                    copied += 1
                else:
                    assert j == t == -1
            assert copied  # with the gate open (bias 2) this model copies
