"""Translation-memory units from any file that carries translations.

:func:`read_tm_file` picks the reader:

* TMX (by extension or content) -> :func:`engine.formats.tmx.read_tmx`;
* a Trados Studio TM (``.sdltm``) -> :func:`engine.formats.sdltm.read_sdltm`;
* ``target_file`` given -> two line-aligned plain-text files, line *i* of
  one translating line *i* of the other (languages required);
* bilingual CSV/TSV, PO, XLIFF 1.2/2.0 -> the document reader
  (:func:`engine.formats.read_document`); every segment with a translation
  becomes a unit whose ``meta`` holds ``origin`` (the file), ``key``,
  ``context``, ``note`` and ``status`` (when present).

Each skipped unit adds one message to ``problems`` naming it.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from engine.errors import FormatError, UnsupportedFormatError
from engine.formats.base import TMUnit
from engine.formats.textutil import check_lines, codes_checked, protect_like, protect_text, sniff_bom
from engine.formats.sdltm import is_sdltm, read_sdltm
from engine.formats.tmx import read_tmx
from engine.langs import normalize_lang, pair_text, same_language, same_pair

_TMX_ROOT = re.compile(r"<tmx[\s>]")


def is_tmx(path: Path) -> bool:
    """True for a ``.tmx`` file or a file whose root element is ``<tmx>``."""
    if path.suffix.lower() == ".tmx":
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    enc, bom = sniff_bom(head)
    if enc is None and b"\x00" in head[:4]:
        enc = "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
    text = head[len(bom):].decode(enc or "utf-8", errors="ignore")
    return bool(_TMX_ROOT.search(text))


def read_tm_file(path: str | Path, *, src_lang: str = "", tgt_lang: str = "",
                 problems: list[str] | None = None,
                 target_file: str | Path | None = None, languages: dict | None = None) -> Iterator[TMUnit]:
    """Yield the TM units of ``path`` (see the module docstring).  ``languages``: filled with the
    pair a bilingual document is read as (``src``, ``tgt``: the file's own where it declares them);
    a document declaring another pair than ``src_lang -> tgt_lang`` is refused, naming both."""
    path = Path(path)
    problems = problems if problems is not None else []
    if not path.is_file():
        raise FormatError(path, "cannot read: no such file")
    if target_file is not None:
        if is_tmx(path):
            raise FormatError(path, "a TMX file carries its own translations; "
                                    "a second, line-aligned file goes only with plain text")
        return read_aligned_text(path, Path(target_file), src_lang=src_lang, tgt_lang=tgt_lang,
                                 problems=problems)
    if is_tmx(path):
        return read_tmx(path, src_lang=src_lang, tgt_lang=tgt_lang, problems=problems)
    if is_sdltm(path):
        return read_sdltm(path, src_lang=src_lang, tgt_lang=tgt_lang, problems=problems, languages=languages)
    return _read_bilingual_document(path, src_lang, tgt_lang, problems, languages)


@dataclass(frozen=True)
class TmFileSurvey:
    """What a dry run of :func:`survey_tm_file` found: ``units`` read (the skipped ones included),
    how many are ``usable`` (both languages present), the ``languages`` seen with their unit counts,
    one line per skipped unit in ``problems``, and ``fatal``: why the file cannot be read to the
    end, or None."""

    units: int
    usable: int
    languages: dict[str, int]
    problems: tuple[str, ...]
    fatal: str | None = None

    @property
    def skipped(self) -> int:
        return self.units - self.usable


def survey_tm_file(path: str | Path, src_lang: str, tgt_lang: str,
                   tick: Callable[[int], object] | None = None) -> TmFileSurvey:
    """Read ``path`` without importing it; ``tick(units_so_far)`` after each unit (it may raise
    to stop).  A file broken part-way is a result (``fatal``), not an error."""
    problems: list[str] = []
    langs: Counter = Counter()
    usable = units = 0
    try:
        for u in read_tm_file(path, src_lang=src_lang, tgt_lang=tgt_lang, problems=problems):
            units += 1
            langs.update(list(u.variants))
            src = _variant(u, src_lang)
            if src and _variant(u, tgt_lang, exclude=src):
                usable += 1
            if tick is not None:
                tick(units)
    except Exception as e:  # noqa: BLE001 - a broken file is a result of the dry run
        if not getattr(e, "__module__", "").startswith("engine"):
            raise
        problems.append(str(e))
        return TmFileSurvey(units + len(problems) - 1, usable, dict(langs), tuple(problems), str(e))
    # Units the reader skipped (a TU with one language, ...) are in ``problems``.
    return TmFileSurvey(units + len(problems), usable, dict(langs), tuple(problems))


def _variant(unit: TMUnit, lang: str, exclude: str | None = None) -> str | None:
    for k in unit.variants:
        if k != exclude and same_language(k, lang):
            return k
    return None


# ------------------------------------------------------- bilingual documents
def _declared_pair_refused(path: Path, declared: tuple[str, str], given: tuple[str, str]) -> None:
    """Refuse a file whose declared pair is not the one asked for (the TM's, or --src-lang/--tgt-lang),
    naming both (regional variants are the same language)."""
    if not same_pair(declared[0], declared[1], given[0], given[1]):
        shown = pair_text(declared[0] or given[0], declared[1] or given[1])
        raise FormatError(path, f"the file declares {shown}; the TM is {pair_text(*given)}: "
                                f"import it into a TM for {shown}")


def _languages(path: Path, given: str, in_file: str, role: str) -> str:
    given, in_file = normalize_lang(given), normalize_lang(in_file)
    lang = given or in_file
    if not lang:
        flag = "--src-lang" if role == "source" else "--tgt-lang"
        raise FormatError(path, f"the file does not name its {role} language; give it ({flag})")
    return lang


def _read_bilingual_document(path: Path, src_lang: str, tgt_lang: str,
                             problems: list[str], languages: dict | None = None) -> Iterator[TMUnit]:
    from engine.formats import detect  # the registry imports every reader

    try:
        fmt = detect(path)
    except UnsupportedFormatError:
        raise UnsupportedFormatError(path, "not a translation memory file (Verso reads TM units from "
                                           "TMX, bilingual TSV/CSV, PO and XLIFF 1.2/2.0, or from two "
                                           "line-aligned text files)") from None
    if fmt.name == "txt":
        raise FormatError(path, "plain text holds no translations: give the translated text "
                                "as a second, line-aligned file")
    # Given no target language, a reader returns the one the file declares (PO's Language header);
    # a CSV header naming several languages needs both to pick its columns (its own come first).
    doc = fmt.read(path, src_lang=src_lang, tgt_lang=tgt_lang if fmt.name == "tabular" else "")
    declared_src = doc.src_lang or (doc.meta.get("header") or {}).get("X-Source-Language", "")
    _declared_pair_refused(path, (normalize_lang(declared_src), normalize_lang(doc.tgt_lang)),
                           (normalize_lang(src_lang), normalize_lang(tgt_lang)))
    src = _languages(path, declared_src, src_lang, "source")
    tgt = _languages(path, doc.tgt_lang, tgt_lang, "target")
    if src == tgt:
        raise FormatError(path, f"source and target language are both {src}")
    if languages is not None:
        languages.update(src=src, tgt=tgt)
    problems.extend(doc.problems)
    return _document_units(path, doc, src, tgt, problems)


def _document_units(path: Path, doc, src: str, tgt: str, problems: list[str]) -> Iterator[TMUnit]:
    for seg in doc.segments:
        where = f"{path}, segment {seg.key!r}" + (f" ({seg.context})" if seg.context else "")
        if not seg.source.text.strip():
            problems.append(f"{where}: skipped, empty source")
            continue
        if seg.target is None or not seg.target.text.strip():
            problems.append(f"{where}: skipped, no translation")
            continue
        if not seg.target.plain().strip() and seg.source.plain().strip():
            # the codes were copied over but nothing was translated
            problems.append(f"{where}: skipped, the translation holds only inline codes")
            continue
        meta = {"origin": str(path), "key": seg.key}
        for name in ("context", "note", "status"):
            value = getattr(seg, name)
            if value:
                meta[name] = value
        yield TMUnit({src: seg.source, tgt: seg.target}, meta=meta)


# ------------------------------------------------------- line-aligned text
def _lines(path: Path) -> Iterator[str]:
    """Lines of a UTF-8 (or BOM-marked UTF-16/32) text file without their breaks."""
    try:
        with open(path, "rb") as fh:
            enc, bom = sniff_bom(fh.read(4))
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if enc in (None, "utf-8"):
        yield from _utf8_lines(path, len(bom))
        return
    n = 0
    try:  # codecs that drop the byte order mark themselves
        with open(path, "r", encoding=enc.rsplit("-", 1)[0], newline=None) as fh:
            for n, line in enumerate(fh, 1):
                yield line.rstrip("\n")
    except UnicodeDecodeError:
        raise FormatError(path, f"not valid {enc} text; save the file as UTF-8", f"after line {n}") from None


def _utf8_lines(path: Path, skip: int) -> Iterator[str]:
    with open(path, "rb") as fh:
        fh.seek(skip)
        for n, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise FormatError(path, f"bytes that are not valid UTF-8 ({raw[e.start:e.start + 4]!r}); "
                                        "save the file as UTF-8", f"line {n}") from None
            yield line.rstrip("\r\n")


def _count(path: Path) -> int:
    return sum(1 for _ in _lines(path))


def read_aligned_text(path: Path, target_file: Path, *, src_lang: str, tgt_lang: str,
                      problems: list[str]) -> Iterator[TMUnit]:
    """Pair line *i* of ``path`` with line *i* of ``target_file``.

    Both files are counted first, so a mismatch is refused before any unit
    is produced; then they are streamed together.
    """
    src, tgt = normalize_lang(src_lang), normalize_lang(tgt_lang)
    if not src or not tgt:
        raise FormatError(path, "line-aligned text files do not name their languages; "
                                "give the source and target language")
    if src == tgt:
        raise FormatError(path, f"source and target language are both {src}")
    if not target_file.is_file():
        raise FormatError(target_file, "cannot read: no such file")
    check_lines(path, document=False)  # a line over 1 MiB is refused before anything is read whole
    check_lines(target_file, document=False)
    n_src, n_tgt = _count(path), _count(target_file)
    if n_src != n_tgt:
        raise FormatError(path, f"has {n_src} lines but {target_file} has {n_tgt}: "
                                "line-aligned files must have the same number of lines",
                          f"line {min(n_src, n_tgt) + 1}")
    return _aligned_units(path, target_file, src, tgt, problems)


def _aligned_units(path: Path, target_file: Path, src: str, tgt: str,
                   problems: list[str]) -> Iterator[TMUnit]:
    for i, (s, t) in enumerate(zip(_lines(path), _lines(target_file)), 1):
        if not s.strip() and not t.strip():
            continue  # a blank line on both sides separates paragraphs
        if not s.strip() or not t.strip():
            side = "source" if not s.strip() else "translation"
            problems.append(f"{path}, line {i}: skipped, empty {side}")
            continue
        with codes_checked(path, f"line {i}"):
            source = protect_text(s)
            target = protect_like(source, t)
        yield TMUnit({src: source, tgt: target},
                     meta={"origin": str(path), "origin_target": str(target_file)}, line=i)
