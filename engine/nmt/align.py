"""Word alignments: Pharaoh I/O and alignment error rate (AER).

The model's alignments come from :meth:`engine.nmt.translator.Translator.align`
(attention of forced decoding, one link per target word).  Gold sets use
Pharaoh links ``i-j`` (sure) and ``ipj`` (possible); ``one_based`` gold files
(as in ../shared/data/word-alignment-gold) are shifted to 0-based here.

AER = 1 - (|A & S| + |A & P|) / (|A| + |S|), with S a subset of P (Och & Ney 2003).
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError

Links = set[tuple[int, int]]


def parse_pharaoh(line: str, *, one_based: bool = False, where: str = "<input>",
                  lineno: int = 0) -> tuple[Links, Links]:
    """``"0-1 2p3"`` -> (sure, possible); possible includes sure."""
    sure, possible = set(), set()
    off = 1 if one_based else 0
    for tok in line.split():
        sep = "p" if "p" in tok else "-"
        try:
            i, j = (int(x) - off for x in tok.split(sep))
        except ValueError:
            raise FormatError(where, f"bad alignment link {tok!r}", f"line {lineno}") from None
        possible.add((i, j))
        if sep == "-":
            sure.add((i, j))
    return sure, possible


def read_pharaoh(path: str | Path, *, one_based: bool = False) -> list[tuple[Links, Links]]:
    with open(path, encoding="utf-8") as fh:
        return [parse_pharaoh(ln, one_based=one_based, where=str(path), lineno=n)
                for n, ln in enumerate(fh, 1)]


def read_wpt(path: str | Path, sentence_ids: list[int]) -> list[tuple[Links, Links]]:
    """WPT 2003 gold (``snum src_pos tgt_pos S|P``, 1-based) in the order of ``sentence_ids``."""
    by: dict[int, tuple[Links, Links]] = {s: (set(), set()) for s in sentence_ids}
    with open(path, encoding="utf-8") as fh:
        for n, ln in enumerate(fh, 1):
            parts = ln.split()
            if not parts:
                continue
            if len(parts) < 3:
                raise FormatError(path, "expected 'sentence src tgt [S|P]'", f"line {n}")
            s, i, j = int(parts[0]), int(parts[1]) - 1, int(parts[2]) - 1
            kind = parts[3] if len(parts) > 3 else "S"
            if s not in by:
                continue
            by[s][1].add((i, j))
            if kind == "S":
                by[s][0].add((i, j))
    return [by[s] for s in sentence_ids]


def aer(predicted: list[Links], gold: list[tuple[Links, Links]]) -> float:
    """Corpus-level alignment error rate in percent."""
    a_s = a_p = n_a = n_s = 0
    for A, (S, P) in zip(predicted, gold, strict=True):
        P = P | S
        a_s += len(A & S)
        a_p += len(A & P)
        n_a += len(A)
        n_s += len(S)
    return 100.0 * (1.0 - (a_s + a_p) / max(1, n_a + n_s))
