"""Retrieval of translation-memory pairs for search-engine guided NMT (Gu et al. 2018).

Two users:

* **inference** -- :func:`retrieve` asks a :class:`~engine.tm.TranslationMemory`
  for the pairs of a sentence: Whoosh candidates re-ranked by the fuzzy score
  (Eq. 3), then top-K or the greedy coverage selection (Algorithm 1);
* **training** (Algorithm 2) -- :class:`TrainingRetrieval` builds a TM from the
  training set once (in a cache folder), and retrieves for every training pair
  its top-K neighbours, **never the pair itself nor a pair with the same
  source**.  Results are appended to a JSON-lines cache whose name holds a
  hash of the training data and the settings, so a second run (or a resumed
  one, or a second process) does not search again.

This module does not import torch: it deals in texts and line numbers.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from engine.errors import TMError
from engine.fsutil import atomic_write

CACHE_VERSION = 1
#: Fuzzy score a TM pair needs for the memory to read it at translation (``verso translate/eval --min-score``,
#: the editor's setting ``nmt/memory_min_score``; the editor's TM lookup itself stops at 0.3).  Lower matches
#: are left out: the model then translates as without them.  Measured (experiments/segnmt/RESULTS.md, issue 5,
#: session 14): on the KDE manuals BLEU-neutral against reading the top 4 whatever their score (dev +0.18,
#: test -0.14, neither significant), and the suggestion's p95 latency on a 2-core VM 349 -> 212 ms (int8, K = 4).
MEMORY_MIN_SCORE = 0.3
#: extra candidates asked for, so that K remain after dropping the pair itself and duplicates
_SPARE = 6


@dataclass(frozen=True)
class RetrievedPair:
    """One retrieved (X', Y') pair: texts, fuzzy score, and where it came from
    (``uid``: TM unit id; ``line``: 0-based line of the training corpus)."""

    source: str
    target: str
    score: float
    uid: int | None = None
    line: int | None = None

    def to_json(self) -> dict:
        d = {"source": self.source, "target": self.target, "score": round(self.score, 4)}
        if self.uid is not None:
            d["id"] = self.uid
        if self.line is not None:
            d["line"] = self.line
        return d


def readable(pairs: Sequence, min_score: float) -> list:
    """The pairs (best first) a memory reads: those scoring at least ``min_score``
    (a pair without a score -- a plain ``(source, target)`` tuple -- is kept)."""
    return [p for p in pairs if getattr(p, "score", 1.0) >= min_score - 1e-9]


def _norm(text: str) -> str:
    return " ".join(text.split())


def retrieve(tm, text: str, *, k: int = 4, coverage: bool = False, min_score: float = 0.0,
             exclude_source: str | None = None) -> list[RetrievedPair]:
    """Pairs of ``tm`` for ``text``, best first: the ``k`` best fuzzy matches,
    or with ``coverage`` the pairs Algorithm 1 selects.  ``exclude_source``:
    drop pairs whose source equals it (whitespace-normalised) -- training uses
    it so that a pair never retrieves itself."""
    if not text.strip() or k <= 0:
        return []
    ask = k + (_SPARE if exclude_source is not None else 0)
    matches = tm.search(text, k=ask, min_score=min_score, coverage=coverage)
    skip = _norm(exclude_source) if exclude_source is not None else None
    out: list[RetrievedPair] = []
    for m in matches:
        src = m.source.text
        if skip is not None and (_norm(src) == skip or m.score >= 1.0):
            continue
        line = m.meta.get("line") if isinstance(m.meta, dict) else None
        out.append(RetrievedPair(src, m.target.text, float(m.score), m.entry.id,
                                 int(line) if isinstance(line, int) else None))
        if not coverage and len(out) >= k:
            break
    return out


# ------------------------------------------------------------------ training
def data_hash(*files: str | Path, extra: str = "") -> str:
    """SHA-256 (hex, 16 chars) of the files' bytes and ``extra``."""
    h = hashlib.sha256()
    for f in files:
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    h.update(extra.encode())
    return h.hexdigest()[:16]


def build_training_tm(folder: Path, src_lines: Sequence[str], tgt_lines: Sequence[str], *,
                      src_lang: str, tgt_lang: str):
    """A TM of the training pairs (each unit's metadata holds its ``line``).
    Built once: a folder without the ``complete.json`` marker is rebuilt."""
    from engine.tm import TranslationMemory

    marker = folder / "complete.json"
    if marker.is_file():
        return TranslationMemory(folder, create=False)
    if folder.exists():
        shutil.rmtree(folder)  # an interrupted build of ours
    tm = TranslationMemory(folder, src_lang=src_lang, tgt_lang=tgt_lang)
    pairs = ((s, t, {"line": i}) for i, (s, t) in enumerate(zip(src_lines, tgt_lines))
             if s.strip() and t.strip())
    res = tm.add_many(pairs, src_lang=src_lang, tgt_lang=tgt_lang, origin="training")
    tm.flush()
    with atomic_write(marker, "w", encoding="utf-8") as fh:
        json.dump({"units": len(tm), "added": res.added, "updated": res.updated,
                   "skipped": res.skipped}, fh)
    return tm


class TrainingRetrieval:
    """Neighbours of training pairs for Algorithm 2, cached on disk.

    ``cache_dir`` holds ``tm-<hash>/`` (the TM of the training set) and
    ``neighbours-<hash>.jsonl`` (one line per training pair:
    ``{"i": line, "n": [[line', score], ...]}``; queries for other texts,
    e.g. the dev set, as ``{"q": key, "n": ...}``).
    """

    def __init__(self, cache_dir: str | Path, train_src: str | Path, train_tgt: str | Path,
                 src_lines: Sequence[str], tgt_lines: Sequence[str], *, k: int,
                 src_lang: str, tgt_lang: str):
        if k < 1:
            raise TMError(f"memory_k_train must be at least 1 (got {k})")
        self.dir = Path(cache_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.src, self.tgt = src_lines, tgt_lines
        self.k = k
        self.langs = (src_lang, tgt_lang)
        base = data_hash(train_src, train_tgt, extra=f"v{CACHE_VERSION}")
        self.tm_dir = self.dir / f"tm-{base}"
        self.cache_path = self.dir / f"neighbours-{base}-k{k}.jsonl"
        self._tm = None
        self._train: dict[int, list[tuple[int, float]]] = {}
        self._queries: dict[str, list[tuple[int, float]]] = {}
        self._offset = 0
        self.searched = 0  # searches this object ran (the rest came from the cache)
        self._read_cache()

    # ---------------------------------------------------------------- cache
    def _read_cache(self) -> None:
        """Read lines appended since the last look (by us or another process);
        a torn last line (a writer stopped mid-line) is ignored."""
        if not self.cache_path.is_file():
            return
        with open(self.cache_path, "rb") as fh:
            fh.seek(self._offset)
            data = fh.read()
        end = data.rfind(b"\n") + 1
        for raw in data[:end].splitlines():
            try:
                d = json.loads(raw)
                n = [(int(j), float(s)) for j, s in d["n"]]
            except (ValueError, KeyError, TypeError):
                continue
            if "i" in d:
                self._train[int(d["i"])] = n
            elif "q" in d:
                self._queries[str(d["q"])] = n
        self._offset += end

    def _append(self, records: list[dict]) -> None:
        if not records:
            return
        # an append-only log: one write per batch of whole lines (O_APPEND), readers skip torn tails
        with open(self.cache_path, "a", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))

    @property
    def tm(self):
        if self._tm is None:
            self._tm = build_training_tm(self.tm_dir, self.src, self.tgt, src_lang=self.langs[0],
                                         tgt_lang=self.langs[1])
        return self._tm

    def close(self) -> None:
        if self._tm is not None:
            self._tm.close()
            self._tm = None

    # ---------------------------------------------------------------- lookups
    def _lines_of(self, found: list[RetrievedPair]) -> list[tuple[int, float]]:
        return [(p.line, round(p.score, 4)) for p in found if p.line is not None]

    def neighbours(self, indices: Iterable[int]) -> dict[int, list[tuple[int, float]]]:
        """``{line: [(neighbour line, score), ...]}`` for training lines ``indices``
        (at most K each, best first; never the line itself nor a same-source pair)."""
        indices = list(indices)
        missing = [i for i in indices if i not in self._train]
        if missing:
            self._read_cache()
            missing = [i for i in missing if i not in self._train]
        new = []
        for i in missing:
            found = retrieve(self.tm, self.src[i], k=self.k, exclude_source=self.src[i])
            n = [(j, s) for j, s in self._lines_of(found) if _norm(self.src[j]) != _norm(self.src[i])]
            self._train[i] = n[:self.k]
            new.append({"i": i, "n": self._train[i]})
            self.searched += 1
        self._append(new)
        return {i: self._train[i] for i in indices}

    def query(self, texts: Sequence[str], *, k: int | None = None,
              coverage: bool = False) -> list[list[tuple[int, float]]]:
        """Neighbour lines of arbitrary texts (dev/test sentences), cached too."""
        k = k or self.k
        keys = [f"{k}:{int(coverage)}:" + hashlib.sha1(t.encode()).hexdigest()[:20] for t in texts]
        if any(key not in self._queries for key in keys):
            self._read_cache()
        new = []
        for key, t in zip(keys, texts):
            if key in self._queries:
                continue
            self._queries[key] = self._lines_of(retrieve(self.tm, t, k=k, coverage=coverage))
            new.append({"q": key, "n": self._queries[key]})
            self.searched += 1
        self._append(new)
        return [self._queries[key] for key in keys]

    def pairs(self, neighbours: list[tuple[int, float]]) -> list[RetrievedPair]:
        """Texts of neighbour lines."""
        return [RetrievedPair(self.src[j], self.tgt[j], s, line=j) for j, s in neighbours]


# ------------------------------------------------------------------ evaluation by fuzzy band
#: bands of the best retrieved pair's fuzzy score (Gu et al. 2018, Fig. 2)
FUZZY_BANDS = ((0.0, 0.3, "<0.3"), (0.3, 0.5, "0.3-0.5"), (0.5, 0.7, "0.5-0.7"), (0.7, 0.9, "0.7-0.9"),
               (0.9, float("inf"), ">=0.9"))


def band_of(score: float) -> str:
    for lo, hi, name in FUZZY_BANDS:
        if lo <= score < hi:
            return name
    return FUZZY_BANDS[0][2]


def bleu_by_band(systems: dict[str, list[str]], refs: list[str], best_scores: list[float]) -> dict:
    """Corpus BLEU of each system overall and in each fuzzy band (by the score
    of the sentence's best retrieved pair; 0 when none): ``{"overall": {...},
    "bands": [{"band", "sentences", "bleu": {system: BLEU}}]}``; empty bands left out."""
    from engine.nmt.evaluate import bleu

    for name, hyps in systems.items():
        if len(hyps) != len(refs):
            raise ValueError(f"{name}: {len(hyps)} hypotheses but {len(refs)} references")
    out = {"overall": {"sentences": len(refs),
                       "bleu": {n: round(bleu(h, refs), 2) for n, h in systems.items()}}, "bands": []}
    for lo, hi, name in FUZZY_BANDS:
        idx = [i for i, s in enumerate(best_scores) if lo <= s < hi]
        if not idx:
            continue
        r = [refs[i] for i in idx]
        out["bands"].append({"band": name, "sentences": len(idx),
                             "bleu": {n: round(bleu([h[i] for i in idx], r), 2) for n, h in systems.items()}})
    return out
