"""Trados Studio project packages (``.sdlppx``) in, return packages (``.sdlrpx``) out.

A project package is a zip (public converters -- OpenXLIFF's, OmegaT's -- read it so): the
``.sdlproj`` project file (XML) at its root; one folder per language named by its code
(``en-US/`` the source files, ``de-DE/`` the bilingual ``.sdlxliff`` files of that target);
TMs (``.sdltm``), termbases and reports elsewhere.  The ``.sdlproj`` names the pair(s)
(``LanguageDirection SourceLanguageCode / TargetLanguageCode``), each file (``ProjectFile`` ->
``LanguageFile LanguageCode / Guid`` -> ``FileVersion FileName``), and the work
(``ManualTask``: ``Description``, ``DueDate``, ``Status``, its ``TaskFile LanguageFileGuid``;
``GeneralProjectInfo Description / DueDate``).

A return package is the same zip layout holding the ``.sdlproj`` marked as returned
(:mod:`engine.packages.trados_return`: package type, the returned files' tasks and statistics,
spliced into the received bytes) and only the files worked on, under their received names.  No
TM, termbase or untouched file goes back.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import FormatError
from engine.formats.package import Package
from engine.langs import normalize_lang


@dataclass
class SdlProject:
    member: str
    src: str
    targets: list[str]
    #: target language -> {LanguageFile Guid: FileName}
    files: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    due: str = ""
    name: str = ""


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def find_sdlproj(pkg: Package) -> str:
    names = [n for n in pkg.names() if n.lower().endswith(".sdlproj") and "/" not in n.strip("/")]
    if not names:
        raise FormatError(pkg.path, "not a Trados project package: no .sdlproj project file at its root")
    return names[0]


def read_sdlproj(pkg: Package) -> SdlProject:
    member = find_sdlproj(pkg)
    root = pkg.xml(member).getroot()
    if _local(root.tag) != "Project":
        raise FormatError(pkg.path, "the .sdlproj is not a Trados project file (its root is not <Project>)",
                          f"member {member!r}")
    src, targets = "", []
    for el in root.iter():
        if _local(el.tag) == "LanguageDirection":
            src = src or el.get("SourceLanguageCode", "")
            t = el.get("TargetLanguageCode", "")
            if t and t not in targets:
                targets.append(t)
    proj = SdlProject(member, src, targets)
    for el in root.iter():
        tag = _local(el.tag)
        if tag == "LanguageFile":
            lang = el.get("LanguageCode", "")
            versions = [v for v in el.iter() if _local(v.tag) == "FileVersion"]
            if versions and lang != src:
                proj.files.setdefault(lang, {})[el.get("Guid", "")] = versions[-1].get("FileName", "")
        elif tag in ("ManualTask", "GeneralProjectInfo"):
            text = (el.get("Description") or "").strip()
            if text and text not in proj.notes:
                proj.notes.append(text)
            proj.due = proj.due or (el.get("DueDate") or "")
            if tag == "GeneralProjectInfo":
                proj.name = el.get("Name", "")
        elif tag == "Comment" and (el.text or "").strip() and el.text.strip() not in proj.notes:
            proj.notes.append(el.text.strip())
        elif tag == "SourceLanguageCode" and not proj.src:
            proj.src = (el.text or "").strip()
    if not proj.src or not proj.targets:
        raise FormatError(pkg.path, "the .sdlproj names no language pair (LanguageDirection)", f"member {member!r}")
    return proj


def bilingual_members(pkg: Package, proj: SdlProject, target: str) -> tuple[list[str], list[str]]:
    """(the .sdlxliff members of ``target``'s folder, those of other targets)."""
    mine, others = [], []
    want = normalize_lang(target)
    for name in pkg.names():
        if not name.lower().endswith(".sdlxliff"):
            continue
        folder = name.split("/", 1)[0] if "/" in name else ""
        (mine if normalize_lang(folder) == want else others).append(name)
    return mine, others
