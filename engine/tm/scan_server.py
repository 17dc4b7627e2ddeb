"""The child process of :class:`engine.tm.scan.ScanProcess`: a TM's units scanned while its index
is rebuilt, one search per JSON line in, one JSON line out.

    python -m engine.tm.scan_server TM_SQLITE [SRC TGT]

The units of the pair SRC -> TGT are loaded as it starts (before the first search comes).  A
request: ``{"pair", "core", "surface", "punct", "need", "min", "changed"}`` (``changed``: unit
ids to read again first); an answer: ``{"ranked": [[score, uid], ...], "scanned", "exact",
"pid"}`` or ``{"error": one line}``.  It ends when its input closes (the editor's process ended
or the rebuild is in place).  The database is opened read only (``query_only``); its schema was checked by the editor's process.
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path


def connect(db_path: Path) -> sqlite3.Connection:
    """The TM's database, read only.  Not through :func:`engine.tm.store.connect`: the editor's
    process checked its schema as it opened the TM (and sqlite_utils would be most of this
    process's start)."""
    conn = sqlite3.connect(str(db_path), isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA query_only=1")
    return conn


def serve(db_path: Path, pair: tuple[str, str] | None, inp, out) -> None:
    from engine.tm.pairs import pair_filter
    from engine.tm.scan import ScanSearch
    from engine.tm.scoring import Encoded

    conn = connect(db_path)
    scans: dict[tuple[str, str], ScanSearch] = {}
    if pair is not None:  # read while the editor opens (a thread reading beside the searches slowed both)
        scans[pair] = ScanSearch(conn, pair_filter(*pair))
    for line in inp:
        try:
            req = json.loads(line)
            changed = [int(u) for u in req.get("changed") or ()]
            for scan in scans.values():
                scan.update(conn, changed)
            key = (str(req["pair"][0]), str(req["pair"][1]))
            scan = scans.get(key)
            if scan is None:
                scan = scans[key] = ScanSearch(conn, pair_filter(*key))
            ranked, info = scan.best(Encoded(str(req["core"]), str(req["surface"]), str(req["punct"])),
                                     int(req["need"]), float(req["min"]))
            ans = {"ranked": ranked, **info, "pid": os.getpid()}
        except Exception as e:  # noqa: BLE001 - told to the editor's process in one line
            ans = {"error": f"the search during the index rebuild failed: {type(e).__name__}: {e}".splitlines()[0]}
        out.write(json.dumps(ans).encode() + b"\n")
        out.flush()
    conn.close()


def main(argv: list[str]) -> None:
    pair = (argv[1], argv[2]) if len(argv) >= 3 else None
    serve(Path(argv[0]), pair, sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main(sys.argv[1:])
