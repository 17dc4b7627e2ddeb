"""A large TM's index rebuilt in a process of its own (:class:`BackgroundBuild`).

The build is Python from end to end (the units' terms, Whoosh's postings writer) and makes
garbage collections of a growing heap: run on a thread of the editor's process, it held the
interpreter lock long enough that the editor's UI thread stood still 1.3-2.9 s at a time
(``benchmarks/ui_latency.py``, a 100,000-unit TM opened where its index is not trusted, e.g. a
TM folder received from someone else; py-spy with ``--gil``: the build, Whoosh's writer and
``gc_collect_main`` held it).  In a process of its own it takes none of the editor's.

The child opens the TM's SQLite itself (one snapshot: the units and the journal seq they
reflect), builds the index beside the live one and seals it as :func:`build_new` does; the
parent's thread (same interface as before: ``start``, ``join``, ``is_alive``, ``done``,
``result``, ``error``, ``stop``) follows its progress through shared counts and reads its one
JSON answer from a pipe -- no pickle of data.  The TM's owner swaps the new index in.
"""
from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import threading
from pathlib import Path
from typing import Callable, Iterable, Iterator

from engine.errors import TMError

#: how often the parent looks at the child's progress (and at a cancel)
POLL_S = 0.2


class BackgroundBuild(threading.Thread):
    """Builds a TM's index from a snapshot of its SQLite in a child process (``done``: units
    indexed, units; ``result``: index id and journal seq of the snapshot once built)."""

    def __init__(self, db_path: Path, index_dir: Path, progress: Callable[[int, int], None] | None):
        super().__init__(name="verso-tm-index", daemon=True)
        self.db_path, self.index_dir, self.progress = db_path, index_dir, progress
        self.stop = threading.Event()
        self.done = (0, 0)
        self.result: tuple[str, int] | None = None
        self.error: BaseException | None = None
        self.pid: int | None = None  # the build process's

    def _count(self, done: int, total: int) -> None:
        self.done = (done, total)
        if self.progress is not None:
            self.progress(done, total)

    def run(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        counts = ctx.RawArray("q", 2)  # units indexed, units
        cancel = ctx.Event()
        mine, theirs = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=build_in_child, name="verso-tm-index", daemon=True,
                           args=(str(self.db_path), str(self.index_dir), counts, cancel, theirs))
        try:
            proc.start()
        except OSError as e:
            self.error = TMError(f"{self.index_dir}: the index rebuild could not start ({e})")
            return
        theirs.close()
        self.pid = proc.pid
        answer, seen = None, (0, 0)
        try:
            while answer is None:
                if self.stop.is_set():
                    cancel.set()
                if mine.poll(POLL_S):
                    answer = json.loads(mine.recv_bytes())
                elif not proc.is_alive() and not mine.poll(0):
                    answer = {"error": f"the index build process ended (exit code {proc.exitcode})"}
                now = (int(counts[0]), int(counts[1]))
                if now != seen and now[1]:
                    seen = now
                    self._count(*now)
        except (EOFError, OSError, ValueError) as e:
            answer = {"error": f"no answer from the index build process ({e})"}
        finally:
            mine.close()
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        if "result" in answer:
            index_id, seq = answer["result"]
            self.result = (str(index_id), int(seq))
        elif answer.get("cancelled"):
            self.error = TMError(f"{self.index_dir}: the index rebuild was cancelled")
        else:
            self.error = TMError(f"{self.index_dir}: the index rebuild failed: {answer.get('error')}")

    def cancel(self) -> None:
        self.stop.set()
        self.join()


def build_in_child(db_path: str, index_dir: str, counts, cancel, conn) -> None:
    """The child process: build, then send one JSON answer (result, cancelled or error)."""
    from engine.tm import store
    from engine.tm.limits import FITS
    from engine.tm.seal import Seal
    from engine.tm.whoosh_index import BuildCancelled, build_new, new_index_id

    def count(done: int, total: int) -> None:
        counts[0], counts[1] = done, total

    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)  # background work: the editor and the search scan (engine/tm/scan.py) come first
    rconn = store.connect(Path(db_path))
    wconn = store.connect(Path(db_path))
    try:
        rconn.execute("BEGIN")  # one snapshot: the units and the journal seq they reflect
        seq = rconn.execute("SELECT max(seq) FROM journal").fetchone()[0] or 0
        total = rconn.execute("SELECT count(*) FROM units").fetchone()[0]
        docs = rconn.execute("SELECT id, source, target, src_lang, tgt_lang, enc, senc, penc "
                             f"FROM units WHERE {FITS} ORDER BY id")  # engine.tm.limits: none read whole
        index_id = new_index_id()
        build_new(Path(index_dir), counted(docs, total, count), index_id, seq, Seal(lambda: wconn), stop=cancel)
        answer: dict = {"result": [index_id, seq]}
    except BuildCancelled:
        answer = {"cancelled": True}
    except Exception as e:  # noqa: BLE001 - told to the parent in one line
        answer = {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
    finally:
        with contextlib.suppress(Exception):
            rconn.execute("ROLLBACK")
        rconn.close()
        wconn.close()
    with contextlib.suppress(OSError):
        conn.send_bytes(json.dumps(answer).encode())
    conn.close()


def counted(rows: Iterable, total: int, progress: Callable[[int, int], None] | None,
            every: int = 5000) -> Iterator:
    """``rows`` as they are, calling ``progress(done, total)`` every ``every`` rows."""
    if progress is None:
        yield from rows
        return
    progress(0, total)
    done = 0
    for row in rows:
        yield row
        done += 1
        if done % every == 0:
            progress(done, total)
    progress(done, total)
