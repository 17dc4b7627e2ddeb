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

from engine.glossary.formats import read_glossary_file, write_glossary_file
from engine.glossary.model import GlossaryEntry, GlossaryFile, ImportResult, TermHit, TermProblem
from engine.glossary.recognise import TermIndex, find_terms, stemmer_for, term_issues
from engine.glossary.store import Glossary, GlossaryError, load_term_index

__all__ = [
    "Glossary", "GlossaryEntry", "GlossaryError", "GlossaryFile", "ImportResult", "TermHit", "TermIndex",
    "TermProblem", "find_terms", "load_term_index", "read_glossary_file", "stemmer_for", "term_issues",
    "write_glossary_file",
]
