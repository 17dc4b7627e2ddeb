"""The editor's side of the suggestion engine process (:mod:`engine.nmt.server`):
:class:`RemoteTranslator` has the translator methods the editor uses (``suggest``, ``suggest_many``, ``forced``,
``memory_in_effect``, ``info``, ``quantized``) and runs each in the engine process.

One request at a time (a lock): the calling thread sends it and waits on the pipe, which releases
the interpreter lock; every :data:`POLL_S` it asks the request's ``stop`` and, once that says True,
writes the request's id where the engine's search looks before every step.  An engine process
that dies (killed, out of memory) fails the request under way with one line, and the next request
starts a new one.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import threading
import weakref
from pathlib import Path

from engine.errors import ModelError, VersoError
from engine.nmt.wire import decode, encode, request_to_dict, result_from_dict

#: how often a waiting request asks its ``stop`` (a stopped search ends within this and one step)
POLL_S = 0.02
QUIT_WAIT_S = 2.0


class EngineStopped(VersoError):
    """The engine process ended while it had a request (it starts again with the next one)."""


class RemoteTranslator:
    """A :class:`~engine.nmt.translator.Translator` of ``folder`` in a process of its own (started
    here; loading errors raise :class:`~engine.errors.ModelError` with the engine's line)."""

    def __init__(self, folder: str | Path, *, threads: int = 0, quantize: bool = False):
        self.folder, self.threads, self.quantize = str(folder), int(threads), bool(quantize)
        self._ctx = multiprocessing.get_context("spawn")
        self._cancel = self._ctx.RawValue("q", 0)  # requests with an id <= this one stop
        self._ids = itertools.count(1)
        self._last = 0
        self._lock = threading.Lock()
        self.proc = self.conn = None
        self._closed = False
        self.quantized = False
        self._memory: dict[str, str] = {}
        self.starts = 0  # engine processes started (the first and each restart)
        with self._lock:
            self._start()

    # -- the process -------------------------------------------------------------------------
    def _start(self) -> None:
        from engine.nmt.server import serve

        mine, theirs = self._ctx.Pipe()
        self._cancel.value = self._last  # nothing asked before this start stops what comes after
        proc = self._ctx.Process(target=serve, name="verso-nmt", daemon=True,
                                 args=(theirs, self._cancel, self.folder, self.threads, int(self.quantize),
                                       os.getpid()))
        proc.start()
        theirs.close()  # the engine's end: its death is then the end of the pipe here
        self.proc, self.conn = proc, mine
        self.starts += 1
        self._finalizer = weakref.finalize(self, _end, proc, mine)
        try:
            hello = self._receive(None, 0)
        except EngineStopped:
            raise ModelError(f"the engine process ended while loading (exit code {proc.exitcode})") from None
        if "error" in hello:
            self._shut()
            raise ModelError(hello["error"])
        self.quantized = bool(hello["ok"]["quantized"])
        self._memory = dict(hello["ok"]["memory"])

    def _alive(self) -> bool:
        return self.proc is not None and self.proc.is_alive()

    def _receive(self, stop, rid: int) -> dict:
        conn, asked = self.conn, False
        try:
            while True:
                while not conn.poll(POLL_S):
                    if stop is not None and not asked and stop():
                        self._cancel.value, asked = max(self._cancel.value, rid), True
                msg = decode(conn.recv_bytes())
                if msg.get("id", 0) == rid:
                    return msg
        except (EOFError, OSError):
            code = self._shut()
            raise EngineStopped(f"the suggestion engine stopped (exit code {code}); "
                                "the next suggestion starts it again") from None

    def _call(self, msg: dict, stop=None):
        from engine.nmt.results import Stopped

        with self._lock:
            if self._closed:  # a request queued before the editor closed the engine
                raise Stopped()
            if not self._alive():
                self._shut()
                self._start()
            rid = self._last = next(self._ids)
            try:
                self.conn.send_bytes(encode({**msg, "id": rid}))
            except OSError:
                code = self._shut()
                raise EngineStopped(f"the suggestion engine stopped (exit code {code}); "
                                    "the next suggestion starts it again") from None
            reply = self._receive(stop, rid)
        if reply.get("stopped"):
            raise Stopped()
        if "error" in reply:
            raise VersoError(reply["error"])
        return reply["ok"]

    def _shut(self) -> int | None:
        """End the engine process (asked to quit, then terminated); its exit code."""
        proc, conn = self.proc, self.conn
        self.proc = self.conn = None
        if proc is None:
            return None
        self._finalizer.detach()
        return _end(proc, conn)

    # -- the translator's methods ---------------------------------------------------------------
    def suggest(self, req, *, beam: int = 5, memory_mode: str = "auto", terms_mode: str = "off", stop=None):
        out = self._call({"op": "suggest", "req": request_to_dict(req), "beam": beam, "memory_mode": memory_mode,
                          "terms_mode": terms_mode}, stop)
        return result_from_dict(out)

    def suggest_many(self, reqs: list, *, beams: list[int], memory_mode: str = "auto", terms_mode: str = "off",
                     stop=None) -> list:
        """:meth:`suggest` of each request (a beam each), translated together (engine.nmt.suggesting)."""
        out = self._call({"op": "suggest_many", "reqs": [request_to_dict(r) for r in reqs], "beams": list(beams),
                          "memory_mode": memory_mode, "terms_mode": terms_mode}, stop)
        return [result_from_dict(d) for d in out]

    def forced(self, srcs: list[str], tgts: list[str]):
        return [result_from_dict(d) for d in self._call({"op": "forced", "srcs": list(srcs), "tgts": list(tgts)})]

    def memory_in_effect(self, mode: str = "auto") -> str:
        """As the engine said at its start (no request: the UI thread asks it)."""
        return self._memory.get(mode) or self._memory.get("auto", "none")

    def info(self) -> dict:
        return self._call({"op": "info"})

    def restart(self) -> None:
        """End the engine process and start a new one (which reads the environment anew)."""
        with self._lock:
            self._shut()
            self._start()

    def cancel(self) -> None:
        """Stop the request under way (its search ends at its next step)."""
        self._cancel.value = max(self._cancel.value, self._last)

    def close(self) -> None:
        """End the engine process; the request under way stops, later ones are refused (``Stopped``)."""
        self._closed = True
        self.cancel()
        if self._lock.acquire(timeout=QUIT_WAIT_S):
            try:
                self._shut()
            finally:
                self._lock.release()
        elif self.proc is not None:
            self.proc.kill()


def _end(proc, conn) -> int | None:
    try:
        conn.send_bytes(encode({"op": "quit"}))
    except (OSError, ValueError):
        pass
    proc.join(QUIT_WAIT_S)
    if proc.is_alive():
        proc.terminate()
        proc.join(QUIT_WAIT_S)
    if proc.is_alive():
        proc.kill()
        proc.join()
    conn.close()
    return proc.exitcode
