"""Cross-sentence context (Wang, Tu, Way, Liu 2017): a hierarchical summary of the previous sentences.

For a sentence x_m with previous sentences C = {x_{m-K}, ..., x_{m-1}} of the
same document (fewer, or none, at a document start)::

    sentence RNN   h_{n,k} = GRU_s(h_{n-1,k}, e(x_{n,k}))      S_k = h_{N,k}   (last state)
    document RNN   h_k     = GRU_d(h_{k-1}, S_k)               D   = h_K + b   (D = 0 when C is empty)

D is used by any combination of the paper's strategies (``model.doc_context``)::

    init-enc   the bi-GRU encoder starts from tanh(W_E D) instead of zeros
    init-dec   s_0 = tanh(W_s mean_j h_j + W_D D)                (the base model's s_0 plus W_D D)
    aux        D is an extra input of every decoder update: C_D D is added to the
               source-side pre-activations (reset, update, candidate) like c_i
    gated-aux  the same with a context gate over D:
               z_i = sigmoid(W_z e(y_{i-1}) + U_z s_{i-1} + C_z c_i)  (dimension of D),
               input C_D (z_i o D)

Every projection of D has no bias, so an empty context (D = 0) adds exactly
nothing: the first sentence of a document is translated as by the same
network without context.  With a context, D = h_K + b, where b is a learned
"there is a context" vector, and the two GRUs have no bias terms: with
biases, training drove them into saturation within a few dozen steps (on the
toy corpus of the tests), turning D into a constant that says only "this is
not a document start", and the model never learned to read the sentences.  The strategies combine with context gates,
bridging and the TM memory (they use separate hooks of
:class:`~engine.nmt.decoder_types.ContextSource`).

Efficiency: a batch carries each context sentence once (:class:`DocBatch`:
unique sentences plus a (B, K) index), so its summary S_k is computed once
and shared by the up to K sentences that follow it; the translator keeps the
summaries of a document's sentences in :class:`SummaryCache`, so a sentence
is summarised once however many sentences after it are translated.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence

from engine.nmt.data import pad_sources
from engine.nmt.decoder_types import ContextSource, DecoderState, EncoderOutput
from engine.nmt.vocab import EOS, SubwordVocab


# ------------------------------------------------------------------ batch input
@dataclass
class DocBatch:
    """Context of a batch of B sentences.

    ``index`` (B, K) long: per sentence the rows of its context sentences,
    oldest first, ``-1`` for none.  The rows are either ``sents`` (N, L)
    token ids with ``sents_mask`` (N, L) -- summarised in the forward pass,
    with gradients -- or ``summaries`` (N, Hs) computed before (a cache).
    """

    index: Tensor
    sents: Tensor | None = None
    sents_mask: Tensor | None = None
    summaries: Tensor | None = None

    def to(self, device) -> "DocBatch":
        mv = (lambda t: t.to(device) if t is not None else None)
        return DocBatch(self.index.to(device), mv(self.sents), mv(self.sents_mask), mv(self.summaries))

    @property
    def unique_sentences(self) -> int:
        """Number of context sentences summarised for this batch."""
        t = self.sents if self.sents is not None else self.summaries
        return 0 if t is None else int(t.size(0))


def _index_matrix(contexts: list[list[int]], k: int) -> Tensor:
    """(B, K) rows, oldest first, -1 padded; only the last ``k`` of each list."""
    K = max(1, min(k, max((len(c) for c in contexts), default=0)))
    idx = torch.full((len(contexts), K), -1, dtype=torch.long)
    for b, c in enumerate(contexts):
        c = c[-k:] if k else []
        if c:
            idx[b, :len(c)] = torch.tensor(c, dtype=torch.long)
    return idx


class ContextTable:
    """Context of every sentence of a corpus, ready to be cut into :class:`DocBatch` es.

    ``sent_ids``: per corpus sentence its subword ids ending in ``</s>`` (only
    for sentences that are someone's context); ``contexts``: per sentence the
    corpus indices of its previous sentences (oldest first).
    """

    def __init__(self, sent_ids: dict[int, list[int]], contexts: list[list[int]], k: int):
        self.sent_ids = sent_ids
        self.contexts = contexts
        self.k = k

    @classmethod
    def build(cls, lines: list[str], contexts: list[list[int]], vocab: SubwordVocab, k: int,
              max_len: int = 0) -> "ContextTable":
        """Encode the sentences that serve as context (cut to ``max_len`` pieces)."""
        needed = sorted({j for c in contexts for j in c[-k:]})
        enc = vocab.encode_batch([lines[j] for j in needed]) if needed else []
        ids = {}
        for j, e in zip(needed, enc):
            if max_len and len(e) >= max_len:
                e = e[:max_len - 1]
            ids[j] = e + [EOS]
        return cls(ids, contexts, k)

    def batch(self, rows: list[int]) -> DocBatch:
        """DocBatch of the sentences ``rows`` (corpus indices); each context
        sentence appears once however many of the rows it precedes."""
        uniq: dict[int, int] = {}
        local = []
        for r in rows:
            local.append([uniq.setdefault(j, len(uniq)) for j in self.contexts[r][-self.k:]])
        seqs = [self.sent_ids[j] for j in uniq] or [[EOS]]  # never empty: every parameter gets a gradient
        sents, mask = pad_sources(seqs)
        return DocBatch(_index_matrix(local, self.k), sents, mask)


# ------------------------------------------------------------------ the context source
class DocContext(ContextSource):
    """Hierarchical summary D of the previous sentences and its integration strategies."""

    def __init__(self, model) -> None:
        super().__init__()
        cfg = model.cfg
        E, H, A = cfg.emb_dim, cfg.hidden, model.ann_dim
        Hs = cfg.doc_hidden or H
        self.strategies = tuple(cfg.doc_context)
        self.k = cfg.doc_k
        self.hidden = Hs
        self.gru_cell = cfg.cell == "gru"
        self.__dict__["_emb"] = model.src_emb          # shared source embeddings (not a submodule)
        self.emb_drop = nn.Dropout(cfg.emb_dropout)
        self.drop = nn.Dropout(cfg.dropout)
        self.sent_rnn = nn.GRU(E, Hs, batch_first=True)
        self.doc_rnn = nn.GRUCell(Hs, Hs)
        for name, p in [*self.sent_rnn.named_parameters(), *self.doc_rnn.named_parameters()]:
            if name.startswith("bias"):  # no bias terms (see the module docstring); kept as frozen
                nn.init.zeros_(p)        # zeros so that int8 dynamic quantisation accepts the GRUs
                p.requires_grad_(False)
        self.ctx_bias = nn.Parameter(torch.zeros(Hs))                     # b: "there is a context"
        if "init-enc" in self.strategies:
            self.enc_init = nn.Linear(Hs, 2 * H, bias=False)             # W_E (both directions)
        if "init-dec" in self.strategies:
            self.dec_init = nn.Linear(Hs, H, bias=False)                 # W_D
        if "aux" in self.strategies or "gated-aux" in self.strategies:
            self.aux_proj = nn.Linear(Hs, 3 * H if self.gru_cell else H, bias=False)  # C_D
        if "gated-aux" in self.strategies:
            self.aux_gate = nn.Linear(E + H + A, Hs)                      # W_z, U_z, C_z

    def silence(self) -> None:
        """Zero every projection of D (W_E, W_D, C_D): the network then translates
        exactly as without context, and training can only move it from there
        (``train.context_only``).  The summary GRUs keep their initialisation, so
        the projections get a gradient from the first step."""
        with torch.no_grad():
            for name in ("enc_init", "dec_init", "aux_proj"):
                if hasattr(self, name):
                    getattr(self, name).weight.zero_()

    # -------------------------------------------------------------- the summary
    def summarize(self, sents: Tensor, mask: Tensor) -> Tensor:
        """(N, L) ids, (N, L) mask -> (N, Hs) sentence summaries S (last GRU state)."""
        emb = self.emb_drop(self._emb(sents))
        lengths = mask.sum(1).clamp(min=1).cpu()
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        _, h = self.sent_rnn(packed)
        return h[-1]

    def document(self, summaries: Tensor, index: Tensor) -> Tensor:
        """Document RNN over each row's context summaries -> (B, Hs) D (0 for an empty context)."""
        B = index.size(0)
        h = summaries.new_zeros(B, self.hidden)
        if summaries.size(0) == 0:
            return h
        for k in range(index.size(1)):
            col = index[:, k]
            x = summaries.index_select(0, col.clamp(min=0))
            h = torch.where((col >= 0).unsqueeze(1), self.doc_rnn(x, h), h)
        return h

    def context_vector(self, doc: DocBatch | None, batch: int, device) -> Tensor:
        """D of each sentence of the batch; zeros without a DocBatch."""
        if doc is None:
            return self._emb.weight.new_zeros(batch, self.hidden, device=device)
        if doc.index.size(0) != batch:
            raise ValueError(f"document context for {doc.index.size(0)} sentences, batch has {batch}")
        S = doc.summaries if doc.summaries is not None else self.summarize(doc.sents, doc.sents_mask)
        has = (doc.index >= 0).any(1, keepdim=True).to(S.dtype)
        return self.drop(self.document(S, doc.index) + has * self.ctx_bias)

    # -------------------------------------------------------------- hooks
    def encoder_init(self, src: Tensor, src_mask: Tensor, extras: dict, doc: DocBatch | None = None,
                     **inputs) -> Tensor | None:
        D = self.context_vector(doc, src.size(0), src.device)
        extras["doc_D"] = D
        if "init-enc" not in self.strategies:
            return None
        h0 = torch.tanh(self.enc_init(D)).to(self._emb.weight.dtype)     # (B, 2H)
        return h0.view(src.size(0), 2, -1).transpose(0, 1).contiguous()   # (2, B, H)

    def init_state(self, enc: EncoderOutput) -> Tensor | None:
        if "init-dec" not in self.strategies:
            return None
        return self.dec_init(enc.extras["doc_D"])

    def doc_gate(self, enc: EncoderOutput, state: DecoderState, y_emb: Tensor, ctx: Tensor) -> Tensor:
        """z_i of gated-aux: (B, Hs) in (0, 1)."""
        return torch.sigmoid(self.aux_gate(torch.cat([y_emb, state.hidden, ctx], dim=-1)))

    def update_input(self, enc: EncoderOutput, state: DecoderState, y_emb: Tensor, query: Tensor,
                     ctx: Tensor) -> Tensor | None:
        D = enc.extras["doc_D"]
        if "gated-aux" in self.strategies:
            return self.aux_proj(self.doc_gate(enc, state, y_emb, ctx) * D)
        if "aux" in self.strategies:
            return self.aux_proj(D)
        return None


def find_doc_context(model: nn.Module) -> DocContext | None:
    """The model's document-context source, or None for a model without one."""
    for cs in getattr(model, "context_sources", ()):
        if isinstance(cs, DocContext):
            return cs
    return None


# ------------------------------------------------------------------ translation-time cache
class SummaryCache:
    """Sentence summaries of recently seen context sentences (LRU, keyed by text).

    ``doc_batch(contexts)`` turns per-sentence lists of previous sentences
    (texts, oldest first) into a :class:`DocBatch` of cached summaries,
    summarising only sentences it has not seen (in one batch).
    """

    def __init__(self, source: DocContext, vocab: SubwordVocab, *, max_items: int = 4096):
        self.source = source
        self.vocab = vocab
        self.max_items = max_items
        self._cache: OrderedDict[str, Tensor] = OrderedDict()
        self.computed = 0  # sentences summarised so far (for tests and benchmarks)

    def clear(self) -> None:
        self._cache.clear()

    def __len__(self) -> int:
        return len(self._cache)

    @torch.inference_mode()
    def summaries(self, texts: list[str], device) -> Tensor:
        """(len(texts), Hs) summaries of ``texts`` (computed once each)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            ids = [e + [EOS] for e in self.vocab.encode_batch(missing)]
            sents, mask = pad_sources(ids)
            self.source.eval()
            S = self.source.summarize(sents.to(device), mask.to(device))
            self.computed += len(missing)
            for t, s in zip(missing, S):
                self._cache[t] = s
        out = []
        for t in texts:
            self._cache.move_to_end(t)
            out.append(self._cache[t])
        while len(self._cache) > self.max_items:
            self._cache.popitem(last=False)
        if not out:
            return torch.zeros(0, self.source.hidden, device=device)
        return torch.stack(out).to(device)

    def doc_batch(self, contexts: list[list[str]], device) -> DocBatch:
        k = self.source.k
        kept = [[t for t in c if t.strip()][-k:] for c in contexts]
        uniq: dict[str, int] = {}
        local = [[uniq.setdefault(t, len(uniq)) for t in c] for c in kept]
        S = self.summaries(list(uniq), device)
        return DocBatch(_index_matrix(local, k).to(device), summaries=S)


# ------------------------------------------------------------------ training batches
def window_batches(examples: list, batch_tokens: int, *, seed: int | None = None, epoch: int = 0) -> list[list]:
    """Batches of consecutive corpus sentences (``Example.index`` order) within the token
    budget (``rows * longest``), in a shuffled order (from ``seed + epoch``).  Neighbours
    share their previous sentences, so a batch summarises each about once, where
    length-bucketed batches (:func:`engine.nmt.data.make_batches`) scatter a document
    over many batches and summarise its sentences up to K times.  The price is
    padding: on the KDE manuals (K = 3, 4000 tokens) window batches read 61 % fewer
    context sentences but pad 8x more source tokens in 2.7x more batches
    (experiments/doccontext/efficiency.py), so length buckets stay the default."""
    import random

    from engine.nmt.data import pack_batches

    batches = pack_batches(sorted(examples, key=lambda e: e.index), batch_tokens)
    if seed is not None:
        random.Random(seed * 100_003 + epoch).shuffle(batches)
    return batches
