"""A Hunspell dictionary read and asked in a child process (:mod:`engine.spelling.server`).

Why a process and not a faster form of the dictionary in this one: spylls is pure Python, and
reading de_DE (1-3 s of CPU) on a thread of the editor held the interpreter lock for 348 of 647
samples of an opening (py-spy --gil), stalling the UI thread up to 140 ms at a time while the
translator browsed; a word set precomputed from the .dic/.aff cannot answer what Hunspell's
rules do at lookup time (German compounds: ``Haustürschlüssel`` is in no list) nor suggest, so
the marks would change.  A child keeps spylls' answers exactly and leaves this process's lock
alone: a check of a segment's words is one JSON line each way (see ``benchmarks/RESULTS.md``,
issue 46, session 23, for the cost of a round trip).

When the child ends (killed, crashed) the next question starts a new one and is answered
"right" (no mark, nothing cached) until the new one has read its dictionary; then the
``on_restored`` callbacks run (on a thread of their own) so that marks can be redone.  At
most :data:`MAX_RESTARTS` restarts; after that spelling stays quiet.
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

from engine.childproc import end_child
from engine.spelling.dictionaries import DictionaryInfo
from engine.spelling.server import MAX_WORDS

log = logging.getLogger(__name__)

MAX_RESTARTS = 3


class SpellProcess:
    """The dictionary ``info`` in a child; :meth:`lookup_many` and :meth:`suggest` as
    :class:`engine.spelling.hunspell.Hunspell`'s, except that they answer None while no child
    answers.  Thread-safe: one request at a time."""

    def __init__(self, info: DictionaryInfo):
        self.info = info
        self.on_restored: list[Callable[[], None]] = []
        self.pid: int | None = None
        self.restarts = 0
        self._lock = threading.Lock()      # one request on the pipes at a time
        self._state = threading.Lock()     # _proc, _ready, _closed
        self._proc: subprocess.Popen | None = None
        self._ready = False
        self._closed = False

    # -- the child
    def start(self) -> None:
        """Start the child and wait until it has read the dictionary (1-3 s for German: call it
        off the UI thread).  Raises ValueError (one line, naming the file) when it cannot."""
        proc = self._spawn()
        err = self._wait_ready(proc)
        if err is not None:
            self._end(proc)
            raise ValueError(err)

    def _spawn(self) -> subprocess.Popen:
        import engine

        root = str(Path(engine.__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        try:
            proc = subprocess.Popen([sys.executable, "-m", "engine.spelling.server", str(self.info.dic),
                                     str(self.info.aff)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, env=env)
        except OSError as e:
            raise ValueError(f"{self.info.dic}: the spelling process could not start ({e})") from None
        with self._state:
            self._proc, self._ready, self.pid = proc, False, proc.pid
        return proc

    def _wait_ready(self, proc: subprocess.Popen) -> str | None:
        """None once ``proc`` has read its dictionary, else why not (one line)."""
        try:
            line = proc.stdout.readline()
            first = json.loads(line) if line else {"error": "the spelling process ended as it started"}
        except (OSError, ValueError):
            first = {"error": "the spelling process answered no JSON"}
        if not isinstance(first, dict) or first.get("ready") is not True:
            err = first.get("error") if isinstance(first, dict) else None
            return f"{self.info.dic}: {err or 'the spelling process did not start'}"
        with self._state:
            if self._proc is proc:
                self._ready = True
        return None

    def _restart(self) -> None:
        """A new child, read in the background; the callbacks once it answers."""
        with self._state:
            if self._closed or self.restarts >= MAX_RESTARTS:
                return
            self.restarts += 1
        try:
            proc = self._spawn()
        except ValueError as e:
            log.warning("%s", e)
            return

        def wait() -> None:
            err = self._wait_ready(proc)
            if err is not None:
                log.warning("%s", err)
                return
            for fn in list(self.on_restored):
                try:
                    fn()
                except Exception:  # noqa: BLE001 - a closed editor's callback
                    log.debug("spelling restore callback failed", exc_info=True)

        threading.Thread(target=wait, name="spelling-restart", daemon=True).start()

    def _ask(self, req: dict) -> dict | None:
        """The child's answer, or None (no child ready: one is started when the last one ended)."""
        with self._state:
            proc, ready = self._proc, self._ready
        if proc is None or not ready:
            return None
        with self._lock:
            try:
                proc.stdin.write(json.dumps(req).encode() + b"\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                ans = json.loads(line) if line else None
            except (OSError, ValueError):
                ans = None
        if ans is None:
            with self._state:
                ended = self._proc is proc
                if ended:
                    self._proc, self._ready = None, False
            if ended:
                self._end(proc)
                self._restart()
            return None
        if "error" in ans:
            log.warning("%s: %s", self.info.dic, ans["error"])
            return None
        return ans

    # -- the questions
    def lookup_many(self, words: list[str]) -> list[bool] | None:
        """Whether each word is spelt right; None while no child answers."""
        out: list[bool] = []
        for i in range(0, len(words), MAX_WORDS):
            ans = self._ask({"check": words[i:i + MAX_WORDS]})
            ok = ans.get("ok") if ans else None
            if not isinstance(ok, list) or len(ok) != len(words[i:i + MAX_WORDS]):
                return None
            out.extend(bool(x) for x in ok)
        return out

    def suggest(self, word: str, limit: int, time_budget: float | None) -> tuple[list[str], bool] | None:
        """As :meth:`engine.spelling.hunspell.Hunspell.suggest`; None while no child answers."""
        ans = self._ask({"suggest": word, "limit": limit, "budget": time_budget})
        found = ans.get("found") if ans else None
        if not isinstance(found, list):
            return None
        return [str(s) for s in found][:limit], bool(ans.get("complete"))

    def close(self) -> None:
        """End the child (its input closes); no new one is started."""
        with self._state:
            self._closed = True
            proc, self._proc, self._ready = self._proc, None, False
        if proc is not None:
            with self._lock:
                self._end(proc)

    @staticmethod
    def _end(proc: subprocess.Popen) -> None:
        end_child(proc)
