"""Writing CSV / TSV / OmegaT glossaries: :func:`write_tabular` (``.tbx`` is
:mod:`engine.glossary.tbx_write`'s)."""
from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Iterable

from engine.fsutil import atomic_write
from engine.glossary.cells import OMEGAT_EXTENSIONS
from engine.glossary.model import GlossaryEntry


def _tab_field(s: str) -> str:
    return re.sub(r"[\t\r\n]+", " ", s)


def write_tabular(path: str | Path, entries: Iterable[GlossaryEntry], *, src_lang: str, tgt_lang: str) -> int:
    """``.tsv`` / ``.csv``: a header row then one row per entry; ``.txt`` / ``.utf8`` /
    ``.tab``: OmegaT's glossary (source TAB target TAB comment, a row per target term)."""
    path = Path(path)
    suffix = path.suffix.lower()
    n = 0
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        if suffix in OMEGAT_EXTENSIONS:
            for e in entries:
                for t in e.targets:
                    fh.write("\t".join(_tab_field(x) for x in (e.source, t, e.note)) + "\n")
                n += 1
            return n
        header = [src_lang or "source", tgt_lang or "target", "note", "pos", "status", "forbidden", "inflect"]
        if suffix == ".csv":
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
        else:
            fh.write("\t".join(header) + "\n")
        for e in entries:
            row = [e.source, "; ".join(e.targets), e.note, e.pos, e.status, "; ".join(e.forbidden),
                   "yes" if e.inflect else ""]
            if suffix == ".csv":
                w.writerow(row)
            else:
                fh.write("\t".join(_tab_field(x) for x in row) + "\n")
            n += 1
    return n
