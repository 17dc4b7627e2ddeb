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
#: a row ahead of this many words or more is first translated greedily (:func:`ahead_beam`); the editor redoes
#: it with :func:`suggestion_beam` when idle.  Same bands, load 11, beam 1 against 2: 15-29 words (100) CPU ms
#: mean 50 / 62, p95 74 / 96, BLEU 11.08 / 11.16, chrF 40.79 / 40.49; 30+ (90) 106 / 140, 166 / 220, BLEU
#: 8.94 / 9.39, chrF 40.70 / 41.48.  Browsing without a pause (benchmarks/ui_latency.py, dwell 0, load 10-14)
#: from 15 words against from 30: suggestion p95 0.77, p50 0.90 (RESULTS.md issue 46 item 3, session 25)
AHEAD_GREEDY_WORDS = 15


def suggestion_beam(source: str, beam: int) -> int:
    """The beam for the suggestion of ``source`` when the editor's setting is ``beam``."""
    return min(beam, LONG_BEAM) if len(source.split()) >= LONG_WORDS else beam


def ahead_beam(source: str, beam: int) -> int:
    """The beam of a row translated ahead of the translator before the engine is idle: greedy from
    :data:`AHEAD_GREEDY_WORDS` words (what the translator browsing without a pause waits for)."""
    return 1 if len(source.split()) >= AHEAD_GREEDY_WORDS else suggestion_beam(source, beam)
