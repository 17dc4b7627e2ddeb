"""Glossary files: TBX (v2 ``martif`` / TBX-Basic and v3 ``tbx``), CSV/TSV, Excel .xlsx.

Reading (:func:`read_glossary_file`) returns every entry of the file for one
language pair as a :class:`~engine.glossary.model.GlossaryFile`; nothing is
stored, so the caller imports the whole file in one transaction or not at all.
A file that cannot be read raises one :class:`~engine.errors.FormatError`
naming the file and the place (line, or sheet and row).

**TBX.** Parsed through :mod:`engine.formats.xmlsafe` (no entities, no DTD, no
network), streaming concept by concept; the XML declaration's encoding is
honoured (a Windows-1254 file reads right).  Each source-language term of a
concept (``termEntry`` / ``conceptEntry``) becomes one entry whose targets are
the concept's target-language terms; a target term whose administrative status
is deprecated / superseded / not recommended becomes a *forbidden* variant.  Part
of speech and status come from ``termNote`` (or TBX v3 DCT elements of the same
names); the note joins the concept's and the source term's definitions and notes.
The pair: ``src_lang`` / ``tgt_lang`` when given, else the ``xml:lang`` of the
root (or the most frequent language) and the only other language; a file of
three or more languages without ``tgt_lang`` is refused, naming its languages.
A concept without a term in both languages is skipped (one line in ``problems``).

**CSV/TSV.** A header names the columns: ``source`` / ``target`` (or ``term`` /
``translation``, or language codes such as ``en`` / ``de``, which then give the
pair), ``note`` (``comment``, ``definition``), ``pos``, ``status``,
``forbidden``, ``inflect`` (``yes`` / ``true`` / ``1`` / ``x``: the target terms may be
inflected).  Target and forbidden cells may hold several terms separated by
``;`` or ``|``.  A file without such a header is OmegaT's glossary: ``source TAB
target TAB comment``, lines starting with ``#`` are comments, one target a row.
Tab-separated files are split on tabs only (a quote is an ordinary character);
comma/semicolon files follow CSV quoting, strictly.

**XLSX.** The first sheet, read with openpyxl in read-only mode, with the same
header rules as CSV.

Writing (:func:`write_glossary_file`): ``.tbx`` (TBX-Basic, v2 ``martif``,
UTF-8; TBX-Basic has no data category for ``inflect``, so it is not written),
``.tsv`` / ``.csv`` (a header of language codes and column names; several
terms joined by ``; ``; ``inflect`` as ``yes`` or empty), ``.txt`` / ``.utf8`` / ``.tab`` (OmegaT: one row per
target term, no header), always through :func:`engine.fsutil.atomic_write`.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from lxml import etree

from engine.errors import FormatError, UnsupportedFormatError
from engine.formats.textutil import read_decoded
from engine.formats.xmlsafe import iterparse, localname, refuse_entities
from engine.fsutil import atomic_write
from engine.glossary.layout import Layout, layout
from engine.glossary.tbx_write import write_tbx
from engine.glossary.model import GlossaryEntry, GlossaryFile
from engine.langs import normalize_lang, same_language

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
TBX_EXTENSIONS = (".tbx", ".xml")
TEXT_EXTENSIONS = (".tsv", ".tab", ".txt", ".utf8", ".csv")
OMEGAT_EXTENSIONS = (".txt", ".utf8", ".tab")

_STATUS_WORDS = {
    "preferred": "preferred", "preferredterm": "preferred", "preferredterm-admn-sts": "preferred",
    "admitted": "admitted", "admittedterm": "admitted", "admittedterm-admn-sts": "admitted",
    "deprecated": "deprecated", "deprecatedterm": "deprecated", "deprecatedterm-admn-sts": "deprecated",
    "superseded": "deprecated", "supersededterm": "deprecated", "supersededterm-admn-sts": "deprecated",
    "notrecommended": "deprecated", "obsolete": "deprecated", "forbidden": "deprecated",
}


def _status(value: str) -> str:
    """A TBX / spreadsheet status word as ``preferred`` / ``admitted`` / ``deprecated`` ('' if unknown)."""
    return _STATUS_WORDS.get(re.sub(r"[\s_]", "", (value or "").strip().lower()), "")


def _one_line(s: str | None) -> str:
    return " ".join((s or "").split())


# =================================================================== TBX
@dataclass
class _Term:
    text: str
    pos: str = ""
    status: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class _Concept:
    id: str
    line: int
    notes: list[str] = field(default_factory=list)
    langs: dict[str, list[_Term]] = field(default_factory=dict)
    lang_notes: dict[str, list[str]] = field(default_factory=dict)


def _note_of(el) -> str:
    """The text of a definition / note element ('' for other kinds of descrip)."""
    ln = localname(el)
    if ln == "note" or (ln == "descrip" and el.get("type") == "definition") or ln == "definition":
        return _one_line("".join(el.itertext()))
    return ""


def _notes_below(el) -> list[str]:
    """Definitions and notes that are direct children of ``el`` or of its ``descripGrp``s."""
    out = []
    for ch in el:
        ln = localname(ch)
        if ln in ("descripGrp", "noteGrp"):
            out.extend(_notes_below(ch))
        else:
            n = _note_of(ch)
            if n:
                out.append(n)
    return out


def _read_term(group) -> _Term | None:
    """A ``tig`` / ``ntig`` / ``termSec`` (or a bare ``term``'s parent) as a term."""
    term_el = None
    for el in group.iter():
        if localname(el) == "term":
            term_el = el
            break
    if term_el is None:
        return None
    t = _Term(_one_line("".join(term_el.itertext())))
    for el in group.iter():
        ln = localname(el)
        kind = el.get("type") if ln in ("termNote", "admin") else ln
        value = _one_line("".join(el.itertext())) if isinstance(el.tag, str) else ""
        if kind == "partOfSpeech" and not t.pos:
            t.pos = value
        elif kind in ("administrativeStatus", "normativeAuthorization") and not t.status:
            t.status = _status(value) or t.status
        elif el is not term_el and ln in ("note", "descrip", "definition") and el.getparent() is not None:
            n = _note_of(el)
            if n:
                t.notes.append(n)
    return t if t.text else None


def _read_concept(el) -> _Concept:
    c = _Concept(id=el.get("id") or "", line=el.sourceline or 0)
    for ch in el:
        ln = localname(ch)
        if ln in ("langSet", "langSec"):
            lang = normalize_lang(ch.get(XML_LANG) or ch.get("lang") or "")
            if not lang:
                continue
            terms = c.langs.setdefault(lang, [])
            c.lang_notes.setdefault(lang, []).extend(_notes_below(ch))
            for g in ch:
                if localname(g) in ("tig", "ntig", "termSec", "termGrp"):
                    t = _read_term(g)
                    if t is not None:
                        terms.append(t)
                elif localname(g) == "term":  # TBX-Min style: a term right in the language section
                    t = _Term(_one_line("".join(g.itertext())))
                    if t.text:
                        terms.append(t)
        elif ln in ("descripGrp", "noteGrp"):
            c.notes.extend(_notes_below(ch))
        else:
            n = _note_of(ch)
            if n:
                c.notes.append(n)
    return c


def _read_tbx_concepts(path: Path) -> tuple[str, list[_Concept]]:
    """The root's language and every concept of a TBX file (bounded memory per concept)."""
    root_lang = ""
    concepts: list[_Concept] = []
    root = None
    try:
        for event, el in iterparse(path, events=("start", "end")):
            if root is None:
                root = el
                if localname(el) not in ("martif", "tbx"):
                    raise FormatError(path, f"not a TBX file (root element <{localname(el)}>, "
                                            "expected <martif> or <tbx>)", f"line {el.sourceline}")
                root_lang = normalize_lang(el.get(XML_LANG) or "")
                continue
            if event == "end" and localname(el) in ("termEntry", "conceptEntry"):
                refuse_entities(path, el)  # "Hello &xxe;" read as "Hello " otherwise
                concepts.append(_read_concept(el))
                el.clear()
                parent = el.getparent()
                while el.getprevious() is not None and parent is not None:
                    del parent[0]
    except etree.XMLSyntaxError as e:
        line = getattr(e, "lineno", None) or 1
        msg = (str(getattr(e, "msg", None) or e).strip().splitlines() or ["?"])[0]
        raise FormatError(path, f"not well-formed XML: {msg}", f"line {line}") from None
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if not concepts:
        raise FormatError(path, "a TBX file without any <termEntry> or <conceptEntry>")
    return root_lang, concepts


def _pick_lang(path: Path, wanted: str, languages: list[str], what: str) -> str:
    for lang in languages:
        if same_language(wanted, lang):
            return lang
    raise FormatError(path, f"no {what} terms in {wanted} (the file's languages: {', '.join(languages)})")


def read_tbx(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Entries of a TBX file for one language pair (see the module doc)."""
    path = Path(path)
    root_lang, concepts = _read_tbx_concepts(path)
    counts: dict[str, int] = {}
    for c in concepts:
        for lang, terms in c.langs.items():
            if terms:
                counts[lang] = counts.get(lang, 0) + 1
    languages = list(counts)
    if not languages:
        raise FormatError(path, "no terms with a language (xml:lang) in any concept")
    if src_lang:
        src = _pick_lang(path, src_lang, languages, "source")
    else:
        src = next((lg for lg in languages if same_language(root_lang, lg)), "") if root_lang else ""
        src = src or max(languages, key=lambda lg: counts[lg])
    others = [lg for lg in languages if lg != src]
    if tgt_lang:
        tgt = _pick_lang(path, tgt_lang, others, "target") if others else ""
        if not tgt:
            raise FormatError(path, f"no target terms in {tgt_lang} (the file's languages: {', '.join(languages)})")
    elif len(others) == 1:
        tgt = others[0]
    elif not others:
        raise FormatError(path, f"terms in one language only ({src}): a glossary needs a target language")
    else:
        raise FormatError(path, f"terms in {len(languages)} languages ({', '.join(languages)}): "
                                "choose the pair with --src-lang and --tgt-lang")
    out_src = normalize_lang(src_lang) or src
    out_tgt = normalize_lang(tgt_lang) or tgt
    entries: list[GlossaryEntry] = []
    problems: list[str] = []
    for c in concepts:
        sources, targets = c.langs.get(src, []), c.langs.get(tgt, [])
        if not sources or not targets:
            if sources or targets:
                label = f"concept {c.id!r}" if c.id else "a concept"
                problems.append(f"{path.name}, line {c.line}: {label} has no "
                                f"{src if not sources else tgt} term; skipped")
            continue
        accepted = [t for t in targets if t.status != "deprecated"]
        accepted.sort(key=lambda t: {"preferred": 0, "": 1, "admitted": 2}.get(t.status, 1))
        forbidden = tuple(t.text for t in targets if t.status == "deprecated")
        for s in sources:
            note = "; ".join(dict.fromkeys([*c.notes, *c.lang_notes.get(src, []), *s.notes]))
            entries.append(GlossaryEntry(
                source=s.text, targets=tuple(t.text for t in accepted), src_lang=out_src, tgt_lang=out_tgt,
                pos=s.pos, note=note, forbidden=forbidden, status=s.status or "preferred", concept=c.id,
                origin=path.name))
    return GlossaryFile(tuple(entries), out_src, out_tgt, tuple(languages), tuple(problems))


# =================================================================== CSV / TSV / XLSX
_YES = {"yes", "y", "true", "1", "x"}
_MULTI = re.compile(r"\s*[;|]\s*")


def _cell(row: list, i: int | None) -> str:
    if i is None or i >= len(row) or row[i] is None:
        return ""
    v = row[i]
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return _one_line(str(v))


def _rows_to_file(path: Path, rows: Iterator[tuple[str, list]], src_lang: str, tgt_lang: str) -> GlossaryFile:
    """Entries from ``rows`` ((place, cells) pairs, comments and blank rows included)."""
    lay: Layout | None = None
    entries: list[GlossaryEntry] = []
    problems: list[str] = []
    for place, row in rows:
        cells = [_cell(row, i) for i in range(len(row))]
        if not any(cells):
            continue
        if lay is None:
            if cells[0].startswith("#"):  # OmegaT's comment lines
                continue
            lay = layout(cells, src_lang, tgt_lang)
            if lay.header:
                if "source" not in lay.cols or "target" not in lay.cols:
                    raise FormatError(path, "the header names no " + ("source" if "source" not in lay.cols
                                      else "target") + " column (source/target or language codes)", place)
                continue
        if not lay.header and cells[0].startswith("#"):
            continue
        c = lay.cols
        source = _cell(cells, c.get("source"))
        target = _cell(cells, c.get("target"))
        forbidden = _cell(cells, c.get("forbidden"))
        if lay.header:
            targets = tuple(t for t in _MULTI.split(target) if t)
            forbid = tuple(t for t in _MULTI.split(forbidden) if t)
        else:
            targets, forbid = ((target,) if target else ()), ()
        if not source:
            problems.append(f"{path.name}, {place}: no source term; skipped")
            continue
        if not targets and not forbid:
            problems.append(f"{path.name}, {place}: no target term for {source!r}; skipped")
            continue
        entries.append(GlossaryEntry(
            source=source, targets=targets, src_lang=normalize_lang(src_lang) or lay.src_lang,
            tgt_lang=normalize_lang(tgt_lang) or lay.tgt_lang, pos=_cell(cells, c.get("pos")),
            note=_cell(cells, c.get("note")), forbidden=forbid,
            status=_status(_cell(cells, c.get("status"))) or "preferred", origin=path.name,
            inflect=_cell(cells, c.get("inflect")).lower() in _YES))
    if lay is None:
        raise FormatError(path, "no glossary entries (the file is empty)")
    src = normalize_lang(src_lang) or lay.src_lang
    tgt = normalize_lang(tgt_lang) or lay.tgt_lang
    return GlossaryFile(tuple(entries), src, tgt, tuple(x for x in (src, tgt) if x), tuple(problems))


def _unquote(field_: str) -> str:
    f = field_.strip()
    if len(f) >= 2 and f[0] == '"' and f[-1] == '"':
        return f[1:-1].replace('""', '"')
    return field_


def read_tabular(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Entries of a CSV / TSV / OmegaT glossary file (see the module doc)."""
    path = Path(path)
    text = read_decoded(path, "no glossary entries (the file is empty)").text
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
    delim = "\t"
    if path.suffix.lower() == ".csv" or "\t" not in first:
        counts = {d: first.count(d) for d in ("\t", ";", ",")}
        delim = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
        if path.suffix.lower() not in (".csv",) and delim != "\t" and "\t" not in first:
            delim = "\t" if path.suffix.lower() in OMEGAT_EXTENSIONS + (".tsv",) else delim

    def tab_rows() -> Iterator[tuple[str, list]]:
        for n, line in enumerate(text.splitlines(), 1):
            yield f"line {n}", [_unquote(f) for f in line.split("\t")]

    def csv_rows() -> Iterator[tuple[str, list]]:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, strict=True)
        line = 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise FormatError(path, f"not valid CSV: {e}", f"line {line}") from None
            yield f"line {line}", row
            line = reader.line_num + 1

    return _rows_to_file(path, tab_rows() if delim == "\t" else csv_rows(), src_lang, tgt_lang)


#: openpyxl reads a workbook's whole shared-string table into a list before the first row, even
#: in read-only mode: a 2.5 MB file of repeated strings ran past 180 s at 798 MB, one of 5 million
#: strings (13 MB) took 133 s (issue 35).  The table is counted first, streaming, and refused past
#: this many strings (a glossary of 200,000 terms has at most 3 strings a term in practice)...
MAX_XLSX_STRINGS = 600_000
#: ...and no part of the workbook (sheet, string table) may inflate past this many bytes.
MAX_XLSX_PART_BYTES = 256 << 20


def _check_xlsx(path: Path) -> None:
    """Refuse a workbook whose string table or sheets are past the limits, reading the string
    table once in chunks (``bytes.count`` of ``<si``: about 1 s for 300 MB) -- not through an
    XML parser, which is what openpyxl's read of the same table costs minutes for."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.filename.startswith("xl/") and info.file_size > MAX_XLSX_PART_BYTES:
                    raise FormatError(path, f"{info.filename} inflates to {info.file_size:,} bytes, over the "
                                            f"{MAX_XLSX_PART_BYTES} bytes Verso reads of one workbook part")
                if info.filename.lower().endswith((".xml", ".rels")) and b"<!DOCTYPE" in z.open(info).read(4096):
                    # Excel writes none; openpyxl's own refusal is three lines of advice
                    raise FormatError(path, f"{info.filename} has a DOCTYPE, which no Excel workbook has: refused "
                                            "(entities are never expanded)")
            name = next((i.filename for i in z.infolist() if i.filename.lower() == "xl/sharedstrings.xml"), None)
            if name is None:
                return
            count, tail = 0, b""
            with z.open(name) as fh:
                read = 0
                while chunk := fh.read(1 << 20):
                    read += len(chunk)
                    if read > MAX_XLSX_PART_BYTES:  # a size the zip directory understated
                        raise FormatError(path, f"{name} inflates past the {MAX_XLSX_PART_BYTES} bytes "
                                                "Verso reads of one workbook part")
                    data = tail + chunk
                    count += data.count(b"<si>") + data.count(b"<si ") + data.count(b"<si/>")
                    tail = data[-5:]
                    count -= tail.count(b"<si>") + tail.count(b"<si ") + tail.count(b"<si/>")
                    if count > MAX_XLSX_STRINGS:
                        raise FormatError(path, f"more than {MAX_XLSX_STRINGS:,} strings in the workbook "
                                                "(a glossary holds fewer): not read")
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as e:
        raise FormatError(path, f"not a readable Excel workbook (.xlsx): {e}") from None


def read_xlsx(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Entries of the first sheet of an Excel workbook (see the module doc and
    :data:`MAX_XLSX_STRINGS`)."""
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    path = Path(path)
    _check_xlsx(path)
    try:
        wb = load_workbook(str(path), read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as e:
        raise FormatError(path, f"not a readable Excel workbook (.xlsx): {e}") from None
    try:
        if not wb.worksheets:
            raise FormatError(path, "a workbook without sheets")
        ws = wb.worksheets[0]

        def rows() -> Iterator[tuple[str, list]]:
            for n, row in enumerate(ws.iter_rows(values_only=True), 1):
                yield f"sheet {ws.title!r}, row {n}", list(row)

        try:
            return _rows_to_file(path, rows(), src_lang, tgt_lang)
        except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as e:
            raise FormatError(path, f"a damaged Excel workbook: {e}") from None
    finally:
        wb.close()


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


# =================================================================== dispatch
def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in TBX_EXTENSIONS:
        return "tbx"
    if suffix in (".xlsx", ".xlsm"):
        return "xlsx"
    if suffix in TEXT_EXTENSIONS:
        return "text"
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return "tbx"
    return "text"


def read_glossary_file(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Read a TBX, CSV/TSV (OmegaT included) or .xlsx glossary file (by extension, then content)."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(path, "no such file" if not path.exists() else "not a file")
    kind = _kind(path)
    reader = {"tbx": read_tbx, "xlsx": read_xlsx, "text": read_tabular}[kind]
    return reader(path, src_lang=src_lang, tgt_lang=tgt_lang)


def write_glossary_file(path: str | Path, entries: Iterable[GlossaryEntry], *, src_lang: str,
                        tgt_lang: str) -> int:
    """Write ``entries`` as ``.tbx``, ``.tsv``, ``.csv`` or OmegaT ``.txt``; returns the entries/concepts written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".tbx":
        return write_tbx(path, entries, src_lang=src_lang, tgt_lang=tgt_lang)
    if suffix in TEXT_EXTENSIONS:
        return write_tabular(path, entries, src_lang=src_lang, tgt_lang=tgt_lang)
    raise UnsupportedFormatError(path, "cannot write a glossary in this format: use .tbx, .tsv, .csv or "
                                       "OmegaT's .txt")
