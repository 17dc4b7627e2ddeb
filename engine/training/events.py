"""A training run's events as the editor reads them (no torch here).

The run's process speaks JSON, one event a line (``OUT/events.jsonl``, :mod:`engine.training.runs`);
:func:`parse_event` turns each line's object into one of the frozen dataclasses below, once, so the
editor reads fields by name.  A field missing or of another type (a run of an earlier version, a
line cut short) takes its default; an event the editor does not show (``progress``, ``knn``, ...)
is an :class:`OtherEvent` keeping its kind.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Union

#: The compared systems, in the result table's column order: (key in the JSON, what the user reads).
SYSTEMS = (("tm_copy", "TM copy"), ("model", "Model"), ("model_memory", "Model + memory"))


def _num(d: Mapping, key: str, default: float | None = 0.0) -> float | None:
    v = d.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else default


def _int(d: Mapping, key: str, default: int = 0) -> int:
    v = _num(d, key, None)
    return int(v) if v is not None else default


def _str(d: Mapping, key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def _scores(v) -> dict[str, float]:
    """``{system: score}``, numbers only."""
    return {k: float(x) for k, x in v.items() if isinstance(k, str) and _num(v, k, None) is not None} \
        if isinstance(v, Mapping) else {}


@dataclass(frozen=True)
class BandScore:
    """One row of the result table: the held-aside sentences whose best TM match falls in ``band``
    ("all": every sentence) and each system's BLEU and chrF on them (keyed as :data:`SYSTEMS`)."""

    band: str
    sentences: int
    bleu: Mapping[str, float] = field(default_factory=dict)
    chrf: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, d, band: str = "") -> "BandScore":
        d = d if isinstance(d, Mapping) else {}
        return cls(_str(d, "band") or band, _int(d, "sentences"), _scores(d.get("bleu")), _scores(d.get("chrf")))


@dataclass(frozen=True)
class ScoreTable:
    """The before/after table: every fuzzy band with sentences in it, and all sentences together."""

    overall: BandScore
    bands: tuple[BandScore, ...] = ()

    @property
    def rows(self) -> tuple[BandScore, ...]:
        """The bands, then all sentences (band "all"): the rows the result table shows."""
        return self.bands + (self.overall,)

    @classmethod
    def from_json(cls, d) -> "ScoreTable":
        d = d if isinstance(d, Mapping) else {}
        bands = d.get("bands")
        return cls(BandScore.from_json(d.get("overall"), "all"),
                   tuple(BandScore.from_json(b) for b in bands) if isinstance(bands, list) else ())


@dataclass(frozen=True)
class Verdict:
    """Whether the new model is ``better`` than both the current model and copying the TM match;
    ``kind`` is "better", "worse_than_current" or "worse_than_tm_copy"; ``message``: one line
    saying so with the numbers."""

    better: bool
    kind: str
    message: str

    def to_json(self) -> dict:
        """The fields the ``finished`` event carries."""
        return {"better": self.better, "verdict": self.kind, "message": self.message}


def verdict(new: float, tm_copy: float | None, current: float | None) -> Verdict:
    """Which is better on the held-aside documents: the new model (BLEU ``new``), the current model
    (``current``; None: there is none) or copying the TM match (``tm_copy``).  Not ``better`` when
    the new model scores below either: then the current model is the one to keep."""
    worse = [(name, b) for name, b in (("the current model", current), ("copying the TM match", tm_copy))
             if b is not None and new < b]
    kind = ("worse_than_current" if current is not None and new < current else "worse_than_tm_copy") if worse \
        else "better"
    if worse:
        than = " and ".join(f"{name} ({b:.1f})" for name, b in worse)
        message = f"The new model scores BLEU {new:.1f}, worse than {than}: keep the current model."
    else:
        than = " and ".join(f"{'better than' if new > b else 'as good as'} {name} ({b:.1f})" for name, b in
                            (("the current model", current), ("copying the TM match", tm_copy)) if b is not None)
        message = f"The new model scores BLEU {new:.1f}" + (f", {than}." if than else ".")
    return Verdict(not worse, kind, message)


@dataclass(frozen=True)
class Gathered:
    """The training pairs gathered (``gather``): how many, the pair, duplicates left out, the device."""

    pairs: int
    src_lang: str
    tgt_lang: str
    duplicates: int
    device: str


@dataclass(frozen=True)
class SplitDone:
    """The pairs split by whole documents (``split``): to train on, held aside to score, to watch training."""

    train: int
    test: int
    dev: int


@dataclass(frozen=True)
class ScoredBefore:
    """The held-aside BLEU before training (``before``) of ``system`` (a :data:`SYSTEMS` key)."""

    bleu: float
    system: str


@dataclass(frozen=True)
class RecipeChosen:
    """The training recipe picked (``recipe``) and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class PhaseStarted:
    """A phase started or resumed (``start``, ``resume``) at ``step``; ``total_steps`` of training (0: unknown)."""

    phase: str
    total_steps: int
    resumed: bool = False
    step: int = 0


@dataclass(frozen=True)
class Step:
    """A logged training step; ``eta_s`` None when not known yet, ``budget_s`` 0 without a time budget."""

    step: int
    total_steps: int
    loss: float
    eta_s: float | None = None
    budget_s: float = 0.0
    training_s: float = 0.0


@dataclass(frozen=True)
class Evaluated:
    """The model scored on the documents that watch training (``eval``)."""

    dev_bleu: float
    best_bleu: float


@dataclass(frozen=True)
class BudgetSpent:
    """The time budget ended training (``budget``)."""


@dataclass(frozen=True)
class ScoredAfter:
    """The held-aside scores after training (``after``)."""

    table: ScoreTable


@dataclass(frozen=True)
class Finished:
    """The run's last event (``finished``): held-aside BLEU ``before`` and ``after``, and the verdict."""

    before: float
    after: float
    verdict: Verdict


@dataclass(frozen=True)
class Cancelled:
    """The run stopped when asked (``cancelled``); ``resumable`` from its last checkpoint."""

    resumable: bool


@dataclass(frozen=True)
class OtherEvent:
    """An event the editor does not show, by its ``kind``."""

    kind: str


TrainingEvent = Union[Gathered, SplitDone, ScoredBefore, RecipeChosen, PhaseStarted, Step, Evaluated, BudgetSpent,
                      ScoredAfter, Finished, Cancelled, OtherEvent]


def _finished(d: Mapping) -> Finished:
    before, after = _num(d, "before"), _num(d, "after")
    if isinstance(d.get("message"), str):
        said = Verdict(bool(d.get("better")), _str(d, "verdict"), d["message"])
    else:  # a run of an earlier version carries no verdict: its before/after scores say it
        said = verdict(after, None, before)
    return Finished(before, after, said)


def parse_event(d) -> TrainingEvent:
    """One event object of the run's JSON as a dataclass (see the module docstring)."""
    d = d if isinstance(d, Mapping) else {}
    kind = _str(d, "event")
    if kind == "gather":
        return Gathered(_int(d, "pairs"), _str(d, "src_lang"), _str(d, "tgt_lang"), _int(d, "duplicates"),
                        _str(d, "device"))
    if kind == "split":
        return SplitDone(_int(d, "train"), _int(d, "test"), _int(d, "dev"))
    if kind == "before":
        return ScoredBefore(_num(d, "bleu"), _str(d, "system"))
    if kind == "recipe":
        return RecipeChosen(_str(d, "name"), _str(d, "reason"))
    if kind in ("start", "resume"):
        return PhaseStarted(_str(d, "phase"), _int(d, "total_steps"), kind == "resume", _int(d, "step"))
    if kind == "step":
        return Step(_int(d, "step"), _int(d, "total_steps"), _num(d, "loss"), _num(d, "eta_s", None),
                    _num(d, "budget_s"), _num(d, "training_s"))
    if kind == "eval":
        return Evaluated(_num(d, "dev_bleu"), _num(d, "best_bleu"))
    if kind == "budget":
        return BudgetSpent()
    if kind == "after":
        return ScoredAfter(ScoreTable.from_json(d.get("table")))
    if kind == "finished":
        return _finished(d)
    if kind == "cancelled":
        return Cancelled(bool(d.get("resumable", True)))
    return OtherEvent(kind)
