"""Trados Studio translation memories (``.sdltm``) read as TM units.

An ``.sdltm`` is a SQLite database (the layout public readers document: ``translation_memories``
names the pair; ``translation_units`` holds each unit's ``source_segment`` / ``target_segment``
as a small XML ``<Segment><Elements><Text><Value>..</Value></Text><Tag>..</Tag>..</Elements>
<CultureName>en-US</CultureName></Segment>``, with creation/change dates, users and usage
counter; ``attributes`` names the TM's fields, whose values per unit are in ``string_attributes``,
``numeric_attributes``, ``date_attributes`` and ``picklist_attributes`` -> ``picklist_values``).

A received TM runs no code of its own (:mod:`engine.sqlguard` says why): it is opened read-only
(``file:...?mode=ro``, ``PRAGMA query_only``, ``trusted_schema=OFF``) and refused, in one line
naming the file and the object, when it holds a trigger, a view, a virtual table, a generated
column, an index on an expression or a table Trados does not make.  Verso's own-TM schema check
(:func:`engine.sqlguard.check_schema`) compares with Verso's schema, which an ``.sdltm`` is not,
so the policy here is Trados' table list; :func:`engine.sqlguard.read_schema` lists the objects.

A segment's XML over :data:`MAX_SEGMENT_XML` characters is never read (its length is asked of
SQLite, not the value): the unit is skipped with a word, so a hostile TM cannot make one read
hold gigabytes.  Fields become TMX props as Trados exports them (``x-Client``), dates TMX dates,
users ``creationid``/``changeid`` and the usage counter ``usagecount``: ``verso tm export``
writes them back for Trados' import.  Tags become TMX codes (``<bpt i x/>``, ``<ept i/>``,
``<ph x/>``), as Trados' own TMX export writes them.
"""
from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from lxml import etree

from engine.errors import FormatError
from engine.formats.base import TMUnit
from engine.formats.xmlsafe import safe_parser
from engine.inline import TaggedText, TaggedTextBuilder
from engine.langs import normalize_lang, pair_text, same_pair
from engine.sqlguard import read_schema

SQLITE_MAGIC = b"SQLite format 3\x00"
#: A segment's XML longer than this is skipped unread (the TM refuses a side over 65,536
#: characters anyway; the XML of such a side with its tags stays well under 1 MiB).
MAX_SEGMENT_XML = 1 << 20
#: Tables Trados Studio 2009-2024 creates in an .sdltm (fuzzy_data1..4 / fuzzy_index1..4 by pattern).
TRADOS_TABLES = frozenset({
    "translation_memories", "translation_units", "attributes", "picklist_values", "string_attributes",
    "numeric_attributes", "date_attributes", "picklist_attributes", "parameters", "resources",
    "tm_resources", "translation_unit_contexts", "translation_unit_idcontexts", "translation_unit_fragments",
    "translation_unit_variants", "deleted_translation_units", "context", "contexts",
})
_FUZZY_TABLE = re.compile(r"^fuzzy_(?:data|index)\d{1,2}$")
_NEEDED = {
    "translation_memories": {"id", "source_language", "target_language"},
    "translation_units": {"id", "translation_memory_id", "source_segment", "target_segment"},
}
_UNIT_OPTIONAL = ("creation_date", "creation_user", "change_date", "change_user", "last_used_date",
                  "usage_counter")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})")


def is_sdltm(path: Path) -> bool:
    """An ``.sdltm``, by its extension (Verso's own TMs are folders, never one SQLite file)."""
    return path.suffix.lower() == ".sdltm"


def _connect(path: Path) -> sqlite3.Connection:
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if head != SQLITE_MAGIC:
        raise FormatError(path, "not a Trados Studio TM (an .sdltm is a SQLite database; this file is not one)")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
        conn.execute("PRAGMA query_only=1")
        conn.execute("PRAGMA trusted_schema=OFF")
    except sqlite3.Error as e:
        raise FormatError(path, f"not a readable SQLite database ({e})") from None
    return conn


def check_sdltm_schema(conn: sqlite3.Connection, path: Path) -> dict[str, frozenset]:
    """Refuse what a received TM must not hold (see the module doc); return table -> columns."""
    try:
        objects, other = read_schema(conn)
    except sqlite3.DatabaseError as e:
        raise FormatError(path, f"not a readable database ({e})") from None
    for kind, name in other:
        raise FormatError(path, f"holds a {kind} {name!r}, which Trados never makes; a received TM runs no "
                                "SQL of its own: refused")
    tables: dict[str, frozenset] = {}
    for name, (kind, table, cols) in objects.items():
        if name.startswith("sqlite_"):
            continue
        known = table in TRADOS_TABLES or bool(_FUZZY_TABLE.match(table))
        if kind == "table":
            if not known:
                raise FormatError(path, f"holds a table {name!r}, which Trados never makes: refused")
            hidden = [r[0] for r in conn.execute("SELECT name FROM pragma_table_xinfo(?) WHERE hidden != 0",
                                                 (name,))]
            if hidden:
                raise FormatError(path, f"table {name!r} has a generated column {hidden[0]!r}: refused")
            tables[name] = cols or frozenset()
        else:
            exprs = conn.execute("SELECT count(*) FROM pragma_index_xinfo(?) WHERE cid = -2", (name,)).fetchone()[0]
            if not known or exprs:
                why = "on an expression" if known else f"on {table!r}"
                raise FormatError(path, f"holds an index {name!r} {why}, which Trados never makes: refused")
    for table, cols in _NEEDED.items():
        if table not in tables:
            raise FormatError(path, f"not a Trados Studio TM: no table {table!r}")
        missing = sorted(cols - tables[table])
        if missing:
            raise FormatError(path, f"not a Trados Studio TM: table {table!r} has no column {missing[0]!r}")
    return tables


def sdltm_pair(path: str | Path) -> tuple[str, str]:
    """(source, target) language of the (first) TM in an .sdltm file."""
    path = Path(path)
    conn = _connect(path)
    try:
        check_sdltm_schema(conn, path)
        row = conn.execute("SELECT source_language, target_language FROM translation_memories "
                           "ORDER BY id LIMIT 1").fetchone()
    except sqlite3.Error as e:
        raise FormatError(path, f"not a readable Trados Studio TM ({e})") from None
    finally:
        conn.close()
    if not row:
        raise FormatError(path, "a Trados Studio TM without a translation memory record: nothing to read")
    return normalize_lang(row[0] or ""), normalize_lang(row[1] or "")


def read_sdltm(path: str | Path, *, src_lang: str = "", tgt_lang: str = "", problems: list[str] | None = None,
               languages: dict | None = None) -> Iterator[TMUnit]:
    """The units of an .sdltm (checked, see the module doc).  A TM of another pair than
    ``src_lang -> tgt_lang`` (when given) is refused naming both; ``languages`` gets the pair."""
    path = Path(path)
    problems = problems if problems is not None else []
    src, tgt = sdltm_pair(path)
    if not (src and tgt):
        raise FormatError(path, "the Trados TM names no source or target language")
    if (src_lang or tgt_lang) and not same_pair(src, tgt, normalize_lang(src_lang), normalize_lang(tgt_lang)):
        raise FormatError(path, f"the file declares {pair_text(src, tgt)}; the TM is "
                                f"{pair_text(src_lang, tgt_lang)}: import it into a TM for {pair_text(src, tgt)}")
    if languages is not None:
        languages.update(src=src, tgt=tgt)
    return _units(path, src, tgt, problems)


def _units(path: Path, src: str, tgt: str, problems: list[str]) -> Iterator[TMUnit]:
    conn = _connect(path)
    try:
        tables = check_sdltm_schema(conn, path)
        cols = tables["translation_units"]
        extra = [c if c in cols else f"NULL AS {c}" for c in _UNIT_OPTIONAL]
        sql = ("SELECT id, CASE WHEN length(source_segment) > :m THEN NULL ELSE source_segment END, "
               "CASE WHEN length(target_segment) > :m THEN NULL ELSE target_segment END, "
               f"{', '.join(extra)} FROM translation_units ORDER BY id")
        fields = _FieldReader(conn, tables)
        parser = safe_parser()
        for row in conn.execute(sql, {"m": MAX_SEGMENT_XML}):
            uid = row[0]
            if row[1] is None or row[2] is None:
                problems.append(f"{path}, unit {uid}: skipped, its segment XML runs over "
                                f"{MAX_SEGMENT_XML:,} characters")
                continue
            try:
                source, target = _segment(row[1], parser), _segment(row[2], parser)
            except (etree.XMLSyntaxError, ValueError) as e:
                problems.append(f"{path}, unit {uid}: skipped, its segment XML is not readable ({e})")
                continue
            if not source.text.strip() or not target.text.strip():
                problems.append(f"{path}, unit {uid}: skipped, empty {'source' if not source.text.strip() else 'target'}")
                continue
            yield TMUnit({src: source, tgt: target}, meta=_meta(uid, row[3:], fields.props(uid)))
    except sqlite3.Error as e:
        raise FormatError(path, f"not a readable Trados Studio TM ({e})") from None
    finally:
        conn.close()


def _segment(xml: str, parser) -> TaggedText:
    if "<!" in xml[:512]:
        raise ValueError("a DOCTYPE or entity declaration")
    root = etree.fromstring(xml.encode("utf-8"), parser)
    elements = next((c for c in root if c.tag == "Elements"), None)
    b = TaggedTextBuilder()
    for el in elements if elements is not None else ():
        if el.tag == "Text":
            b.text("".join(v.text or "" for v in el if v.tag == "Value"))
        elif el.tag == "Tag":
            kid = {c.tag: (c.text or "") for c in el}
            kind, anchor, tid = kid.get("Type", ""), kid.get("Anchor", ""), kid.get("TagID", "")
            if kind == "Start":
                b.open(f'<bpt i="{_num(anchor)}" x="{_num(tid)}"/>', tid or anchor, pair=f"a{anchor}")
            elif kind == "End":
                b.close(f'<ept i="{_num(anchor)}"/>', tid or anchor, pair=f"a{anchor}")
            else:  # Standalone, TextPlaceholder, LockedContent
                b.ph(f'<ph x="{_num(tid or anchor)}"/>', kid.get("TextEquivalent") or tid or anchor)
    return b.build()


def _num(v: str) -> str:
    return v if v.isdigit() else "0"


@lru_cache(maxsize=4096)
def _dates(v) -> tuple[str, str]:
    """Trados' ``2023-02-01 10:11:12`` (UTC) -> (TMX ``20230201T101112Z``, ISO ``2023-02-01T10:11:12Z``);
    cached: a TM's units share few distinct dates (the parse was 40 % of a 100,000-unit read)."""
    m = _DATE.match(str(v or ""))
    if not m:
        return "", ""
    g = m.groups()
    return "{}{}{}T{}{}{}Z".format(*g), "{}-{}-{}T{}:{}:{}Z".format(*g)


def _meta(uid: int, row: tuple, props: list) -> dict:
    created, creator, changed, changer, used, count = row
    meta: dict = {"tuid": str(uid)}
    for key, value in (("creationdate", created), ("changedate", changed), ("lastusagedate", used)):
        tmx, iso = _dates(value)
        if tmx:
            meta[key], meta[key + "_iso"] = tmx, iso
    if creator:
        meta["creationid"] = creator
    if changer:
        meta["changeid"] = changer
    if isinstance(count, int) and count >= 0:
        meta["usagecount"] = count
    if props:
        meta["props"] = props
    return meta


class _FieldReader:
    """Each unit's field values, read alongside the units: one ordered cursor per value table,
    advanced as the unit ids go up (no table of all values in memory)."""

    _QUERIES = (
        ("string_attributes", "SELECT v.translation_unit_id, a.name, v.value FROM string_attributes v "
                              "JOIN attributes a ON a.id = v.attribute_id ORDER BY v.translation_unit_id"),
        ("numeric_attributes", "SELECT v.translation_unit_id, a.name, v.value FROM numeric_attributes v "
                               "JOIN attributes a ON a.id = v.attribute_id ORDER BY v.translation_unit_id"),
        ("date_attributes", "SELECT v.translation_unit_id, a.name, v.value FROM date_attributes v "
                            "JOIN attributes a ON a.id = v.attribute_id ORDER BY v.translation_unit_id"),
        ("picklist_attributes", "SELECT v.translation_unit_id, a.name, p.value FROM picklist_attributes v "
                                "JOIN picklist_values p ON p.id = v.picklist_value_id "
                                "JOIN attributes a ON a.id = p.attribute_id ORDER BY v.translation_unit_id"),
    )

    def __init__(self, conn: sqlite3.Connection, tables: dict):
        self._cursors = []
        if "attributes" not in tables:
            return
        for table, sql in self._QUERIES:
            if table in tables and (table != "picklist_attributes" or "picklist_values" in tables):
                cur = conn.execute(sql)
                self._cursors.append([cur, cur.fetchone(), table == "date_attributes"])

    def props(self, uid: int) -> list:
        out = []
        for entry in self._cursors:
            cur, row, dates = entry
            while row is not None and row[0] < uid:
                row = cur.fetchone()
            while row is not None and row[0] == uid:
                value = row[2]
                out.append([f"x-{row[1]}", (dates and _dates(value)[0]) or str(value)])
                row = cur.fetchone()
            entry[1] = row
        return out


__all__ = ["MAX_SEGMENT_XML", "check_sdltm_schema", "is_sdltm", "read_sdltm", "sdltm_pair"]
