"""Translation memory: storage (SQLite, or PostgreSQL for a shared TM), search
(candidates, Eq. 3 re-rank, top-K / coverage selection) and concordance.  No
torch, no Qt."""
from engine.tm.memory import TranslationMemory
from engine.tm.model import ConcordanceHit, ImportResult, Match, TMEntry, TMOffline, TMReadOnly, TMRefused
from engine.tm.open import ListedTM, is_tm_url, open_for_import, open_tm, project_tms, tm_exists, tm_ref
from engine.tm.scoring import EditOp, char_score, edit_ops, token_score
from engine.tm.select import coverage_select, top_k

__all__ = ["TranslationMemory", "TMEntry", "Match", "ConcordanceHit", "ImportResult", "EditOp",
           "token_score", "char_score", "edit_ops", "coverage_select", "top_k", "open_tm", "is_tm_url",
           "tm_exists", "tm_ref", "TMOffline", "TMReadOnly", "TMRefused", "open_for_import", "project_tms", "ListedTM"]
