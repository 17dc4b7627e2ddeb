"""Trados files built for tests and benchmarks: an ``.sdltm`` with Trados Studio's schema (tables,
columns and indexes as public .sdltm readers document them), an ``.sdlproj`` as Trados writes a
project package's, and ``.sdlppx`` / memoQ packages zipped from real SDLXLIFF/MQXLIFF samples."""
from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

SDLTM_SCHEMA = """
CREATE TABLE translation_memories (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE, source_language TEXT NOT NULL, target_language TEXT NOT NULL, copyright TEXT,
  description TEXT, settings INT NOT NULL, creation_user TEXT NOT NULL, creation_date DATETIME NOT NULL,
  expiration_date DATETIME, fuzzy_indexes INT NOT NULL, last_recompute_date DATETIME, last_recompute_size INT,
  flags INT NOT NULL DEFAULT 0);
CREATE TABLE attributes (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
  type INT NOT NULL, tm_id INT NOT NULL REFERENCES translation_memories(id) ON DELETE CASCADE,
  UNIQUE (name, tm_id));
CREATE TABLE picklist_values (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL UNIQUE,
  attribute_id INT NOT NULL REFERENCES attributes(id) ON DELETE CASCADE, value TEXT NOT NULL,
  UNIQUE (attribute_id, value));
CREATE TABLE translation_units (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL,
  translation_memory_id INT NOT NULL REFERENCES translation_memories(id) ON DELETE CASCADE,
  source_hash INT NOT NULL, source_segment TEXT NOT NULL, target_hash INT NOT NULL, target_segment TEXT NOT NULL,
  creation_date DATETIME NOT NULL, creation_user TEXT NOT NULL, change_date DATETIME NOT NULL,
  change_user TEXT NOT NULL, last_used_date DATETIME NOT NULL, last_used_user TEXT NOT NULL,
  usage_counter INT NOT NULL DEFAULT 0, flags INT NOT NULL DEFAULT 0, source_token_data BLOB,
  target_token_data BLOB, alignment_data BLOB, align_model_date DATETIME, insert_date DATETIME);
CREATE TABLE string_attributes (translation_unit_id INT NOT NULL REFERENCES translation_units(id) ON DELETE CASCADE,
  attribute_id INT NOT NULL REFERENCES attributes(id) ON DELETE CASCADE, value TEXT NOT NULL,
  PRIMARY KEY (translation_unit_id, attribute_id, value));
CREATE TABLE numeric_attributes (translation_unit_id INT NOT NULL, attribute_id INT NOT NULL, value INT NOT NULL,
  PRIMARY KEY (translation_unit_id, attribute_id));
CREATE TABLE date_attributes (translation_unit_id INT NOT NULL, attribute_id INT NOT NULL, value DATETIME NOT NULL,
  PRIMARY KEY (translation_unit_id, attribute_id));
CREATE TABLE picklist_attributes (translation_unit_id INT NOT NULL, picklist_value_id INT NOT NULL,
  PRIMARY KEY (translation_unit_id, picklist_value_id));
CREATE TABLE fuzzy_data1 (translation_memory_id INT NOT NULL, translation_unit_id INT NOT NULL, fi1 INT NOT NULL);
CREATE TABLE parameters (translation_memory_id INT, name TEXT NOT NULL, value TEXT);
CREATE TABLE resources (id INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT NOT NULL UNIQUE, type INT NOT NULL,
  language TEXT, data BLOB);
CREATE TABLE tm_resources (translation_memory_id INT NOT NULL, resource_id INT NOT NULL,
  PRIMARY KEY (translation_memory_id, resource_id));
CREATE INDEX idx_tu_source_hash ON translation_units (translation_memory_id, source_hash);
CREATE INDEX idx_fuzzy_data1 ON fuzzy_data1 (translation_memory_id, fi1);
"""


def segment_xml(lang: str, *parts) -> str:
    """A Trados segment: ``parts`` are text or ("Start"|"End"|"Standalone", anchor)."""
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(f"<Text><Value>{escape(p)}</Value></Text>")
        else:
            out.append(f"<Tag><Type>{p[0]}</Type><Anchor>{p[1]}</Anchor><AlignmentAnchor>{p[1]}</AlignmentAnchor>"
                       f"<TagID>{p[1]}</TagID><CanHide>false</CanHide></Tag>")
    return ('<Segment xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><Elements>'
            f"{''.join(out)}</Elements><CultureName>{lang}</CultureName></Segment>")


def write_sdltm(path: Path, units, *, src: str = "en-US", tgt: str = "de-DE", fields: bool = True,
                extra_sql: str = "") -> Path:
    """``units``: iterable of (source parts, target parts) (a str is one text part)."""
    conn = sqlite3.connect(path)
    conn.executescript(SDLTM_SCHEMA)
    conn.execute("INSERT INTO translation_memories (guid, name, source_language, target_language, settings, "
                 "creation_user, creation_date, fuzzy_indexes) VALUES ('g', 'Client TM', ?, ?, 0, 'AGENCY\\pm', "
                 "'2023-01-05 09:00:00', 15)", (src, tgt))
    if fields:
        conn.execute("INSERT INTO attributes (guid, name, type, tm_id) VALUES ('a1', 'Client', 2, 1)")
        conn.execute("INSERT INTO attributes (guid, name, type, tm_id) VALUES ('a2', 'Domain', 5, 1)")
        conn.execute("INSERT INTO attributes (guid, name, type, tm_id) VALUES ('a3', 'Reviewed', 4, 1)")
        conn.execute("INSERT INTO picklist_values (guid, attribute_id, value) VALUES ('p1', 2, 'Legal')")
    rows = []
    for i, (s, t) in enumerate(units, 1):
        s = (s,) if isinstance(s, str) else s
        t = (t,) if isinstance(t, str) else t
        rows.append((f"u{i}", 1, i, segment_xml(src, *s), i, segment_xml(tgt, *t), "2023-02-01 10:11:12",
                     "AGENCY\\anna", "2023-03-04 05:06:07", "AGENCY\\ben", "2023-04-01 00:00:00", "AGENCY\\ben", i % 7))
    conn.executemany("INSERT INTO translation_units (guid, translation_memory_id, source_hash, source_segment, "
                     "target_hash, target_segment, creation_date, creation_user, change_date, change_user, "
                     "last_used_date, last_used_user, usage_counter) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    if fields:
        conn.executemany("INSERT INTO string_attributes VALUES (?, 1, 'Acme')", [(i,) for i in range(1, len(rows) + 1, 2)])
        conn.executemany("INSERT INTO picklist_attributes VALUES (?, 1)", [(i,) for i in range(1, len(rows) + 1, 3)])
        conn.executemany("INSERT INTO date_attributes VALUES (?, 3, '2023-05-06 07:08:09')", [(1,)] if rows else [])
    if extra_sql:
        conn.executescript(extra_sql)
    conn.commit()
    conn.close()
    return path


LEVELS = ("Unspecified", "Draft", "Translated", "RejectedTranslation", "ApprovedTranslation", "RejectedSignOff",
          "ApprovedSignOff")


def confirmation_stats(data: bytes) -> dict[str, dict[str, int]]:
    """Statistics as the .sdlproj keeps them for an SDLXLIFF file (level -> Words/Characters/Segments/Placeables/Tags),
    counted here the simple way: whitespace words, non-space characters, child elements as tags."""
    from lxml import etree

    x, sdl = "{urn:oasis:names:tc:xliff:document:1.2}", "{http://sdl.com/FileTypes/SdlXliff/1.0}"
    out = {lv: dict.fromkeys(("Words", "Characters", "Segments", "Placeables", "Tags"), 0) for lv in LEVELS}
    for unit in etree.fromstring(data).iter(f"{x}trans-unit"):
        confs = {s.get("id"): s.get("conf") for s in unit.iter(f"{sdl}seg")}
        for mrk in unit.iterfind(f"{x}seg-source//{x}mrk[@mtype='seg']"):
            text = "".join(mrk.itertext())
            row = out[confs.get(mrk.get("mid")) or "Unspecified"]
            row["Words"] += len(text.split())
            row["Characters"] += len("".join(text.split()))
            row["Segments"] += 1
            row["Tags"] += sum(1 for _ in mrk.iterdescendants())
    return out


def stats_xml(stats: dict[str, dict[str, int]] | None) -> str:
    if stats is None:
        return ""
    levels = "".join(f'<{lv} ' + " ".join(f'{k}="{v}"' for k, v in stats[lv].items()) + " />" for lv in LEVELS)
    return (f'<AnalysisStatistics WordCountStatus="Complete" AnalysisStatus="Complete"><Total Words="7" Characters="30" '
            f'Segments="3" Placeables="0" Tags="0" /><New Words="7" Characters="30" Segments="3" Placeables="0" '
            f'Tags="0" /></AnalysisStatistics><ConfirmationStatistics Status="Complete" '
            f'FileTimeStamp="2026-11-20T08:00:00Z">{levels}</ConfirmationStatistics>')


def _summed(stats: list[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]] | None:
    if not stats:
        return None
    return {lv: {k: sum(s[lv][k] for s in stats) for k in stats[0][lv]} for lv in LEVELS}


def sdlproj(src: str, tgts: list[str], files: dict[str, list[str]], *, due: str = "2026-12-04T16:00:00Z",
            comment: str = "Use the client's glossary. Keep product names in English.",
            stats: dict[str, dict[str, dict]] | None = None) -> str:
    """An .sdlproj of a project package, following Trados' project XML (LanguageDirection / LanguageFile with
    their AnalysisStatistics and ConfirmationStatistics, ManualTask / TaskFile Completed): ``files`` maps a
    target language to its .sdlxliff names, ``stats`` a target to {name: confirmation statistics}."""
    stats = stats or {}
    dirs = "".join(f'<LanguageDirection Guid="d{i}" SettingsBundleGuid="s{i}" TargetLanguageCode="{t}" '
                   f'SourceLanguageCode="{src}"><AutoSuggestDictionaries />{stats_xml(_summed(list(stats.get(t, {}).values())))}'
                   '<CascadeItem OverrideParent="false">'
                   '<CascadeEntryItem PerformConcordanceSearch="true" Penalty="0" PerformUpdate="true">'
                   f'<MainTranslationProviderItem Uri="sdltm.file:///C:/TMs/Client_{src}_{t}.sdltm" Enabled="true" />'
                   '</CascadeEntryItem></CascadeItem></LanguageDirection>' for i, t in enumerate(tgts))
    pfiles, tasks = [], []
    for t, names in files.items():
        for j, name in enumerate(names):
            base = name[:-len(".sdlxliff")]
            pfiles.append(
                f'<ProjectFile Guid="pf-{t}-{j}" Name={quoteattr(base)} Path="" Role="Translatable">'
                f'<LanguageFiles><LanguageFile Guid="lf-{src}-{t}-{j}" LanguageCode="{src}"><FileVersions>'
                f'<FileVersion Guid="fv1" VersionNumber="1" Size="100" FileName={quoteattr(base)} '
                f'PhysicalPath="C:\\Projects\\P\\{src}\\{escape(base)}" CreatedAt="2026-11-20T08:00:00Z" '
                'CreatedBy="AGENCY\\pm" /></FileVersions></LanguageFile>'
                f'<LanguageFile Guid="lf-{t}-{j}" SettingsBundleGuid="sb" LanguageCode="{t}"><FileVersions>'
                f'<FileVersion Guid="fv2" VersionNumber="1" Size="100" FileName={quoteattr(name)} '
                f'PhysicalPath="C:\\Projects\\P\\{t}\\{escape(name)}" CreatedAt="2026-11-20T08:00:00Z" '
                f'CreatedBy="AGENCY\\pm" /></FileVersions>{stats_xml(stats.get(t, {}).get(name))}</LanguageFile>'
                '</LanguageFiles></ProjectFile>')
            tasks.append(f'<TaskFile Guid="tf-{t}-{j}" LanguageFileGuid="lf-{t}-{j}" Purpose="WorkFile" Completed="false" '
                         'ParentTaskFileGuid="00000000-0000-0000-0000-000000000000"><Result /></TaskFile>')
    return ('<?xml version="1.0" encoding="utf-8"?>\r\n'
            '<Project xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'Guid="p1" PackageGuid="pk1" PackageCreatedBy="AGENCY\\pm" PackageCreatedAt="2026-11-20T08:00:00Z" '
            'PackageType="ProjectPackage" Version="4.0.0.0">\r\n'
            '  <PackageLicenseInfo><PackageLicenseInfo>FreelancePlus</PackageLicenseInfo></PackageLicenseInfo>\r\n'
            f'  <LanguageDirections>{dirs}</LanguageDirections>\r\n'
            f'  <ProjectFiles>{"".join(pfiles)}</ProjectFiles>\r\n'
            '  <Users><User UserId="AGENCY\\pm" FullName="Pat Manager" /></Users>\r\n'
            f'  <Tasks><ManualTask Guid="t1" Name="Translate" Description={quoteattr(comment)} Status="Created" '
            f'CreatedAt="2026-11-20T08:00:00Z" CreatedBy="AGENCY\\pm" DueDate="{due}" PercentComplete="0">'
            f'<Files>{"".join(tasks)}</Files><UserAssignment><AssignedUsers><string>translator</string>'
            '</AssignedUsers></UserAssignment></ManualTask></Tasks>\r\n'
            f'  <GeneralProjectInfo Name="Acme manuals" Description={quoteattr(comment)} DueDate="{due}" '
            'CreatedAt="2026-11-20T08:00:00Z" CreatedBy="AGENCY\\pm" IsInPlace="false" IsImported="false" />\r\n'
            f'  <SourceLanguageCode>{src}</SourceLanguageCode>\r\n'
            '</Project>')


def write_sdlppx(path: Path, src: str, files: dict[str, dict[str, bytes]], *, extra: dict[str, bytes] | None = None,
                 **kw) -> Path:
    """A project package: ``files`` maps a target language to {sdlxliff name: bytes}."""
    stats = {t: {name: confirmation_stats(data) for name, data in named.items()} for t, named in files.items()}
    proj = sdlproj(src, list(files), {t: list(f) for t, f in files.items()}, stats=stats, **kw)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("Acme manuals.sdlproj", proj.encode("utf-8-sig"))
        for t, named in files.items():
            for name, data in named.items():
                z.writestr(f"{t}/{name}", data)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


#: Trados' SDLXLIFF schema set (xml.xsd, XLIFF 1.2 strict, SDL's extension schema), as its SDLXLIFF file type
#: embeds them (public decompilation github.com/tonygarhager/tmProject, no licence: read from where it lies,
#: never copied here).  VERSO_SDLXLIFF_XSD names a folder holding the three files; else the fetched mirror.
SDLXLIFF_XSD = ("Xliff.xml.xsd", "Xliff.xliff-core-1.2-strict_20032007.xsd", "Xliff.sdl-FilterFramework2-1.0.xsd")
SDLXLIFF_XSD_MIRROR = Path("/work/.mirror/tonygarhager+tmProject/repo")
SDLXLIFF_XSD_IN_MIRROR = "Sdl.FileTypeSupport.Bilingual.SdlXliff/Sdl.FileTypeSupport.Bilingual.SdlXliff/"


def sdlxliff_schema(tmp: Path):
    """Trados' SDLXLIFF schema (lxml XMLSchema, nothing fetched), or None where its files are absent."""
    import os
    import subprocess

    from lxml import etree

    folder = Path(os.environ.get("VERSO_SDLXLIFF_XSD", "") or tmp / "sdlxliff-xsd")
    if not all((folder / n).is_file() for n in SDLXLIFF_XSD):
        if not SDLXLIFF_XSD_MIRROR.is_dir():
            return None
        folder.mkdir(parents=True, exist_ok=True)
        for n in SDLXLIFF_XSD:
            got = subprocess.run(["git", "--git-dir", str(SDLXLIFF_XSD_MIRROR), "show", f"HEAD:{SDLXLIFF_XSD_IN_MIRROR}{n}"],
                                 capture_output=True, timeout=60)
            if got.returncode != 0:
                return None
            (folder / n).write_bytes(got.stdout)
    namespaces = ("http://www.w3.org/XML/1998/namespace", "urn:oasis:names:tc:xliff:document:1.2",
                  "http://sdl.com/FileTypes/SdlXliff/1.0")
    imports = "".join(f'<xs:import namespace="{ns}" schemaLocation="{(folder / n).as_uri()}"/>'
                      for ns, n in zip(namespaces, SDLXLIFF_XSD))
    parser = etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False)
    wrapper = f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">{imports}</xs:schema>'
    return etree.XMLSchema(etree.fromstring(wrapper.encode(), parser))


def without_return_marks(sdlproj_bytes: bytes) -> str:
    """An .sdlproj with what a return package may change blanked out (package type/date/author, manual task
    status/percent/completion, task files' Completed, confirmation statistics): received and returned project
    files must be equal after it."""
    import re

    text = sdlproj_bytes.decode("utf-8-sig")
    for name in ("PackageType", "PackageCreatedAt", "PackageCreatedBy", "Status", "PercentComplete", "Completed"):
        text = re.sub(rf'(\s{name}=")[^"]*(")', r"\1-\2", text)
    text = re.sub(r'\sCompletedAt="[^"]*"', "", text)
    return re.sub(r"<ConfirmationStatistics\b.*?</ConfirmationStatistics>", "<CS/>", text, flags=re.S)
