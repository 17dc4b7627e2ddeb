"""The project's translation memories, used off the UI thread.

Every TM call (open, search, add, concordance, import) runs on ONE
dedicated thread, in the order it was asked.  That gives two guarantees
without locks: the UI thread never waits for a TM, and a pair added when a
segment is confirmed is in the TM before the lookup for the next segment
runs (it was queued first).

A project lists its TMs in the setting ``tms``: JSON
``[{"path": "tm", "writable": true}, ...]`` (paths relative to the project
folder or absolute).  Confirmed segments go to the first writable TM.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

from engine.inline import TaggedText
from engine.tm.adapt import adapt_tags
from engine.tm import Match, TranslationMemory
from app.workers import Cancelled, LatestOnly, Worker, start

MAX_MATCHES = 9
SCORE_TOOLTIP = ("Match % = the token score of the TM search (1 − token edit distance / longer length, "
                 "small penalties for case and punctuation) — the same number the Statistics bands use.")


@dataclass
class TMInfo:
    path: Path
    writable: bool
    name: str


@dataclass
class FoundMatch:
    """A match with the name of the TM it came from."""

    match: Match
    tm: str

    @property
    def score(self) -> float:
        return self.match.score


class TMService(QObject):
    """Opens the project's TMs and runs every TM call on one worker thread."""

    opened = Signal(int)          # number of TMs
    added = Signal(int)           # unit id of a confirmed pair
    failed = Signal(str)

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.pool.setExpiryTimeout(-1)
        self.project_folder = Path(project.folder)
        self.src_lang, self.tgt_lang = project.src_lang, project.tgt_lang
        self.infos = [TMInfo(r.path, r.writable, r.name) for r in project.tm_refs()]
        self.tms: list[TranslationMemory] = []
        self.lookups = LatestOnly(self.pool, self)
        self.concordances = LatestOnly(self.pool, self)
        self._jobs: set[Worker] = set()
        self.run(self._open_all, on_result=lambda n: self.opened.emit(n))

    # -- running on the TM thread --------------------------------------------------
    def run(self, fn: Callable, *args, on_result=None, on_error=None, on_progress=None) -> Worker:
        """Queue ``fn(control, *args)`` on the TM thread (never dropped)."""
        w = Worker(fn, *args)
        if on_result:
            w.signals.result.connect(on_result)
        w.signals.error.connect(on_error or self.failed.emit)
        if on_progress:
            w.signals.progress.connect(on_progress)
        self._jobs.add(w)
        w.signals.finished.connect(lambda w=w: self._jobs.discard(w))
        return start(w, self.pool)

    def busy(self) -> bool:
        return bool(self._jobs) or self.pool.activeThreadCount() > 0

    def _open_all(self, control) -> int:
        for info in self.infos:
            self.tms.append(TranslationMemory(info.path, src_lang=self.src_lang, tgt_lang=self.tgt_lang))
        return len(self.tms)

    def ensure_writable(self, project) -> TMInfo:
        """The writable TM, creating ``<project>/tm`` (and listing it in the
        project's settings) when the project has none.  The TM itself is
        opened on the TM thread, before any job queued after this call."""
        info = self.writable_info()
        if info is not None:
            return info
        ref = project.add_tm_ref("tm", writable=True)
        info = TMInfo(ref.path, True, ref.name)

        def job(control):
            self.tms.append(TranslationMemory(info.path, src_lang=self.src_lang, tgt_lang=self.tgt_lang))
            self.infos.append(info)
            return len(self.tms)

        self.run(job)
        return info

    # -- searches ------------------------------------------------------------------
    def lookup(self, key, query: TaggedText, k: int = 5) -> None:
        """Search every TM for ``query``; ``lookups.ready(key, [FoundMatch])`` (newest request only)."""
        self.lookups.request(key, self._search, query, k)

    def _search(self, control, query: TaggedText, k: int) -> list[FoundMatch]:
        control.check()  # a request already superseded is not worth running
        found: list[FoundMatch] = []
        for info, tm in zip(self.infos, self.tms):
            for m in tm.search(query, k=k, min_score=0.3):
                found.append(FoundMatch(m, info.name))
            control.check()
        found.sort(key=lambda f: (-f.match.score, -f.match.char_score))
        return found[:k]

    def search_now(self, control, query: TaggedText, k: int = 1) -> list[FoundMatch]:
        """For jobs already on the TM thread (statistics)."""
        return self._search(control, query, k)

    def concordance(self, key, phrase: str, side: str = "source") -> None:
        self.concordances.request(key, self._concordance, phrase, side)

    def _concordance(self, control, phrase: str, side: str) -> list[tuple[str, object]]:
        control.check()
        out = []
        for info, tm in zip(self.infos, self.tms):
            out += [(info.name, h) for h in tm.concordance(phrase, side=side, limit=50)]
        return out

    # -- writing -------------------------------------------------------------------
    def writable(self) -> TranslationMemory | None:
        for info, tm in zip(self.infos, self.tms):
            if info.writable:
                return tm
        return None

    def writable_info(self) -> TMInfo | None:
        return next((i for i in self.infos if i.writable), None)

    def add(self, source: TaggedText, target: TaggedText, meta: dict | None = None) -> None:
        """Queue the pair for the writable TM (before any later lookup)."""
        if self.writable_info() is None:
            return
        self.run(self._add, source, target, meta or {}, on_result=lambda uid: uid and self.added.emit(uid))

    def _add(self, control, source: TaggedText, target: TaggedText, meta: dict) -> int | None:
        tm = self.writable()
        if tm is None:
            return None
        return tm.add(source, target, origin=meta.pop("origin", "project"), creator=meta.pop("creator", ""),
                      meta=meta)

    def record_use(self, uid: int, tm_name: str) -> None:
        def job(control):
            for info, tm in zip(self.infos, self.tms):
                if info.name == tm_name:
                    tm.record_use(uid)
        self.run(job)

    def units(self) -> int:
        """Units over all TMs (only call from the TM thread or when idle)."""
        return sum(len(tm) for tm in self.tms)

    def close(self) -> None:
        self.lookups.invalidate()
        self.concordances.invalidate()
        self.pool.waitForDone(10_000)
        for tm in self.tms:
            try:
                tm.close()
            except Exception:  # noqa: BLE001 - closing on exit must not raise
                pass
        self.tms = []


__all__ = ["TMService", "FoundMatch", "adapt_tags", "SCORE_TOOLTIP", "Cancelled"]
