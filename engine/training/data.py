"""The data a model for the project's pair is trained on: gathered, cleaned,
deduplicated and split **by document** (no torch here).

Sources are the project's TMs (a folder or a ``postgresql://`` URL, as
:func:`engine.tm.open_tm` opens them), TM files (TMX, bilingual CSV/TSV, PO,
XLIFF) and line-aligned corpora (two text files, optionally a third naming
the document of each line, as ``docs.doc`` / ``common.docid`` in the shared
corpora do).

Every pair carries a document key, and the held-aside slices are whole
documents: a sentence of a held-aside document never has a sibling in the
training data (its neighbours would be near-copies and inflate the score).
The key is, in order:

* a TM unit's ``document`` (the editor writes it on every confirmation), or
  a TMX property naming the file (``x-document``, ``file``, ...);
* the document id of a corpus line (third file);
* otherwise a block of consecutive units / lines of one source (documents
  are contiguous in TMs exported in order and in line-aligned corpora), of
  :data:`BLOCK` pairs (fewer on tiny data, so that a split is possible).

Cleaning (OpenNMT / Moses ``clean-corpus`` habits): whitespace normalised,
empty sides dropped, pairs whose character lengths differ by more than
:data:`MAX_RATIO` (both sides over 20 characters) dropped as misalignments,
exact duplicate pairs counted once (the first document keeps it).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from engine.errors import ConfigError, FormatError
from engine.langs import same_language
from engine.urls import strip_credentials

#: pairs in a block standing for a document where the source names none
BLOCK = 50
#: longest / shortest side (characters) above which a pair is taken for a misalignment
MAX_RATIO = 3.0
#: TMX ``<prop type=...>`` names that hold the document a unit came from (lower case)
DOC_PROPS = ("x-document", "x-doc", "document", "file", "x-file", "x-filename", "filename")


@dataclass(frozen=True)
class Pair:
    source: str
    target: str
    doc: str


@dataclass(frozen=True)
class Corpus:
    """One source of pairs: a TM (``tm``), a TM file (``path``) or a line-aligned corpus
    (``path`` = source side, ``target`` = target side, ``docs`` = document id per line)."""

    path: str
    target: str = ""
    docs: str = ""
    tm: bool = False

    @property
    def name(self) -> str:
        if self.tm and "://" in self.path:  # the TM's name (tm=...), never a password of the URL
            query = strip_credentials(self.path).partition("?")[2]
            return query or "shared TM"
        return Path(self.path).name

    @classmethod
    def from_args(cls, items: list[str]) -> "Corpus":
        """``--corpus FILE`` (TMX / bilingual file), ``--corpus SRC TGT`` or ``--corpus SRC TGT DOCS``."""
        if not 1 <= len(items) <= 3:
            raise ConfigError(f"--corpus takes 1 to 3 files (TM file, or SRC TGT [DOCS]), not {len(items)}")
        return cls(items[0], *(items[1:] + ["", ""])[:2])


@dataclass
class Gathered:
    pairs: list[Pair]
    per_source: list[tuple[str, int]] = field(default_factory=list)  # (name, pairs kept)
    duplicates: int = 0
    filtered: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class Split:
    train: list[Pair]
    dev: list[Pair]
    test: list[Pair]

    def documents(self) -> dict[str, int]:
        return {k: len({p.doc for p in v}) for k, v in (("train", self.train), ("dev", self.dev),
                                                        ("test", self.test))}


# ------------------------------------------------------------------ reading
def _clean(s: str) -> str:
    return " ".join(s.split())


def _unit_doc(meta: dict) -> str:
    if meta.get("document"):
        return str(meta["document"])
    for kind, value in meta.get("props") or []:
        if str(kind).lower() in DOC_PROPS and value:
            return str(value)
    return ""


def _tm_pairs(ref: str, src_lang: str, tgt_lang: str) -> Iterator[tuple[str, str, str]]:
    from engine.tm import open_tm

    with open_tm(ref, create=False) as tm:
        for e in tm.entries():
            if same_language(e.src_lang, src_lang) and same_language(e.tgt_lang, tgt_lang):
                yield e.source.text, e.target.text, _unit_doc(e.meta)
            elif same_language(e.src_lang, tgt_lang) and same_language(e.tgt_lang, src_lang):
                yield e.target.text, e.source.text, _unit_doc(e.meta)


def _file_pairs(path: str, src_lang: str, tgt_lang: str, problems: list[str]) -> Iterator[tuple[str, str, str]]:
    from engine.formats.tmfiles import read_tm_file

    for u in read_tm_file(Path(path), src_lang=src_lang, tgt_lang=tgt_lang, problems=problems):
        s = next((v for k, v in u.variants.items() if same_language(k, src_lang)), None)
        t = next((v for k, v in u.variants.items() if same_language(k, tgt_lang)), None)
        if s is not None and t is not None:
            yield s.text, t.text, _unit_doc(u.meta)


def _lines(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 file, streamed; a decoding error names the file and line."""
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    with fh:
        for n, raw in enumerate(fh, 1):
            try:
                yield raw.decode("utf-8-sig" if n == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise FormatError(path, f"line {n}: not UTF-8") from None


def _corpus_pairs(c: Corpus) -> Iterator[tuple[str, str, str]]:
    src, tgt = Path(c.path), Path(c.target)
    docs = _lines(Path(c.docs)) if c.docs else None
    s_it, t_it = _lines(src), _lines(tgt)
    n = 0
    while True:
        s, t = next(s_it, None), next(t_it, None)
        if s is None or t is None:
            if s is not None or t is not None:
                short = tgt if t is None else src
                raise FormatError(short, f"has {n} lines, fewer than {src if t is None else tgt}: "
                                         "line-aligned files must have the same number of lines")
            break
        n += 1
        d = next(docs, None) if docs is not None else ""
        if d is None:
            raise FormatError(Path(c.docs), f"has {n - 1} lines, fewer than {src}")
        yield s, t, d


def gather(sources: list[Corpus], src_lang: str, tgt_lang: str, *, block: int = BLOCK) -> Gathered:
    """Every usable, unique pair of ``sources`` with its document key."""
    out = Gathered([])
    seen: set[tuple[str, str]] = set()
    for si, c in enumerate(sources):
        if c.tm:
            rows = _tm_pairs(c.path, src_lang, tgt_lang)
        elif c.target:
            rows = _corpus_pairs(c)
        else:
            rows = _file_pairs(c.path, src_lang, tgt_lang, out.problems)
        kept = []
        for i, (s, t, d) in enumerate(rows):
            s, t = _clean(s), _clean(t)
            if not s or not t:
                out.filtered += 1
                continue
            lo, hi = sorted((len(s), len(t)))
            if lo > 20 and hi > MAX_RATIO * lo:
                out.filtered += 1
                continue
            if (s, t) in seen:
                out.duplicates += 1
                continue
            seen.add((s, t))
            kept.append((s, t, d, i))
        size = max(1, min(block, len(kept) // 40)) if kept else block
        for s, t, d, i in kept:
            # the source's index keeps documents of two sources apart; blocks stand for unnamed documents
            out.pairs.append(Pair(s, t, f"{si}:{d}" if d else f"{si}:#{i // size}"))
        out.per_source.append((c.name, len(kept)))
    return out


# ------------------------------------------------------------------ the split
def held_aside_sizes(n_pairs: int) -> tuple[int, int]:
    """(dev, test) sentence targets: 5 % each, at least 1, dev at most 500 (it is translated at
    every evaluation), test at most 1,000 (the before/after table)."""
    return max(1, min(500, n_pairs // 20)), max(1, min(1000, n_pairs // 20))


def split_by_documents(pairs: list[Pair], *, dev: int, test: int, seed: int = 1) -> Split:
    """Whole documents to test, then to dev, in a deterministic shuffle, until each slice reaches
    its size; the rest trains.  A document larger than twice a slice's size stays in training
    (one huge manual must not become the whole test)."""
    by_doc: dict[str, list[Pair]] = {}
    for p in pairs:
        by_doc.setdefault(p.doc, []).append(p)
    if len(by_doc) < 3:
        raise ConfigError(f"only {len(by_doc)} document(s) in {len(pairs)} pair(s): training needs at least 3 "
                          "(one to train on, one for the dev set, one to test)")
    order = sorted(by_doc)
    random.Random(seed).shuffle(order)
    slices: dict[str, list[Pair]] = {"test": [], "dev": [], "train": []}
    want = {"test": test, "dev": dev}
    for d in order:
        rows = by_doc[d]
        for name in ("test", "dev"):
            if len(slices[name]) < want[name] and (len(rows) <= 2 * want[name] or not slices[name]
                                                    and len(rows) <= len(pairs) // 3):
                slices[name].extend(rows)
                break
        else:
            slices["train"].extend(rows)
    for name in ("test", "dev"):
        if not slices[name]:  # every document too large: the smallest one
            d = min((x for x in order if by_doc[x][0] in slices["train"]), key=lambda x: len(by_doc[x]))
            slices[name] = by_doc[d]
            slices["train"] = [p for p in slices["train"] if p.doc != d]
    if not slices["train"]:
        raise ConfigError(f"{len(pairs)} pair(s) in {len(by_doc)} documents leave nothing to train on")
    return Split(slices["train"], slices["dev"], slices["test"])


def write_split(split: Split, folder: Path) -> dict[str, Path]:
    """``train|dev|test.src|tgt|doc`` in ``folder`` (atomic writes); returns the paths."""
    from engine.fsutil import atomic_write

    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for name in ("train", "dev", "test"):
        rows = getattr(split, name)
        for side, get in (("src", lambda p: p.source), ("tgt", lambda p: p.target), ("doc", lambda p: p.doc)):
            path = folder / f"{name}.{side}"
            with atomic_write(path, "w", encoding="utf-8") as fh:
                fh.writelines(get(p) + "\n" for p in rows)
            files[f"{name}.{side}"] = path
    return files


def read_split(folder: Path) -> Split:
    parts = {}
    for name in ("train", "dev", "test"):
        cols = [(folder / f"{name}.{side}").read_text(encoding="utf-8").splitlines()
                for side in ("src", "tgt", "doc")]
        if not len(cols[0]) == len(cols[1]) == len(cols[2]):
            raise FormatError(folder / f"{name}.src", "the split's files differ in length; delete the "
                                                     "folder's data/ to gather again")
        parts[name] = [Pair(s, t, d) for s, t, d in zip(*cols)]
    return Split(**parts)
