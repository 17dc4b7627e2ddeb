"""Translation memory: storage (SQLite), search (Whoosh candidates, Eq. 3
re-rank, top-K / coverage selection) and concordance.  No torch, no Qt."""
from engine.tm.memory import TranslationMemory
from engine.tm.model import ConcordanceHit, ImportResult, Match, TMEntry
from engine.tm.scoring import EditOp, char_score, edit_ops, token_score
from engine.tm.select import coverage_select, top_k

__all__ = ["TranslationMemory", "TMEntry", "Match", "ConcordanceHit", "ImportResult", "EditOp",
           "token_score", "char_score", "edit_ops", "coverage_select", "top_k"]
