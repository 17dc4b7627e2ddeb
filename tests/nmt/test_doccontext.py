"""Cross-sentence context (issue 7): documents, the hierarchical summary, its cache, the strategies."""
from __future__ import annotations

import pytest
import torch

from engine.errors import ConfigError, FormatError
from engine.nmt.build import build_model
from engine.nmt.config import ExperimentConfig, ModelConfig
from engine.nmt.data import pad_sources
from engine.nmt.doccontext import ContextTable, DocBatch, SummaryCache, find_doc_context
from engine.nmt.documents import context_indices, context_texts, layout, parallel_layout
from engine.nmt.model import RNNSearch
from engine.nmt.search import beam_search, greedy
from engine.nmt.vocab import EOS

torch.set_num_threads(1)
V = 40
ALL = [["init-enc"], ["init-dec"], ["aux"], ["gated-aux"], ["init-enc", "init-dec", "gated-aux"]]


# ------------------------------------------------------------------ documents
def test_first_sentence_of_a_document_has_an_empty_context():
    ids = ["a", "a", "a", "b", "b", "c"]
    ctx = context_indices(ids, 3)
    assert ctx[0] == [] and ctx[3] == [] and ctx[5] == []
    assert ctx[1] == [0] and ctx[2] == [0, 1] and ctx[4] == [3]


def test_sentences_of_another_document_never_leak_into_the_context():
    texts = [f"s{i}" for i in range(9)]
    ids = ["a"] * 4 + ["b"] * 3 + ["a"] * 2  # a third document reuses the id "a" after "b"
    for i, ctx in enumerate(context_texts(texts, ids, 3)):
        start = max(j for j in range(i + 1) if j == 0 or ids[j] != ids[j - 1])
        assert all(start <= int(c[1:]) < i for c in ctx)
    assert context_texts(texts, ids, 3)[7] == []  # the id "a" again is a new document


def test_context_keeps_the_last_k_previous_non_empty_sentences_oldest_first():
    texts = ["one", "", "two", "three", "four"]
    assert context_texts(texts, ["d"] * 5, 2)[4] == ["two", "three"]
    assert context_texts(texts, ["d"] * 5, 3)[2] == ["one"]  # the empty line is no context


def test_marker_lines_start_documents_and_come_back_in_the_output():
    lay = layout(["<d>", "a1", "a2", "<d>", "b1"])
    assert lay.sentences == ["a1", "a2", "b1"]
    assert lay.contexts(3) == [[], [0], []]
    assert lay.restore(["A1", "A2", "B1"]) == ["<d>", "A1", "A2", "<d>", "B1"]


def test_a_plain_file_is_read_as_it_is():
    lines = ["x", "<d>", "y"]  # not marked: the first line is no marker
    lay = layout(lines)
    assert lay.sentences == lines and lay.marker_lines == []
    assert lay.contexts(3) == [[], [], []]  # without document information every line stands alone


def test_marker_lines_must_agree_on_both_sides(tmp_path):
    with pytest.raises(FormatError, match="line 4"):
        parallel_layout(["<d>", "a", "b", "<d>", "c"], ["<d>", "A", "B", "C", "<d>"],
                        src_path="s.en", tgt_path="t.de")
    lay, tgt = parallel_layout(["<d>", "a", "<d>", "b"], ["<d>", "A", "<d>", "B"])
    assert tgt == ["A", "B"] and lay.doc_ids == ["1", "2"]


def test_a_document_id_file_must_have_one_line_per_sentence(tmp_path):
    docs = tmp_path / "x.doc"
    docs.write_text("a\na\n", encoding="utf-8")
    with pytest.raises(FormatError, match="x.doc.*2 document ids.*3"):
        layout(["1", "2", "3"], docs=docs, path="x.en")


def test_unknown_or_conflicting_strategies_are_refused():
    with pytest.raises(ConfigError, match="unknown strategy"):
        ExperimentConfig.from_dict({"model": {"doc_context": ["init"]}})
    with pytest.raises(ConfigError, match="exclude each other"):
        ExperimentConfig.from_dict({"model": {"doc_context": ["aux", "gated-aux"]}})
    with pytest.raises(ConfigError, match="doc_k"):
        ExperimentConfig.from_dict({"model": {"doc_context": ["aux"], "doc_k": 0}})


# ------------------------------------------------------------------ the model
def make(strategies, **kw) -> RNNSearch:
    torch.manual_seed(0)
    cfg = ModelConfig(emb_dim=12, hidden=16, src_vocab=V, tgt_vocab=V, dropout=0.0, emb_dropout=0.0,
                      doc_context=list(strategies), **kw)
    return build_model(cfg).eval()


def rand_ids(n: int, seed: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(4, V, (int(torch.randint(3, 9, (1,), generator=g)),), generator=g).tolist() + [EOS]
            for _ in range(n)]


def test_a_batch_summarises_each_context_sentence_once():
    sents = {j: ids for j, ids in enumerate(rand_ids(6, 1))}
    contexts = [[], [0], [0, 1], [0, 1, 2], [1, 2, 3], [], [5]]
    table = ContextTable(sents, contexts, 3)
    db = table.batch([2, 3, 4, 6])
    assert db.unique_sentences == 5  # 0, 1, 2, 3, 5: not 2 + 3 + 3 + 1 = 9
    assert db.index.shape == (4, 3)
    expected = [[0, 1], [0, 1, 2], [1, 2, 3], [5]]
    for row, want in zip(db.index.tolist(), expected):
        got = [db.sents[j][db.sents_mask[j]].tolist() for j in row if j >= 0]
        assert got == [sents[c] for c in want]  # the right sentences, oldest first


@pytest.mark.parametrize("strategies", ALL, ids=["+".join(s) for s in ALL])
def test_an_empty_context_adds_exactly_nothing(strategies):
    """At a document start the model is the same network without document context."""
    m = make(strategies, context_gate="both")
    plain = build_model(ModelConfig(**{**m.cfg.__dict__, "doc_context": []})).eval()
    missing, unexpected = plain.load_state_dict(m.state_dict(), strict=False)
    assert not missing and all(k.startswith("context_sources.") for k in unexpected)
    src, mask = pad_sources(rand_ids(3, 2))
    tgt = torch.randint(4, V, (3, 5))
    empty = DocBatch(torch.full((3, 1), -1), *pad_sources([[EOS]]))
    with torch.no_grad():
        a = m(src, mask, tgt, doc=empty)["logits"]
        b = plain(src, mask, tgt)["logits"]
        c = m(src, mask, tgt)["logits"]  # no context given at all
    assert torch.allclose(a, b, atol=1e-6) and torch.equal(a, c)


@pytest.mark.parametrize("strategies", ALL, ids=["+".join(s) for s in ALL])
def test_the_context_changes_the_output_and_every_part_gets_a_gradient(strategies):
    m = make(strategies).train()
    src, mask = pad_sources(rand_ids(2, 3))
    tgt = torch.randint(4, V, (2, 5))
    table = ContextTable(dict(enumerate(rand_ids(3, 4))), [[0, 1], [2]], 3)
    out = m(src, mask, tgt, doc=table.batch([0, 1]))["logits"]
    out.sum().backward()
    dc = find_doc_context(m)
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in dc.parameters() if p.requires_grad)
    assert not any(p.requires_grad for n, p in dc.named_parameters() if "rnn.bias" in n)  # bias-free GRUs
    assert m.src_emb.weight.grad is not None
    with torch.no_grad():
        other = ContextTable(dict(enumerate(rand_ids(3, 5))), [[0, 1], [2]], 3)
        assert not torch.allclose(out, m(src, mask, tgt, doc=other.batch([0, 1]))["logits"])


class _Vocab:
    """Stands in for a SubwordVocab: 'word word' -> ids from a fixed table."""

    def encode_batch(self, texts):
        return [[4 + (sum(map(ord, w)) % (V - 4)) for w in t.split()] for t in texts]


def test_cached_context_equals_the_recomputed_one():
    m = make(["init-enc", "init-dec", "gated-aux"])
    dc = find_doc_context(m)
    vocab = _Vocab()
    doc = ["the first one", "a second sentence here", "third", "and a fourth one", "fifth at last"]
    contexts = context_texts(doc, ["d"] * len(doc), 3)
    cache = SummaryCache(dc, vocab)
    src, mask = pad_sources([ids + [EOS] for ids in vocab.encode_batch(doc)])
    cached = cache.doc_batch(contexts, "cpu")
    # recomputed: every context sentence summarised afresh, inside the forward pass
    table = ContextTable({j: ids + [EOS] for j, ids in enumerate(vocab.encode_batch(doc))},
                         context_indices(["d"] * len(doc), 3), 3)
    fresh = table.batch(list(range(len(doc))))
    with torch.no_grad():
        d_cached = dc.document(cached.summaries, cached.index)
        d_fresh = dc.context_vector(fresh, len(doc), "cpu")
    assert torch.allclose(d_cached, d_fresh, atol=1e-6)
    h1 = beam_search(m, src, mask, beam=3, doc=cached)
    h2 = beam_search(m, src, mask, beam=3, doc=fresh)
    assert [h.tokens for h in h1] == [h.tokens for h in h2]
    assert cache.computed == 4  # the last sentence is nobody's context; each other one summarised once
    cache.doc_batch(contexts[2:], "cpu")  # translating part of the document again computes nothing
    assert cache.computed == 4


def test_greedy_and_beam_agree_with_context():
    m = make(["aux"])
    src, mask = pad_sources(rand_ids(3, 6))
    db = ContextTable(dict(enumerate(rand_ids(2, 7))), [[0], [0, 1], []], 3).batch([0, 1, 2])
    g = greedy(m, src, mask, doc=db)
    b = beam_search(m, src, mask, beam=1, doc=db)
    assert [h.tokens for h in g] == [h.tokens for h in b]


def test_a_model_without_document_context_is_unchanged():
    m = make([])
    assert find_doc_context(m) is None
    assert not any(k.startswith("context_sources.") for k in m.state_dict())
    assert "logits" in m(*pad_sources(rand_ids(2, 8)), torch.randint(4, V, (2, 4)))


def test_window_batches_share_context_summaries_and_cover_every_sentence_once():
    from engine.nmt.data import Example, make_batches
    from engine.nmt.doccontext import window_batches

    ids = ["a"] * 30 + ["b"] * 30
    ex = [Example([5] * (3 + i % 7) + [EOS], [6] * (2 + i % 5) + [EOS], i) for i in range(60)]
    table = ContextTable({i: [5, EOS] for i in range(60)}, context_indices(ids, 3), 3)
    win = window_batches(ex, 80, seed=1, epoch=0)
    assert sorted(e.index for b in win for e in b) == list(range(60))
    assert win != window_batches(ex, 80, seed=1, epoch=1)  # a new order each epoch
    reads = sum(table.batch([e.index for e in b]).unique_sentences for b in win)
    length = sum(table.batch([e.index for e in b]).unique_sentences for b in make_batches(ex, 80, seed=1))
    assert reads < length  # consecutive sentences share their previous sentences


@pytest.mark.parametrize("strategies", ALL, ids=["+".join(s) for s in ALL])
def test_a_silenced_context_model_translates_as_its_baseline_whatever_the_context(strategies):
    """train.context_only starts here: the projections of D at zero, so a real context changes nothing yet."""
    m = make(strategies, context_gate="both")
    find_doc_context(m).silence()
    plain = build_model(ModelConfig(**{**m.cfg.__dict__, "doc_context": []})).eval()
    plain.load_state_dict(m.state_dict(), strict=False)
    src, mask = pad_sources(rand_ids(2, 3))
    tgt = torch.randint(4, V, (2, 5))
    table = ContextTable(dict(enumerate(rand_ids(3, 4))), [[0, 1], [2]], 3)
    with torch.no_grad():
        assert torch.allclose(m(src, mask, tgt, doc=table.batch([0, 1]))["logits"], plain(src, mask, tgt)["logits"],
                              atol=1e-6)


def test_context_only_needs_a_context_model_and_a_baseline():
    with pytest.raises(ConfigError, match="context_only needs"):
        ExperimentConfig.from_dict({"train": {"context_only": True, "init_from": "base"}})
    with pytest.raises(ConfigError, match="context_only needs"):
        ExperimentConfig.from_dict({"model": {"doc_context": ["aux"]}, "train": {"context_only": True}})
    with pytest.raises(ConfigError, match="memory_only needs"):
        ExperimentConfig.from_dict({"train": {"memory_only": True, "init_from": "base"}})
