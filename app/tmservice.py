"""The project's translation memories, used off the UI thread.

Every TM call (open, search, add, concordance, import) runs on ONE
dedicated thread, in the order it was asked.  That gives two guarantees
without locks: the UI thread never waits for a TM, and a pair added when a
segment is confirmed is in the TM before the lookup for the next segment
runs (it was queued first).

A project lists its TMs in the setting ``tms``: JSON
``[{"path": "tm", "writable": true}, ...]`` (paths relative to the project
folder or absolute, or a shared TM's URL ``postgresql://host:port/db?tm=NAME``).
Confirmed segments go to the first writable TM.

A shared TM (PostgreSQL) may be unreachable or refuse this user: see
:mod:`app.tm_shared` (the outbox, reconnecting, ``shared_state``).
"""
from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from engine.inline import TaggedText
from engine.tm.adapt import adapt_tags
from engine.store import trusted
from engine.tm import (Match, TMOffline, TMReadOnly, TMRefused, TranslationMemory, is_tm_url, open_tm,
                       project_tms, tm_exists)
from engine.tmsync import replace_in_tm
from app.tm_shared import POLL_MS, RETRY_MS, SharedTMs
from app.workers import Cancelled, LatestOnly, Worker, start

MAX_MATCHES = 9
SCORE_TOOLTIP = ("Match % = the token score of the TM search (1 − token edit distance / longer length, "
                 "small penalties for case and punctuation) — the same number the Statistics bands use.")



@dataclass
class TMInfo:
    path: Path | str   # a folder, or a shared TM's URL
    writable: bool
    name: str

    @property
    def shared(self) -> bool:
        return is_tm_url(str(self.path))

    @property
    def key(self) -> str:
        """How the outbox names this TM (a URL without its password)."""
        from engine.tm.pg import redact

        return redact(str(self.path)) if self.shared else str(self.path)


def project_tm_infos(project) -> list[TMInfo]:
    """The project's TMs (setting ``tms``): folders as the project resolves them, URLs as written; a
    folder outside the project only once confirmed, and only when it holds a TM (never created there)."""
    return [TMInfo(r.ref, r.writable, r.name) for r in project_tms(project, outside="skip")
            if r.shared or trusted.inside(project.folder, Path(r.ref)) or tm_exists(r.ref)]


@dataclass
class FoundMatch:
    """A match with the name of the TM it came from."""

    match: Match
    tm: str

    @property
    def score(self) -> float:
        return self.match.score


class TMService(SharedTMs, QObject):
    """Opens the project's TMs and runs every TM call on one worker thread."""

    opened = Signal(int)          # number of TMs
    indexing = Signal(str)        # "" or which TM's index is being rebuilt, and how far
    added = Signal(int)           # unit id of a confirmed pair
    failed = Signal(str)
    shared_state = Signal(str)    # "" or why the shared TM is not taking confirmations
    replica_state = Signal(str, bool)  # "" or what a shared TM's replica is doing; a copy to cancel?

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.pool.setExpiryTimeout(-1)
        self.project_folder = Path(project.folder)
        self.src_lang, self.tgt_lang = project.src_lang, project.tgt_lang
        self.infos = project_tm_infos(project)
        self.tms: list = []  # one per info; None while a shared TM is offline
        self._outbox = None  # the project's Outbox, opened on first use (app/tm_shared.py)
        self._state = ""
        self._refused: dict[int, tuple[TMRefused, float]] = {}  # shared TM index -> (why, next try)
        self._retry = QTimer(self)
        self._retry.setInterval(RETRY_MS)
        self._retry.timeout.connect(lambda: self.run(self._reconnect) if not self._jobs else None)
        self.shared_state.connect(self._on_state)
        self.lookups = LatestOnly(self.pool, self)
        self.concordances = LatestOnly(self.pool, self)
        self._jobs: set[Worker] = set()
        self._index_timer = QTimer(self)
        self._index_timer.setInterval(1000)
        self._index_timer.timeout.connect(self._report_indexing)
        self._cut: set[int] = set()  # shared TMs answering from their replica, cut off from the server
        self._copy_sizes: dict[int, int] = {}
        self._replica_shown = ("", False)
        self._replica_timer = QTimer(self)
        self._replica_timer.setInterval(POLL_MS)
        self._replica_timer.timeout.connect(self._poll_replicas)
        self.opens = 1  # jobs queued that open TMs (a lookup queued after all of them searches every TM)
        self.queued = 0  # jobs queued at priority >= 0: writes, imports, openings (what a search finds may change)
        self.run(self._open_all, on_result=lambda n: (self.opened.emit(n), self._report_indexing(),
                                                        self._poll_replicas()))
        if hasattr(parent, "statusBar"):
            from app.tmstatus import ReplicaStatus, TMStatusLabel

            TMStatusLabel.attach(parent, self)
            ReplicaStatus.attach(parent, self)

    # -- running on the TM thread --------------------------------------------------
    def run(self, fn: Callable, *args, on_result=None, on_error=None, on_progress=None, priority: int = 0) -> Worker:
        """Queue ``fn(control, *args)`` on the TM thread (never dropped; of the jobs waiting, those of higher
        ``priority`` start first: the rows looked up ahead wait behind the row entered)."""
        w = Worker(fn, *args)
        self.queued += priority >= 0
        if on_result:
            w.signals.result.connect(on_result)
        w.signals.error.connect(on_error or self.failed.emit)
        if on_progress:
            w.signals.progress.connect(on_progress)
        self._jobs.add(w)
        w.signals.finished.connect(lambda w=w: self._jobs.discard(w))
        return start(w, self.pool, priority)

    def busy(self) -> bool:
        return bool(self._jobs) or self.pool.activeThreadCount() > 0

    def _open(self, info: TMInfo, create: bool | None = None):
        """``info``'s TM; a folder is created only inside the project (or when the user names it here)."""
        if create is None:
            create = info.shared or trusted.inside(self.project_folder, Path(info.path))
        return open_tm(info.path, create=create, src_lang=self.src_lang, tgt_lang=self.tgt_lang)

    def _open_all(self, control) -> int:
        for info in self.infos:
            try:
                self.tms.append(self._open(info))
            except TMOffline:
                if not info.shared:
                    raise
                self.tms.append(None)
        self._check_shared()
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
            self.tms.append(self._open(info))
            self.infos.append(info)
            return len(self.tms)

        self.opens += 1
        self.run(job)
        return info

    def add_tm(self, project, ref: Path | str, *, writable: bool = False) -> TMInfo:
        """List the TM ``ref`` (a folder or a shared TM's URL) in the project's settings
        and open it on the TM thread, after the jobs already queued (an import into it)."""
        listed = project.add_tm_ref(ref, writable=writable)
        if is_tm_url(str(ref)):
            from engine.tm.pg import split_url

            info = TMInfo(str(ref), writable, split_url(str(ref))[1])
        else:
            info = TMInfo(listed.path, writable, listed.name)

        def job(control):
            try:
                tm = self._open(info, create=True)  # the user's own choice
            except TMOffline:
                if not info.shared:
                    raise
                tm = None
            self.tms.append(tm)
            self.infos.append(info)
            self._check_shared()
            return len(self.tms)

        self.opens += 1
        self.run(job, on_result=lambda n: self._poll_replicas())
        return info

    def lists(self, ref: Path | str) -> bool:
        """True when the project already lists the TM ``ref``."""
        from engine.urls import strip_credentials

        key = strip_credentials(str(ref)) if is_tm_url(str(ref)) else str(Path(ref).resolve())
        return any((i.key if i.shared else str(Path(i.path).resolve())) == key for i in self.infos)

    # -- searches ------------------------------------------------------------------
    def lookup(self, key, query: TaggedText, k: int = 5) -> None:
        """Search every TM for ``query``; ``lookups.ready(key, [FoundMatch])`` (newest request only)."""
        self.lookups.request(key, self._search, query, k)

    def _search(self, control, query: TaggedText, k: int) -> list[FoundMatch]:
        control.check()  # a request already superseded is not worth running
        found: list[FoundMatch] = []
        for info, tm in zip(self.infos, self.tms):
            if tm is None:
                continue
            try:
                for m in tm.search(query, k=k, min_score=0.3):
                    found.append(FoundMatch(m, info.name))
            except TMOffline:
                self._offline(info)
                self._check_shared()
            control.check()
        found.sort(key=lambda f: (-f.match.score, -f.match.char_score))
        # What the search kept (decoded postings) leaves the cyclic collector: the searches of the
        # rows entered and looked up ahead set off full collections on this thread that walked it
        # all with the interpreter lock held, 48-246 ms each, six in the 1.5 s the UI stood still
        # (benchmarks/RESULTS.md, issue 46 item 1); see also NavigationController.segment_entered.
        gc.freeze()
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
            if tm is None:
                continue
            try:
                out += [(info.name, h) for h in tm.concordance(phrase, side=side, limit=50)]
            except TMOffline:
                self._offline(info)
                self._check_shared()
        return out

    # -- writing -------------------------------------------------------------------
    def writable(self) -> TranslationMemory | None:
        for info, tm in zip(self.infos, self.tms):
            if info.writable:
                return tm
        return None

    def writable_info(self) -> TMInfo | None:
        return next((i for i in self.infos if i.writable), None)

    def add(self, source: TaggedText, target: TaggedText, meta: dict | None = None,
            on_written: Callable[[], None] | None = None) -> None:
        """Queue the pair for the writable TM (before any later lookup);
        ``on_written()`` runs on the UI thread once the TM (or a shared TM's
        outbox) holds it -- not when the write failed."""
        if self.writable_info() is None:
            return
        self.run(self._add, source, target, meta or {}, on_result=self._written(on_written))

    def replace(self, source: TaggedText, old: TaggedText, new: TaggedText, meta: dict,
                on_written: Callable[[], None] | None = None) -> None:
        """Queue a corrected confirmation: the writable TM's unit ``source`` + ``old`` holds
        ``new`` instead (added when it has no such unit).  A shared TM that cannot take it now
        gets the new pair through its outbox, as a confirm does (the old unit is then left for
        the translator to correct)."""
        if self.writable_info() is None:
            return

        def job(control):
            info, tm = self.writable_info(), self.writable()
            if tm is not None and (not info.shared or (tm.writable and not self.outbox().pending(info.key))):
                try:
                    return replace_in_tm(tm, source, old, new, meta)
                except (TMOffline, TMReadOnly):
                    pass  # through the outbox below, as a confirm would
            return self._add(control, source, new, meta)
        self.run(job, on_result=self._written(on_written))

    def _written(self, on_written: Callable[[], None] | None):
        """The UI-thread callback of a TM write: ``on_written()`` once the TM or the outbox holds it."""
        def done(uid):
            if on_written is not None:
                on_written()
            if uid:
                self.added.emit(uid)
        return done

    def send_pending(self, project) -> int:
        """Queue what the project still owes the TM (a crash came between a
        confirm and its TM write); return how many."""
        if self.writable_info() is None:
            return 0
        pending = project.tm_pending()
        for p in pending:
            written = (lambda sid=p.segment.id: project.tm_written([sid]))
            if p.replaces is not None:  # a corrected confirmation: its unit takes the new target
                self.replace(p.segment.source, p.replaces, p.segment.target, p.meta, on_written=written)
            else:
                self.add(p.segment.source, p.segment.target, p.meta, on_written=written)
        return len(pending)

    def record_use(self, uid: int, tm_name: str) -> None:
        def job(control):
            for info, tm in zip(self.infos, self.tms):
                if info.name == tm_name and tm is not None:
                    try:
                        tm.record_use(uid)
                    except (TMOffline, TMReadOnly):
                        pass  # a usage count is not worth an outbox
        self.run(job)

    def units(self) -> int:
        """Units over all TMs (only call from the TM thread or when idle)."""
        total = 0
        for tm in self.tms:
            try:
                total += len(tm) if tm is not None else 0
            except TMOffline:
                pass
        return total

    def _report_indexing(self) -> None:
        """Say while a local TM's index is rebuilt in the background (its matches
        come from a full scan meanwhile), and finish the swap once it is built."""
        parts = []
        for info, tm in zip(self.infos, self.tms):
            if isinstance(tm, TranslationMemory) and tm.rebuilding is not None:
                done, total = tm.rebuilding
                parts.append(f"Rebuilding the search index of TM {info.name}: "
                             f"{100 * done // max(total, 1)} % (matches meanwhile come from a slower full scan)")
        msg = "; ".join(parts)
        if msg:
            self._index_timer.start()
            if not self._jobs:  # a finished build is swapped in on the TM thread (the same units: -1, not queued)
                self.run(lambda control: [tm.wait_for_index(0) for tm in self.tms
                                          if isinstance(tm, TranslationMemory)], priority=-1)
        else:
            self._index_timer.stop()
        self.indexing.emit(msg)

    def _poll_replicas(self) -> None:
        """While a shared TM is listed: ask the TM thread (when idle) what its replica is doing."""
        if not any(i.shared for i in self.infos):
            self._replica_timer.stop()
            return
        self._replica_timer.start()
        if not self._jobs:
            self.run(self._replica_poll, on_result=self._show_replica)

    def _show_replica(self, state: tuple[str, bool]) -> None:
        if state != self._replica_shown:
            self._replica_shown = state
            self.replica_state.emit(*state)

    def close(self) -> None:
        self._replica_timer.stop()
        self._index_timer.stop()
        self._retry.stop()
        self.lookups.invalidate()
        self.concordances.invalidate()
        self.pool.waitForDone(10_000)
        if self._outbox is not None:
            self._outbox.close()
            self._outbox = None
        for tm in self.tms:
            try:
                if tm is not None:
                    tm.close()
            except Exception:  # noqa: BLE001 - closing on exit must not raise
                pass
        self.tms = []


__all__ = ["TMService", "FoundMatch", "adapt_tags", "SCORE_TOOLTIP", "Cancelled", "project_tm_infos"]
