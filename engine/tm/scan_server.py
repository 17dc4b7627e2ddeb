"""The child process of :class:`engine.tm.scan.ScanProcess`: a TM's units scanned while its index
is rebuilt, one search per JSON line in, one JSON line out.

    python -m engine.tm.scan_server TM_SQLITE [SRC TGT]

The units of the pair SRC -> TGT are loaded as it starts (before the first search comes).  A
request: ``{"pair", "core", "surface", "punct", "need", "min", "changed"}`` (``changed``: unit
ids to read again first); an answer: ``{"ranked": [[score, uid], ...], "scanned", "exact",
"pid"}`` or ``{"error": one line}``.  It ends when its input closes (the editor's process ended
or the rebuild is in place).  The database is opened read only (``query_only``).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def serve(db_path: Path, pair: tuple[str, str] | None, inp, out) -> None:
    from engine.tm import store
    from engine.tm.memory import _pair_filter
    from engine.tm.scan import ScanSearch
    from engine.tm.scoring import Encoded

    conn = store.connect(db_path)
    conn.execute("PRAGMA query_only=1")
    scans: dict[tuple[str, str], ScanSearch] = {}
    if pair is not None:
        scans[pair] = ScanSearch(conn, _pair_filter(*pair))
    for line in inp:
        try:
            req = json.loads(line)
            if req.get("changed"):
                for scan in scans.values():
                    scan.update(conn, [int(u) for u in req["changed"]])
            key = (str(req["pair"][0]), str(req["pair"][1]))
            scan = scans.get(key)
            if scan is None:
                scan = scans[key] = ScanSearch(conn, _pair_filter(*key))
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
