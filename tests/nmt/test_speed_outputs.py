"""Issue 37 item 4: the faster word alignment gives the same numbers as before, the kNN mixture at its
k tokens only the same translations (its log-probabilities equal up to float rounding: torch's
vectorised and scalar log differ in the last bit)."""
from __future__ import annotations

import math
import random
import types

import pytest
import torch

from engine.nmt.build import build_model
from engine.nmt.config import ModelConfig
from engine.nmt.data import pad_sources
from engine.nmt.decoder_types import StepOutput
from engine.nmt.knn import KnnInput, KnnMemory, KnnSettings, knn_source
from engine.nmt.pairs import pack_memory
from engine.nmt.search import beam_search
from engine.nmt.results import aggregate
from engine.nmt.vocab import EOS


def pairwise_aggregate(matrix, tgt_spans, src_spans):
    """The word alignment as it was computed: one mean and one sum per (target word, source word)."""
    out = torch.zeros(len(tgt_spans), len(src_spans))
    for i, (a, b) in enumerate(tgt_spans):
        rows = matrix[a:b].float().mean(0)
        for j, (c, d) in enumerate(src_spans):
            out[i, j] = rows[c:d].sum()
    return out


def dense_fuse(self, enc, out, log_probs):
    """The kNN mixture as it was computed: p_kNN and its log over the whole vocabulary."""
    mem = enc.extras.get("knn")
    if mem is None or mem["settings"] is None:
        return log_probs
    s = mem["settings"]
    d = self.distances(mem, out.readout)
    dk, ik = d.topk(min(s.k, d.size(1)), dim=-1, largest=False)
    lam = (1.0 - dk[:, :1] / s.t_lambda).clamp(min=0.0)
    w = torch.softmax(-dk / s.temperature, dim=-1).nan_to_num(0.0)
    tok = mem["tokens"].gather(1, ik)
    out.extras["knn"] = {"lam": lam, "w": w, "tok": tok, "slot": ik}
    if not bool((lam > 0).any()):
        return log_probs
    lp = log_probs.float()
    p_knn = torch.zeros_like(lp).scatter_add_(1, tok, w)
    lam = lam.to(lp.dtype)
    mixed = torch.logaddexp(lp + torch.log1p(-lam), torch.log(lam * p_knn))
    return torch.where(lam > 0, mixed, lp).to(log_probs.dtype)


def spans(n: int, rng: random.Random) -> list[tuple[int, int]]:
    cuts = sorted(rng.sample(range(1, n), rng.randint(1, n - 1)))
    edges = [0, *cuts, n]
    return list(zip(edges, edges[1:]))


@pytest.mark.parametrize("seed", range(5))
def test_the_word_alignment_is_the_same_number_for_number(seed):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    T, S = rng.randint(2, 40), rng.randint(2, 60)
    attn = torch.softmax(torch.randn(T, S), -1).half() if seed % 2 else torch.softmax(torch.randn(T, S), -1)
    t_spans, s_spans = spans(T, rng), spans(S, rng)
    assert torch.equal(aggregate(attn, t_spans, s_spans), pairwise_aggregate(attn, t_spans, s_spans))
    assert aggregate(attn, [], s_spans).shape == (0, len(s_spans))


@pytest.mark.parametrize("k", [1, 3])
def test_the_knn_mixture_is_the_same_up_to_float_rounding(k):
    torch.manual_seed(k)
    B, N, R, V = 6, 9, 8, 50
    keys = torch.randn(B, N, R)
    tokens = torch.randint(4, 12, (B, N))                   # few distinct tokens: the k nearest repeat some
    mask = torch.ones(B, N, dtype=torch.bool)
    mask[1, 4:] = False                                    # a sentence with fewer slots
    query = keys[:, 0] + 0.05 * torch.randn(B, R)          # near its first slot...
    query[2] += 100.0                                      # ...but one far from every slot (lambda 0)
    mem = {"keys": keys, "tokens": tokens, "mask": mask,
           "settings": KnnSettings(t_lambda=float(R), k=k)}
    enc = types.SimpleNamespace(extras={"knn": mem})
    log_probs = torch.log_softmax(torch.randn(B, V), -1)
    log_probs[0, 5] = -math.inf                            # a token the search has banned
    src = KnnMemory(torch.nn.Linear(1, 1))
    new = KnnMemory.fuse_output(src, enc, StepOutput(None, None, None, None, None, readout=query), log_probs)
    old = dense_fuse(src, enc, StepOutput(None, None, None, None, None, readout=query), log_probs)
    assert torch.equal(new.isinf(), old.isinf())
    torch.testing.assert_close(new, old, rtol=0, atol=1e-6)
    assert not torch.equal(new, log_probs)                # the memory is not a no-op here


def test_a_beam_reading_pairs_writes_the_same_translation_and_scores():
    torch.manual_seed(0)
    cfg = ModelConfig(emb_dim=16, hidden=24, src_vocab=40, tgt_vocab=40, dropout=0.0, emb_dropout=0.0,
                      context_gate="both")
    m = build_model(cfg).eval()
    srcs = [[5, 6, 7, 8, 9, EOS], [10, 11, 12, EOS]]
    pairs = [[([5, 6, 30, EOS], [23, 24, 25, 26, EOS]), (srcs[0], [21, 33, 22, 35, EOS])],
             [([10, 31, EOS], [26, 27, EOS])]]
    src, mask = pad_sources(srcs)
    knn = {"knn": KnnInput(pack_memory(pairs, with_eos=True), KnnSettings(t_lambda=50.0, k=2))}
    mem = knn_source(m)
    with torch.inference_mode():
        new = beam_search(m, src, mask, beam=4, **knn)
        mem.fuse_output = types.MethodType(dense_fuse, mem)
        old = beam_search(m, src, mask, beam=4, **knn)
    assert [h.tokens for h in new] == [h.tokens for h in old]
    assert [h.score for h in new] == pytest.approx([h.score for h in old], rel=0, abs=1e-5)
    assert all(torch.equal(a.copy, b.copy) for a, b in zip(new, old))
