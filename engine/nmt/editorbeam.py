"""The beam of the editor's suggestion, by the segment's length.

A segment's suggestion is asked for as the translator browses, so its CPU time is what the next
row waits for; the beam's cost grows with the sentence while what it buys does not.  On held-out
KDE manual sentences with the demo model, each translated alone, one thread (benchmarks/suggest_beam.py,
2-core AMD EPYC VM, load 9; benchmarks/RESULTS.md "Issue 46 item 3")::

    band (words)   beam 5: BLEU / chrF / CPU ms mean, p95     beam 2: BLEU / chrF / CPU ms mean, p95
    1-14  (100)    20.89 / 50.44 /   9.5,  24.4               20.21 / 50.61 /  8.3,  20.8  (p 0.22)
    15-29 (100)    10.87 / 40.73 /  39.0,  61.3               11.16 / 40.49 / 34.0,  49.0  (p 0.12)
    30+   (90)     10.00 / 41.43 / 116.9, 188.1                9.39 / 41.48 / 62.7, 105.8  (p 0.02)

so a segment of :data:`LONG_WORDS` words or more gets a beam of at most :data:`LONG_BEAM`: no
measurable loss from 15 to 29 words, 0.6 BLEU (chrF unchanged) from 30 on, for half the CPU where it
matters most.  A short one keeps the beam asked for.  A finished suggestion is still a finished
sentence (the search ends only at ``</s>`` or the length limit, whatever the beam).
"""
from __future__ import annotations

LONG_WORDS = 15
LONG_BEAM = 2
#: a row ahead of this many words or more is first translated greedily (:func:`ahead_beam`): same bands,
#: load 11, 90 sentences of 30+ words (mean 49): beam 1 against 2, CPU ms mean 106 / 140, p95 166 / 220,
#: BLEU 8.94 / 9.39, chrF 40.70 / 41.48 -- the editor redoes it with :func:`suggestion_beam` when idle
VERY_LONG_WORDS = 30


def suggestion_beam(source: str, beam: int) -> int:
    """The beam for the suggestion of ``source`` when the editor's setting is ``beam``."""
    return min(beam, LONG_BEAM) if len(source.split()) >= LONG_WORDS else beam


def ahead_beam(source: str, beam: int) -> int:
    """The beam of a row translated ahead of the translator before the engine is idle: greedy from
    :data:`VERY_LONG_WORDS` words, the time the translator browsing without a pause waits for it."""
    return 1 if len(source.split()) >= VERY_LONG_WORDS else suggestion_beam(source, beam)
