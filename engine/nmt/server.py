"""The suggestion engine in a process of its own: :func:`serve` loads a
:class:`~engine.nmt.translator.Translator` and answers one request at a time over a
``multiprocessing`` pipe, each message a JSON object (:mod:`engine.nmt.wire`).

Why a process: in the editor the translator shared the interpreter lock with the UI thread and
the TM thread, and every torch operation releases the lock and must take it back behind a thread
busy in Python.  benchmarks/ui_latency.py (demo model, 100k TM, 2,000 segments, 40 steps, dwell 0,
2-core VM at load 0.2-1.3): a suggestion took 389 ms of wall time for 145 ms of thread CPU in the
editor's process, 88 ms for 74 ms here; suggestion on screen p50 290-318 -> 77-79 ms, p95 982-1,142
-> 133-166 ms, the UI thread's longest stall 162-281 -> 102-157 ms.  Here decoding holds a lock
nobody else wants, and the editor's thread waiting for it blocks on the pipe without the lock.

Requests (``op``): ``suggest`` (a :class:`~engine.nmt.results.TranslationRequest` as a dict, ``beam``,
``memory_mode``, ``terms_mode``), ``suggest_many`` (``reqs``, ``beams``: the rows ahead, one batch), ``forced`` (``srcs``, ``tgts``), ``memory_in_effect`` (``mode``),
``info``, ``quit``.  Each carries an ``id``; the answer has the same ``id`` and ``ok`` (the value),
``stopped`` (the search was stopped) or ``error`` (one line).  The first message, before any request,
is the load's: ``ok`` (``quantized``, ``memory``: the memory in effect for each mode) or ``error``.

Stopping: the searches ask ``stop()`` before every step; here it reads the shared ``cancel`` value,
where the editor writes the id of the request it no longer wants (ids only grow, so one write stops
that request and none after it).  The process ends with the editor: on ``quit``, when the pipe
closes, or when its parent is gone (a watcher thread; a parent killed outright closes no pipe
while a search runs).
"""
from __future__ import annotations

import os
import threading
import time

from engine.nmt.wire import decode, encode, request_from_dict, result_to_dict

#: test-only: milliseconds the engine process sleeps at every search step (read once, at its start), so
#: the editor's tests can catch a search under way and stop it; unset in normal use
SLOW_STEP_ENV = "VERSO_TEST_SLOW_STEP_MS"
PARENT_CHECK_S = 1.0


def one_line(e: BaseException) -> str:
    return " ".join((str(e) or e.__class__.__name__).split())


def serve(conn, cancel, folder: str, threads: int, quantize: int, parent: int) -> None:
    """The engine process (the target of a spawned ``multiprocessing.Process``)."""
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()
    from engine.nmt.heap import import_torch_alone, loaded_for_good

    try:
        with loaded_for_good():  # torch and the model, for the process's life
            import_torch_alone()
            import torch

            from engine.nmt.knn import MEMORY_MODES
            from engine.nmt.translator import Translator

            tr = Translator.load(folder, quantize=bool(quantize) and not torch.cuda.is_available(), threads=threads)
            hello = {"ok": {"quantized": tr.quantized, "memory": {m: tr.memory_in_effect(m) for m in MEMORY_MODES}}}
    except Exception as e:  # noqa: BLE001 - the editor shows it as the load's one-line error
        _send(conn, {"error": one_line(e)})
        return
    if not _send(conn, hello):
        return
    slow = float(os.environ.get(SLOW_STEP_ENV, "0") or 0) / 1000
    while True:
        try:
            msg = decode(conn.recv_bytes())
        except (EOFError, OSError):
            return  # the editor is gone
        if msg.get("op") == "quit":
            return
        if not _send(conn, answer(tr, msg, cancel, slow)):
            return


def answer(tr, msg: dict, cancel, slow: float = 0.0) -> dict:
    """The reply to one request ``msg``."""
    from engine.nmt.search import Stopped

    rid = msg["id"]

    def stop() -> bool:
        if slow:
            time.sleep(slow)
        return cancel.value >= rid

    try:
        op = msg["op"]
        if op == "suggest":
            res = tr.suggest(request_from_dict(msg["req"]), beam=msg.get("beam", 5),
                             memory_mode=msg.get("memory_mode", "auto"), terms_mode=msg.get("terms_mode", "off"),
                             stop=stop)
            out = result_to_dict(res)
        elif op == "suggest_many":
            out = [result_to_dict(r) for r in tr.suggest_many(
                [request_from_dict(d) for d in msg["reqs"]], beams=msg["beams"],
                memory_mode=msg.get("memory_mode", "auto"), terms_mode=msg.get("terms_mode", "off"), stop=stop)]
        elif op == "forced":
            out = [result_to_dict(r) for r in tr.forced(msg["srcs"], msg["tgts"])]
        elif op == "memory_in_effect":
            out = tr.memory_in_effect(msg.get("mode", "auto"))
        elif op == "info":
            out = tr.info()
        else:
            raise ValueError(f"unknown request {op!r}")
    except Stopped:
        return {"id": rid, "stopped": True}
    except Exception as e:  # noqa: BLE001 - one line back to the editor, the process goes on
        return {"id": rid, "error": one_line(e)}
    return {"id": rid, "ok": out}


def _send(conn, msg: dict) -> bool:
    try:
        conn.send_bytes(encode(msg))
        return True
    except (OSError, ValueError):
        return False


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK_S)
        if os.getppid() != parent:
            os._exit(0)
