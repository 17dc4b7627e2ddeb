"""Spelling processes shared by dictionary: every checker of one dictionary in this process asks
the same child (:class:`engine.spelling.process.SpellProcess`) through a :class:`SpellLease`.

Why: a child reads German in 2.7-3.1 s of CPU; one per editor window or per project opened would
read it again each time (the app test run had 18 children of de_DE alive at once, 260 MB each).
A child whose last lease closed stays for the next :data:`IDLE_KEPT` dictionaries asked (reopening
a project is then instant) and ends with this process (its input closes).  A child that has been
restarted after a crash is not handed to a new lease: that lease starts a fresh one, so one
crash-looping dictionary never spends another window's restarts."""
from __future__ import annotations

import atexit
import logging
import threading
from collections import OrderedDict

from engine.spelling.dictionaries import DictionaryInfo
from engine.spelling.process import SpellProcess

log = logging.getLogger(__name__)

IDLE_KEPT = 2


class _Entry:
    def __init__(self, proc: SpellProcess):
        self.proc, self.users = proc, 0


_lock = threading.Lock()
_entries: OrderedDict[tuple, _Entry] = OrderedDict()   # by dictionary, least recently leased first
_retired: list[_Entry] = []                            # replaced while still leased


def _key(info: DictionaryInfo) -> tuple:
    return (str(info.dic.resolve()), info.dic.stat().st_mtime, str(info.aff.resolve()), info.aff.stat().st_mtime)


def lease(info: DictionaryInfo) -> SpellLease:
    """A lease on the child of ``info``'s dictionary, started (and waited for: 1-3 s for German,
    call it off the UI thread) unless one already answers.  Raises ValueError (one line naming the
    file) when the dictionary cannot be read.  The start runs outside the registry's lock: a
    project closed on the UI thread meanwhile gives its lease back without waiting for it."""
    key = _key(info)
    ending: list[SpellProcess] = []
    with _lock:
        entry = _fresh(key, ending)
        if entry is not None:
            return _take(key, entry)
    for proc in ending:
        proc.close()
    proc = SpellProcess(info)
    proc.start()
    with _lock:
        entry = _fresh(key, ending)
        if entry is None:
            entry = _entries[key] = _Entry(proc)
        else:
            ending.append(proc)    # another thread started one meanwhile: use that
        lease_ = _take(key, entry)
    for p in ending:
        p.close()
    return lease_


def _fresh(key: tuple, ending: list) -> _Entry | None:
    """The entry of ``key`` if its child never crashed (under the lock); a crashed one leaves the
    registry (closed by the caller after the lock when nobody uses it)."""
    entry = _entries.get(key)
    if entry is not None and entry.proc.restarts:
        del _entries[key]          # it crashed once: a fresh child for the new lease
        if entry.users:
            _retired.append(entry)
        else:
            ending.append(entry.proc)
        entry = None
    return entry


def _take(key: tuple, entry: _Entry) -> SpellLease:
    entry.users += 1
    _entries.move_to_end(key)
    return SpellLease(entry)


def _release(entry: _Entry) -> None:
    ending: list[SpellProcess] = []
    with _lock:
        entry.users -= 1
        if entry.users > 0:
            return
        if entry in _retired:
            _retired.remove(entry)
            ending.append(entry.proc)
        else:
            idle = [k for k, e in _entries.items() if e.users == 0]
            ending.extend(_entries.pop(k).proc for k in idle[:max(0, len(idle) - IDLE_KEPT)])
    for proc in ending:   # outside the lock: a child's end may wait up to 2 s
        proc.close()


@atexit.register
def close_all() -> None:
    """End every child (also done by the system when this process ends: their input closes)."""
    with _lock:
        for e in list(_entries.values()) + _retired:
            e.proc.close()
        _entries.clear()
        _retired.clear()


class SpellLease:
    """One checker's use of a shared child: asks as :class:`SpellProcess` does, its own
    ``on_restored`` callbacks, and :meth:`close` gives the child back (it ends once nobody uses it
    and it is no longer among the last kept)."""

    def __init__(self, entry: _Entry):
        self._entry, self._closed = entry, False
        self.on_restored: list = []
        entry.proc.on_restored.append(self._restored)

    @property
    def info(self) -> DictionaryInfo:
        return self._entry.proc.info

    @property
    def pid(self) -> int | None:
        return self._entry.proc.pid

    @property
    def restarts(self) -> int:
        return self._entry.proc.restarts

    def _restored(self) -> None:
        for fn in [] if self._closed else list(self.on_restored):
            try:
                fn()
            except Exception:  # noqa: BLE001 - a closed editor's callback
                log.debug("spelling restore callback failed", exc_info=True)

    def lookup_many(self, words: list[str]) -> list[bool] | None:
        return None if self._closed else self._entry.proc.lookup_many(words)

    def suggest(self, word: str, limit: int, time_budget: float | None) -> tuple[list[str], bool] | None:
        return None if self._closed else self._entry.proc.suggest(word, limit, time_budget)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._entry.proc.on_restored.remove(self._restored)
        except ValueError:
            pass
        _release(self._entry)


__all__ = ["SpellLease", "lease", "close_all", "IDLE_KEPT"]
