"""Glossaries (termbases): a SQLite store, TBX/CSV/TSV/XLSX files, term recognition.

The public API::

    from engine.glossary import Glossary, GlossaryEntry, find_terms, term_issues

    with Glossary("GLOSS", create=True) as g:
        gf = read_glossary_file("terms.tbx", src_lang="en", tgt_lang="de")
        g.import_entries(gf.entries, problems=gf.problems)      # one transaction
        hits = find_terms("Open the files", g)                   # [TermHit(9, 14, entry)]
        problems = term_issues(src, tgt, hits, "de")             # [TermProblem(...)]

No torch, no Qt (import-linter contract in pyproject.toml).
"""
from __future__ import annotations

import importlib

#: Where each name of the API lives: imported on first use, so that a module that needs only
#: engine.glossary.model (every `verso` command's parser) does not load the file readers, the
#: stemmers and the store (0.03 s CPU of each command's start).
_WHERE = {
    "read_glossary_file": "formats", "write_glossary_file": "formats", "GlossaryEntry": "model",
    "GlossaryFile": "model", "ImportResult": "model", "TermHit": "model", "TermProblem": "model",
    "TermIndex": "recognise", "find_terms": "recognise", "stemmer_for": "recognise", "term_issues": "recognise",
    "Glossary": "store", "GlossaryError": "store", "load_term_index": "store",
}
__all__ = [
    "Glossary", "GlossaryEntry", "GlossaryError", "GlossaryFile", "ImportResult", "TermHit", "TermIndex",
    "TermProblem", "find_terms", "load_term_index", "read_glossary_file", "stemmer_for", "term_issues",
    "write_glossary_file",
]


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'engine.glossary' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engine.glossary.{_WHERE[name]}"), name)
    globals()[name] = value
    return value
