"""Translation memory: storage (SQLite, or PostgreSQL for a shared TM), search
(candidates, Eq. 3 re-rank, top-K / coverage selection) and concordance.  No
torch, no Qt.

The names below are imported when first used (PEP 562): a process that needs one
module of the package -- the scan process of a TM whose index is rebuilt
(:mod:`engine.tm.scan_server`) -- does not import the index, Whoosh and the store.
"""
from __future__ import annotations

import importlib

_WHERE = {
    "TranslationMemory": "memory",
    **dict.fromkeys(("ConcordanceHit", "ImportResult", "Match", "TMEntry", "TMOffline", "TMReadOnly",
                     "TMRefused"), "model"),
    **dict.fromkeys(("ListedTM", "is_tm_url", "open_for_import", "open_tm", "project_tms", "tm_exists",
                     "tm_ref"), "open"),
    **dict.fromkeys(("EditOp", "char_score", "edit_ops", "token_score"), "scoring"),
    **dict.fromkeys(("coverage_select", "top_k"), "select"),
}


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'engine.tm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engine.tm.{where}"), name)
    globals()[name] = value
    return value


__all__ = ["TranslationMemory", "TMEntry", "Match", "ConcordanceHit", "ImportResult", "EditOp",
           "token_score", "char_score", "edit_ops", "coverage_select", "top_k", "open_tm", "is_tm_url",
           "tm_exists", "tm_ref", "TMOffline", "TMReadOnly", "TMRefused", "open_for_import", "project_tms", "ListedTM"]
