"""How a machine suggestion uses the glossary's terms (the glossary's types live in
:mod:`engine.glossary.model`; these two names alone start `verso translate`'s options without them)."""
from __future__ import annotations

#: How a machine suggestion uses the glossary's terms: not at all, as a hint (a bonus to the term's
#: tokens where the attention is on its source term) or always (lexically constrained search).
TERMS_MODES: tuple[str, ...] = ("off", "prefer", "enforce")
#: The default of the editor's *Use glossary terms in suggestions* and ``verso translate --terms``:
#: ``enforce`` measured best on held-out KDE manual sentences with a client's whole UI glossary
#: (benchmarks/RESULTS.md, "Issue 37 items 2-3"): more terms and higher BLEU than ``prefer``.
DEFAULT_TERMS_MODE = "enforce"
