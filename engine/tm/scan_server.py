"""The child process of :class:`engine.tm.scan.ScanProcess`: a TM's units scanned while its index
is rebuilt, one search per JSON line in, one JSON line out.

    python -m engine.tm.scan_server TM_SQLITE [SRC TGT]

The units of the pair SRC -> TGT are loaded as it starts (before the first search comes).  A
request: ``{"pair", "core", "surface", "punct", "need", "min", "changed"}`` (``changed``: unit
ids to read again first); an answer: ``{"ranked": [[score, uid], ...], "scanned", "exact",
"pid"}`` (``"early": true``: answered while the units were still being read) or
``{"error": one line}``.  It ends when its input closes (the editor's process ended
or the rebuild is in place).  The database is opened read only (``query_only``); its schema was checked by the editor's process.
"""
from __future__ import annotations

import json
import os
import queue
import sqlite3
import sys
import threading
from pathlib import Path


def connect(db_path: Path) -> sqlite3.Connection:
    """The TM's database, read only.  Not through :func:`engine.tm.store.connect`: the editor's
    process checked its schema as it opened the TM (and sqlite_utils would be most of this
    process's start)."""
    conn = sqlite3.connect(str(db_path), isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA query_only=1")
    return conn


class _Closed(Exception):
    """The input closed while the units were being read."""


def _read_lines(inp, requests: queue.Queue) -> None:
    """The requests as they come (None: the input closed); a thread, so that a search sent while
    the units are read is seen between two chunks of the read."""
    for line in inp:
        requests.put(line)
    requests.put(None)


def serve(db_path: Path, pair: tuple[str, str] | None, inp, out, requests: queue.Queue | None = None) -> None:
    """Answer the searches of ``inp`` (or of ``requests``, lines put there) on ``out``.

    The units of ``pair`` are read first; a search that comes meanwhile is answered at once from
    the units of the lengths nearest the query's (:class:`engine.tm.scan.NearestLengths`, through
    a second connection that sees units added since): a TM new to the installation showed its first matches only once the whole
    TM was read (0.85-0.9 s wall for 90k units at load 13 on the 2-core VM, after the process's
    0.5 s start).  A search without a minimum score waits for the read."""
    from engine.tm.pairs import pair_filter
    from engine.tm.scan import NearestLengths, ScanSearch
    from engine.tm.scoring import Encoded

    if requests is None:
        requests = queue.Queue()
        threading.Thread(target=_read_lines, args=(inp, requests), daemon=True).start()
    conn = connect(db_path)
    scans: dict[tuple[str, str], ScanSearch] = {}
    changed: list[int] = []   # units changed while the first units were read: taken in after the read
    held: list[bytes] = []    # searches waiting for the read (no length bound)
    nearest: list = []        # the NearestLengths of the early answers (its own connection: it sees units added since)

    def encoded(req) -> Encoded:
        return Encoded(str(req["core"]), str(req["surface"]), str(req["punct"]))

    def key_of(req) -> tuple[str, str]:
        return str(req["pair"][0]), str(req["pair"][1])

    def full(req) -> dict:
        for scan in scans.values():
            scan.update(conn, [int(u) for u in req.get("changed") or ()])
        key = key_of(req)
        scan = scans.get(key)
        if scan is None:
            scan = scans[key] = ScanSearch(conn, pair_filter(*key))
        ranked, info = scan.best(encoded(req), int(req["need"]), float(req["min"]))
        return {"ranked": ranked, **info}

    def early(req) -> dict:
        changed.extend(int(u) for u in req.get("changed") or ())
        if not nearest:
            nearest.append(NearestLengths(connect(db_path)))
        ranked, info = nearest[0].best(encoded(req), int(req["need"]), float(req["min"]), pair_filter(*key_of(req)))
        return {"ranked": ranked, **info}

    def answer(line: bytes, how) -> None:
        try:
            ans = {**how(json.loads(line)), "pid": os.getpid()}
        except Exception as e:  # noqa: BLE001 - told to the editor's process in one line
            ans = {"error": f"the search during the index rebuild failed: {type(e).__name__}: {e}".splitlines()[0]}
        out.write(json.dumps(ans).encode() + b"\n")
        out.flush()

    def between() -> None:
        while True:
            try:
                line = requests.get_nowait()
            except queue.Empty:
                return
            if line is None:
                raise _Closed
            try:
                bounded = float(json.loads(line).get("min", 0)) > 0.0
            except (ValueError, TypeError, AttributeError):
                bounded = True  # malformed: answered (with its error) at once
            if bounded and not held:
                answer(line, early)
            else:
                held.append(line)  # (after a held one: answers keep the order asked)

    try:
        if pair is not None:  # read while the editor opens (a thread reading beside the searches slowed both)
            scans[pair] = ScanSearch(conn, pair_filter(*pair), between=between)
            scans[pair].update(conn, changed)
        for line in held:
            answer(line, full)
        while (line := requests.get()) is not None:
            answer(line, full)
    except _Closed:
        pass
    for c in (conn, *(n.conn for n in nearest)):
        c.close()


def main(argv: list[str]) -> None:
    pair = (argv[1], argv[2]) if len(argv) >= 3 else None
    serve(Path(argv[0]), pair, sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main(sys.argv[1:])
