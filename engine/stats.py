"""Word counts, TM match analysis by band, and progress (the editor's *Statistics*).

Two different questions, answered apart: the **analysis** (what a quote is based on) bands
each source by its best TM match as if nothing of the project had been translated yet --
the project's own confirmed segments, which the TM holds too, are left out
(:func:`is_own_work`) -- with repetitions; the **progress** counts segments and words by
status (confirmed, draft, new).  A locked segment (``engine/store/locks.py``: nobody may change it)
is counted apart in both, in its own ``locked`` row, as memoQ reports locked rows: it is in the
total but not in the words to translate (:attr:`Analysis.to_translate`, :attr:`Progress.to_translate`).

The bands are the ones translators are billed by (Trados/memoQ style):
repetitions, 100 %, 95–99 %, 85–94 %, 75–84 %, 50–74 %, no match.  The match
percentage is the one the TM pane shows for the best match, so the two never
disagree.  Pure Python; the TM lookup is passed in as a function.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable

from engine.inline import strip_tags

BANDS: tuple[tuple[str, float, float], ...] = (
    ("100%", 1.00, 1.01),
    ("95-99%", 0.95, 1.00),
    ("85-94%", 0.85, 0.95),
    ("75-84%", 0.75, 0.85),
    ("50-74%", 0.50, 0.75),
)
ROWS = ("repetitions",) + tuple(b[0] for b in BANDS) + ("no match", "locked")
#: The rows of :data:`ROWS` that are not work: left out of the words to translate.
NOT_TO_TRANSLATE = ("locked",)

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def word_count(text: str) -> int:
    """Words of a segment as CAT tools count them: CJK characters count one each; tags count zero."""
    plain = strip_tags(text)
    cjk = len(_CJK.findall(plain))
    rest = _CJK.sub(" ", plain)
    return cjk + len(_WORD.findall(rest))


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", strip_tags(text)).split())


def band_of(score: float | None) -> str:
    if score is None:
        return "no match"
    for name, lo, hi in BANDS:
        if lo <= score < hi:
            return name
    return "no match"


@dataclass(frozen=True)
class Counted:
    """One segment as the statistics count it: its source text, status and whether it is locked."""

    source: str
    status: str = "new"
    locked: bool = False


def _counted(item: "str | Counted") -> Counted:
    return Counted(item) if isinstance(item, str) else item


@dataclass(frozen=True)
class Count:
    """Segments and words of one row of a statistics table."""

    segments: int = 0
    words: int = 0

    def __add__(self, other: "Count") -> "Count":
        return Count(self.segments + other.segments, self.words + other.words)


def _sum(counts: Iterable[Count]) -> Count:
    return sum(counts, Count())


@dataclass
class _Table:
    """One document's rows (``rows``: row name -> :class:`Count`, in the table's order)."""

    name: str
    rows: dict[str, Count]

    def add(self, row: str, words: int) -> None:
        c = self.rows[row]
        self.rows[row] = Count(c.segments + 1, c.words + words)

    @property
    def total(self) -> Count:
        return _sum(self.rows.values())

    @property
    def to_translate(self) -> Count:
        """The total without the locked segments."""
        return _sum(v for name, v in self.rows.items() if name not in NOT_TO_TRANSLATE)

    @property
    def locked(self) -> Count:
        return self.rows["locked"]

    def to_json(self) -> dict:
        return {"name": self.name, "rows": {k: asdict(v) for k, v in self.rows.items()},
                "total": asdict(self.total), "to_translate": asdict(self.to_translate)}


@dataclass
class Analysis(_Table):
    """The match analysis of one document: a row per band (:data:`ROWS`)."""

    rows: dict[str, Count] = field(default_factory=lambda: dict.fromkeys(ROWS, Count()))


def analyse(documents: Iterable[tuple[str, Iterable[str | Counted]]],
            best_score: Callable[[str], float | None]) -> list[Analysis]:
    """Analyse each ``(name, sources)``; a source seen before (in any document) is a repetition.
    A :class:`Counted` that is locked goes to the ``locked`` row, with no TM lookup, and makes
    no later source a repetition.

    ``best_score(source)`` returns the best TM match score in 0..1, or None.
    """
    seen: set[str] = set()
    out = []
    for name, sources in documents:
        a = Analysis(name)
        for item in sources:
            c = _counted(item)
            src = c.source
            words = word_count(src)
            if c.locked:
                a.add("locked", words)
                continue
            k = _key(src)
            if k and k in seen:
                a.add("repetitions", words)
                continue
            seen.add(k)
            a.add(band_of(best_score(src)), words)
        out.append(a)
    return out


def is_own_work(meta: dict, project_key: str | tuple[str, ...], since: str,
                project_name: str | None = None) -> bool:
    """Whether a TM unit is the project's own confirmed work on a document imported at
    ``since``: it **came from** a confirmation in this project -- stamped with this project
    (``project``) and created after the import, and, given ``project_name``, created by the
    confirm (its ``origin`` is the project's name).  The analysis leaves those out -- it is
    what a quote is based on, as if nothing had been translated yet -- while a unit that was
    in the TM before, or came with a TM file imported after the document and was only
    confirmed again in the project (the confirm merges into it and stamps it; its origin
    stays the file it came from), still counts.  ``project_key``: :attr:`Project.tm_key`,
    or a tuple of the keys the project's units may carry."""
    keys = (project_key,) if isinstance(project_key, str) else project_key
    if meta.get("project") not in keys or str(meta.get("created") or "") < since:
        return False
    return project_name is None or str(meta.get("origin") or "") in ("", project_name)


STATUSES = ("confirmed", "draft", "new")
#: The rows of the progress table: the statuses, then the locked segments (whatever their status).
PROGRESS_ROWS = STATUSES + ("locked",)


@dataclass
class Progress(_Table):
    """Where the translation stands: segments and words by status (not a match analysis); the
    locked segments in their own row, whatever their status."""

    rows: dict[str, Count] = field(default_factory=lambda: dict.fromkeys(PROGRESS_ROWS, Count()))


def progress(documents: Iterable[tuple[str, Iterable[Counted]]]) -> list[Progress]:
    """Progress of each ``(name, segments)``."""
    out = []
    for name, segs in documents:
        p = Progress(name)
        for c in segs:
            p.add("locked" if c.locked else c.status if c.status in STATUSES else "new", word_count(c.source))
        out.append(p)
    return out


def to_csv(analyses: list[Analysis]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["document", "band", "segments", "words"])
    for a in analyses:
        for row in ROWS:
            w.writerow([a.name, row, a.rows[row].segments, a.rows[row].words])
        w.writerow([a.name, "total", a.total.segments, a.total.words])
        w.writerow([a.name, "to translate", a.to_translate.segments, a.to_translate.words])
    return buf.getvalue()
