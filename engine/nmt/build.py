"""``build_model(config)``: the network of a config with the context sources it reads.

As Joey NMT's ``build_model``: the config says which optional parts a model has, this
function attaches them, and :class:`~engine.nmt.model.RNNSearch` receives them::

    model.memory != "none"   the learned key-value memory (engine.nmt.memory, trained)
    model.doc_context        the cross-sentence context (engine.nmt.doccontext, trained)
    always                   the nearest-neighbour memory (engine.nmt.knn, no parameters)

The sources keep this order (their parameters are named ``context_sources.<i>.*`` in the
weights, so the trained ones come first and the parameter-free one last).
"""
from __future__ import annotations

from engine.nmt.config import ModelConfig
from engine.nmt.doccontext import DocContext
from engine.nmt.knn import KnnMemory
from engine.nmt.memory import MemorySource
from engine.nmt.model import RNNSearch


def build_model(cfg: ModelConfig) -> RNNSearch:
    """The model of ``cfg`` (parameters initialised, train mode)."""
    sources = []
    if cfg.memory != "none":      # search-engine guided NMT (Gu et al. 2018)
        sources.append(MemorySource)
    if cfg.doc_context:           # cross-sentence context
        sources.append(DocContext)
    sources.append(KnnMemory)     # memory without training (kNN)
    return RNNSearch(cfg, sources)
