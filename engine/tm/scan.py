"""Search without the index: the units of the language pair scored straight from SQLite, for
the minutes a rebuild of the index runs in the background -- in a process of its own.

The core score (Eq. 3: s = 1 - D_edit / max(|X|, |X'|)) of the query against the stored
``enc`` (one character per token) is rapidfuzz's normalised Levenshtein similarity, computed in
C++; the best are scored again with the penalties (:func:`engine.tm.scoring.score_many`), as
the indexed search does.

Bounded per query: since D_edit >= | |X| - |X'| |, a unit of ``L`` tokens scores at most
min(q, L) / max(q, L) for a query of ``q`` tokens.  The units are kept sorted by length and
scanned in bands of that bound (1.0, 0.9, ... 0), nearest lengths first; the scan stops once the
pool the penalties re-score is full of core scores no later band can beat (then it is exact) or
after :data:`SCAN_CAP` units.  A 90,000-unit TM scanned whole took 53 ms a query on the 2-core VM
(on the editor's TM thread: the UI stood still 240 ms while the index was rebuilt).

:class:`ScanProcess` runs the scan in a child process (``python -m engine.tm.scan_server``):
the scan is Python and C++ that hold the interpreter lock, so in the editor's own process it
stalled the UI thread.  The child reads SQLite itself (read only); the editor's process sends
one JSON line per search and reads one back.
"""
from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.childproc import end_child
from engine.errors import TMError
from engine.tm.pairs import pair_filter, pair_term
from engine.tm.limits import FITS
from engine.tm.scoring import Encoded, score_many

#: most units one search scores (its nearest lengths first); ~20 ms of rapidfuzz on the 2-core VM
SCAN_CAP = 60_000
#: the length bound min(q, L) / max(q, L) of the bands, scanned in this order
BANDS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)
_SELECT = "SELECT id, src_lang, tgt_lang, enc FROM units WHERE " + FITS  # engine.tm.limits: none read whole
#: the units of some lengths: the length first, so that most rows skip the FITS checks (SQLite 75 -> 40
#: ms CPU for a band of 9k of 90k units on the 2-core VM)
_SELECT_BAND = "SELECT id, src_lang, tgt_lang, enc FROM units WHERE length(enc) BETWEEN ? AND ? AND " + FITS
#: rows read between two looks for a search waiting (the child answers it from its lengths meanwhile)
LOAD_CHUNK = 4096
#: most units a search answered before the TM is read whole reads (nearest lengths first): ~0.07 s
#: CPU of SQLite for 9-15k of 90k units on the 2-core VM, the interpreter lock released meanwhile
EARLY_CAP = 15_000


class ScanSearch:
    """The units of one language-pair filter (None: any pair), as encodings sorted by length;
    with ``lengths`` (lo, hi) only those of lo..hi tokens.  ``between()`` is called after each
    :data:`LOAD_CHUNK` rows read (the child answers a search waiting meanwhile)."""

    def __init__(self, conn: sqlite3.Connection, accept_pair, lengths: tuple[int, int] | None = None,
                 between: Callable[[], None] | None = None):
        self.accept_pair, self.conn = accept_pair, conn
        self._ok: dict[tuple, bool] = {}
        self.ids: list[int] = []
        self.cores: list[str] = []
        # Read in the table's order and sorted here: SQLite's ORDER BY length(enc) sorted every row
        # before handing the first, so a search sent meanwhile waited for it.  Surface and
        # punctuation are read for the re-scored pool only (a third of the load).
        if lengths is not None:  # one row: see one_row
            self._take(one_row(conn, _SELECT_BAND + " ORDER BY id", "id, src_lang, tgt_lang, enc", lengths),
                       self.ids, self.cores)
        else:
            cur = conn.execute(_SELECT + " ORDER BY id")
            while rows := cur.fetchmany(LOAD_CHUNK):
                self._take(rows, self.ids, self.cores)
                if between is not None:
                    between()
        self.sorted_n = len(self.ids)  # units past this were added during the rebuild: always scanned
        lens = np.fromiter((len(c) for c in self.cores), dtype=np.int64, count=self.sorted_n)
        order = np.argsort(lens, kind="stable")  # by length, then id (read in id order)
        self.lens = lens[order]
        self.ids = [self.ids[i] for i in order.tolist()]
        self.cores = [self.cores[i] for i in order.tolist()]
        self._pos = {uid: i for i, uid in enumerate(self.ids)}

    def _accepts(self, sl, tl) -> bool:
        ok = self._ok.get((sl, tl))
        if ok is None:
            ok = self._ok[(sl, tl)] = self.accept_pair is None or bool(self.accept_pair(pair_term(sl or "", tl or "")))
        return ok

    def _take(self, rows, ids: list, cores: list) -> None:
        for uid, sl, tl, enc in rows:
            if self._accepts(sl, tl):
                ids.append(uid)
                cores.append(enc or "")

    def update(self, conn: sqlite3.Connection, uids: list[int]) -> None:
        """Take in units changed since (added, edited or deleted)."""
        for uid in uids:
            i = self._pos.pop(uid, None)
            if i is not None:
                self.cores[i] = ""  # scores 0: never returned
        for i in range(0, len(uids), 500):
            part = uids[i:i + 500]
            start = len(self.ids)
            self._take(conn.execute(_SELECT + " AND id IN (%s) ORDER BY id" % ",".join("?" * len(part)), part),
                       self.ids, self.cores)
            for j in range(start, len(self.ids)):
                self._pos[self.ids[j]] = j

    def _band(self, b: float, q: int) -> tuple[int, int]:
        """Positions of the sorted units whose length bound reaches ``b``: L in [b q, q / b]."""
        if b <= 0.0:
            return 0, self.sorted_n
        lo, hi = math.ceil(b * q - 1e-9), math.floor(q / b + 1e-9)
        return int(np.searchsorted(self.lens, lo, "left")), int(np.searchsorted(self.lens, hi, "right"))

    def best(self, qe: Encoded, need: int, min_score: float, cap: int = SCAN_CAP) -> tuple[list, dict]:
        """(score, uid) of the ``need`` best units by the full score, best first; and what was
        scanned (``scanned`` units, ``exact``: no unit left unscanned could enter the pool)."""
        if not self.ids or not qe.core:
            return [], {"scanned": 0, "exact": True}
        pool_n, q = max(4 * need, 64), len(qe.core)
        cutoff = max(0.0, min_score - 1e-6)
        found: list[tuple[float, int]] = []  # (core score, position)

        def scan(a: int, z: int) -> None:
            if z > a:
                got = process.extract(qe.core, self.cores[a:z], scorer=Levenshtein.normalized_similarity,
                                      limit=pool_n, score_cutoff=cutoff)
                found.extend((s, a + i) for _, s, i in got)

        scan(self.sorted_n, len(self.ids))
        scanned, exact, a, z = len(self.ids) - self.sorted_n, False, None, None
        for n, b in enumerate(BANDS):
            na, nz = self._band(b, q)
            if a is None:
                scan(na, nz)
            else:
                scan(na, a)
                scan(z, nz)
            scanned += (nz - na) - (0 if a is None else z - a)
            a, z = na, nz
            found = sorted(found, reverse=True)[:pool_n]
            nxt = BANDS[n + 1] if n + 1 < len(BANDS) else -1.0
            if nxt < cutoff or (len(found) >= pool_n and found[-1][0] >= nxt) or (a == 0 and z == self.sorted_n):
                exact = True
                break
            if scanned >= cap:
                break
        if not found:
            return [], {"scanned": scanned, "exact": exact}
        idx = [i for _, i in found]
        extra = self._extras([self.ids[i] for i in idx])
        full = score_many(qe, [self.cores[i] for i in idx], [extra.get(self.ids[i], ("", ""))[0] for i in idx],
                          [extra.get(self.ids[i], ("", ""))[1] for i in idx])
        out = [(float(s), self.ids[i]) for s, i in zip(np.asarray(full).tolist(), idx)
               if s > 0.0 and s >= min_score]
        return sorted(out, key=lambda x: (-x[0], x[1]))[:need], {"scanned": scanned, "exact": exact}


    def _extras(self, uids: list[int]) -> dict[int, tuple[str, str]]:
        """uid -> (surface, punctuation encodings)."""
        q = "SELECT id, senc, penc FROM units WHERE id IN (%s)" % ",".join("?" * len(uids))
        return {u: (se or "", pe or "") for u, se, pe in one_row(self.conn, q, "id, senc, penc", uids)}


def one_row(conn: sqlite3.Connection, select: str, columns: str, params=()) -> list:
    """The rows of ``select`` (its ``columns``) as SQLite's one JSON row: Python's sqlite3 lets go of
    the interpreter lock for every row it steps, and winning it back behind another Python thread
    (the editor building its window) costs up to a switch interval (5 ms) each: the first search of
    a new TM (8,300 rows) took 0.71-1.13 s wall beside a busy thread against 0.27-0.32 alone, one
    row 0.50-0.56 (ad-hoc, 100k TM, 2-core VM at load 8)."""
    sql = f"SELECT json_group_array(json_array({columns})) FROM ({select})"
    (text,) = conn.execute(sql, params).fetchone()
    return json.loads(text) if text else []


def nearest_lengths(q: int, min_score: float, counts: dict[int, int]) -> tuple[float, tuple[int, int]]:
    """(b, (lo, hi)): the widest length band [ceil(b q), floor(q / b)] of a query of ``q`` tokens,
    b from 1.0 down by 0.1 to ``min_score``, holding at most :data:`EARLY_CAP` units by ``counts``
    (units per length) -- the nearest band when even that one holds more."""
    best = None
    for b in [x for x in BANDS if x > min_score] + [min_score]:
        lo, hi = (math.ceil(b * q - 1e-9), math.floor(q / b + 1e-9)) if b > 0 else (0, 1 << 30)
        n = sum(c for n_len, c in counts.items() if lo <= n_len <= hi)
        if best is not None and n > EARLY_CAP:
            break
        best = (b, (lo, hi))
    return best


class NearestLengths:
    """Searches answered before the units are read whole: only the units of the lengths nearest
    the query's are read from SQLite (its C code filters the table, the interpreter lock released),
    at most :data:`EARLY_CAP`.  ``exact`` then says whether a unit left out could have scored more."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        # units per length from every 16th row, times 16: 10 ms of SQLite for 90k units, the whole
        # table's 41 (the band only needs to be about EARLY_CAP)
        self.counts = {n: 16 * c for n, c in one_row(
            conn, "SELECT length(enc) AS n, count(*) AS c FROM units WHERE rowid % 16 = 0 GROUP BY 1", "n, c")}

    def best(self, qe: Encoded, need: int, min_score: float, accept_pair) -> tuple[list, dict]:
        b, lengths = nearest_lengths(len(qe.core), min_score, self.counts)
        ranked, info = ScanSearch(self.conn, accept_pair, lengths).best(qe, need, min_score)
        # exact when the band holds every length that can reach the minimum, or when the need-th
        # full score reaches the band's bound (no unit outside it scores more)
        exact = info["exact"] and (b <= min_score or (len(ranked) >= need and ranked[-1][0] >= b))
        return ranked, {"scanned": info["scanned"], "exact": exact, "early": True}


class ScanProcess:
    """The scan of one TM's SQLite in a child process: it loads the units of ``pair`` as it
    starts (while the editor opens), answers one search at a time, and ends with the TM's
    handle (or when the editor's process ends: its input closes)."""

    def __init__(self, db_path: Path, pair: tuple[str, str]):
        self.db_path, self.pair = Path(db_path), pair
        self._changed: list[int] = []
        self._first_done = False
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self.pid: int | None = None
        self._start()
        # The lengths of the units, read as the TM opens: the first search was asked 0.3 s after
        # the open, the TM thread idle meanwhile (the editor building its window).
        self._early: NearestLengths | None = None
        conn = sqlite3.connect(str(self.db_path), isolation_level=None, check_same_thread=False, timeout=30.0)
        try:
            conn.execute("PRAGMA query_only=1")
            self._early = NearestLengths(conn)
        except sqlite3.Error:
            conn.close()  # the first search tries again

    def _start(self) -> None:
        import engine

        root = str(Path(engine.__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "engine.tm.scan_server", str(self.db_path),
                                           *self.pair], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=env)
            self.pid = self._proc.pid
        except OSError as e:
            raise TMError(f"{self.db_path}: the search during the index rebuild could not start ({e})") from None

    def changed(self, uids: list[int]) -> None:
        """Units added, edited or deleted since: the next search takes them in."""
        self._changed.extend(uids)

    def best(self, qe: Encoded, need: int, min_score: float, pair: tuple[str, str]) -> tuple[list, dict]:
        """As :meth:`ScanSearch.best`, answered by the child (started again once if it had ended);
        the first search, asked as the TM opens, by :class:`NearestLengths` here: the child was
        still starting (its imports and first reads: 1.0-1.4 s wall in the opening editor at load
        7-10, 0.5 s alone), and SQLite reads the nearest lengths with the interpreter lock released."""
        if not self._first_done and min_score > 0.0:
            self._first_done = True
            early, self._early = self._early, None
            conn = early.conn if early is not None else sqlite3.connect(
                str(self.db_path), isolation_level=None, check_same_thread=False, timeout=30.0)
            try:
                conn.execute("PRAGMA query_only=1")
                ranked, info = (early or NearestLengths(conn)).best(qe, need, min_score, pair_filter(*pair))
            except sqlite3.Error as e:
                raise TMError(f"{self.db_path}: the search during the index rebuild failed ({e})") from None
            finally:
                conn.close()
            return ranked, {**info, "pid": os.getpid()}
        req = {"pair": list(pair), "core": qe.core, "surface": qe.surface, "punct": qe.punct,
               "need": need, "min": min_score, "changed": self._changed}
        with self._lock:
            for attempt in (0, 1):
                ans = self._ask(req)
                if ans is not None:
                    break
                self.close()
                if attempt == 0:
                    self._start()
                    req["changed"] = []  # a new child reads SQLite as it is now
            else:
                raise TMError(f"{self.db_path}: the search during the index rebuild stopped answering")
        self._changed = []
        if "error" in ans:
            raise TMError(f"{self.db_path}: {ans['error']}")
        return [(float(s), int(u)) for s, u in ans["ranked"]], {"scanned": ans["scanned"], "exact": ans["exact"],
                                                                "pid": ans["pid"], "early": bool(ans.get("early"))}

    def _ask(self, req: dict) -> dict | None:
        p = self._proc
        if p is None or p.poll() is not None:
            return None
        try:
            p.stdin.write(json.dumps(req).encode() + b"\n")
            p.stdin.flush()
            line = p.stdout.readline()
            return json.loads(line) if line else None
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        early, self._early = self._early, None
        if early is not None:
            early.conn.close()
        p, self._proc = self._proc, None
        if p is None:
            return
        end_child(p)


__all__ = ["ScanSearch", "ScanProcess", "SCAN_CAP"]
