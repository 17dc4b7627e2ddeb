"""Teacher-forced passes over given targets (``Translator.forced``: scores, alignments, the attention
and gates of a given translation)."""
from __future__ import annotations

import torch

from engine.nmt import casing
from engine.nmt.data import pad_sources
from engine.nmt.knn import KnnInput
from engine.nmt.pairs import as_pairs, encode_pairs, pack_memory
from engine.nmt.results import TranslationResult, words_result
from engine.nmt.search import forced_decode
from engine.nmt.vocab import BOS, EOS, PAD


def forced_results(tr, srcs: list[str], tgts: list[str], *, batch_size: int = 32,
                   context: list[list[str]] | None = None, memories: list | None = None,
                   memory_mode: str = "auto") -> list[TranslationResult]:
    """Teacher-forced "translations" of given targets: attention, gates and
    total log-probability of each ``tgts[i]`` given ``srcs[i]`` (and, for a
    document-context model, its previous sentences ``context[i]``; with
    ``memories``, the retrieved pairs of each sentence read by the memory
    ``memory_mode`` names, as in ``translate``).  An all-caps source or
    target is read in sentence case, as in ``translate``.  ``tr``: the :class:`~engine.nmt.translator.Translator`."""
    if len(srcs) != len(tgts):
        raise ValueError(f"{len(srcs)} sources but {len(tgts)} targets")
    kind = tr.memory_kind(memory_mode) if memories is not None else "none"
    sv, tv = tr.loaded.src_vocab, tr.loaded.tgt_vocab
    out: list[TranslationResult] = []
    src_caps, tgt_caps = [casing.is_all_caps(s) for s in srcs], [casing.is_all_caps(t) for t in tgts]
    if context is not None:
        context = [[casing.fold_if_caps(x) for x in ctx] for ctx in context]
    for k in range(0, len(srcs), batch_size):
        S = [tr._src_ids(casing.fold(s) if c else s) for s, c in zip(srcs[k:k + batch_size], src_caps[k:])]
        T = [tv.encode(casing.fold(t) if c else t) + [EOS] for t, c in zip(tgts[k:k + batch_size], tgt_caps[k:])]
        src, mask = pad_sources(S)
        tl = max(len(t) for t in T)
        tgt_out = torch.full((len(T), tl), PAD, dtype=torch.long)
        tgt_in = torch.full((len(T), tl), PAD, dtype=torch.long)
        for i, t in enumerate(T):
            tgt_out[i, :len(t)] = torch.tensor(t)
            tgt_in[i, :len(t)] = torch.tensor([BOS] + t[:-1])
        inputs = tr._doc_inputs(context, list(range(k, k + len(S))))
        if kind != "none":
            ids = [encode_pairs(as_pairs(m), sv, tv) for m in memories[k:k + batch_size]]
            mb = pack_memory(ids, tr.device, with_eos=kind == "knn",
                             scores=[[p.score for p in as_pairs(m)] for m in memories[k:k + batch_size]])
            if mb is not None:
                inputs["knn" if kind == "knn" else "memory"] = KnnInput(mb, tr.knn) if kind == "knn" else mb
        res = forced_decode(tr.model, src.to(tr.device), mask.to(tr.device),
                            tgt_in.to(tr.device), tgt_out.to(tr.device), **inputs)
        for i, (s, t) in enumerate(zip(S, T)):
            att = res["attn"][i, :len(t), :len(s)]
            g = res["gates"][i, :len(t)] if res["gates"] is not None else None
            total = float(res["token_logprob"][i].sum())
            r = words_result(sv.pieces(s[:-1]) + ["</s>"], tv.pieces(t[:-1]) + ["</s>"], tgts[k + i], total, att, g)
            if src_caps[k + i]:
                r.src_words = [casing.restore(w) for w in r.src_words]
            if tgt_caps[k + i]:
                r.words = [casing.restore(w) for w in r.words]
            out.append(r)
    return out
