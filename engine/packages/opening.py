"""Open an agency's package as a new Verso project (see :mod:`engine.packages`)."""
from __future__ import annotations

import json
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from engine.errors import FormatError, ProjectError
from engine.formats.package import Package
from engine.langs import normalize_lang, pair_text, same_language
from engine.packages import memoq, trados

#: The project setting holding what was received (kind, file, members -> documents, instructions).
SETTING = "package"
#: The project's folder for the received package and the files taken out of it.
FOLDER = "package"
KINDS = {".sdlppx": ".sdlrpx", **memoq.KINDS}
#: A TM's import says how far it is every this many units (the editor's progress line).
TICK_UNITS = 1000


@dataclass(frozen=True)
class ReceivedDocument:
    """A bilingual file of the package, now the project's document ``document_id``."""

    member: str
    document_id: int
    segments: int


@dataclass(frozen=True)
class ReceivedTM:
    """A TM of the package, imported into the project's read-only TM at ``tm`` (relative)."""

    member: str
    tm: str
    units: int


@dataclass(frozen=True)
class ReceivedGlossary:
    """A TBX termbase of the package, now the project's read-only glossary at ``glossary``."""

    member: str
    glossary: str
    entries: int


@dataclass
class Opened:
    kind: str
    src_lang: str
    tgt_lang: str
    documents: list[ReceivedDocument] = field(default_factory=list)
    tms: list[ReceivedTM] = field(default_factory=list)
    glossaries: list[ReceivedGlossary] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    due: str = ""
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ReceivedFile:
    """A file the return package gives back: its ``member`` (and ``inner`` member of an .mqxlz, or "")
    and the project's ``document`` made from it."""

    member: str
    inner: str
    document: int


@dataclass(frozen=True)
class PackageRecord:
    """What a project made from a package received (project setting :data:`SETTING`): the package's
    ``kind`` (its extension), the kept copy ``received`` (relative to the project), its file ``name``."""

    kind: str
    received: str
    name: str
    files: tuple[ReceivedFile, ...] = ()
    instructions: tuple[str, ...] = ()
    due: str = ""
    skipped: tuple[str, ...] = ()


def kind_of(path: Path) -> str:
    ext = path.suffix.lower()
    if ext not in KINDS:
        raise FormatError(path, "not a package Verso opens (Trados .sdlppx, memoQ .mqout or .mqxlz)")
    return ext


def _safe_name(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", Path(name).stem)[:60] or "tm"


def _extract(pkg: Package, member: str, root: Path) -> Path:
    """``member`` written under ``root`` by its path in the package (the guard refused ``../``)."""
    out = (root / member).resolve()
    if root.resolve() not in out.parents:
        raise FormatError(pkg.path, "refused: a member path points outside the package", f"member {member!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(pkg.read(member))
    return out


def _read(path: Path, src: str, tgt: str):
    from engine.formats import read_document

    return read_document(path, src_lang=src, tgt_lang=tgt)


def open_package(path: str | Path, folder: str | Path, *, tgt_lang: str = "",
                 progress: Callable[[str], object] | None = None) -> Opened:
    """Make the project ``folder`` (new) from the package ``path``: every bilingual file of its target
    language a document, its TMs attached read-only, its TBX termbases as glossaries; what it says
    (instructions, due date) and what was skipped in :class:`Opened`.  A refusal leaves no project.
    ``progress(text)`` hears how far it is (each file, every :data:`TICK_UNITS` TM units); an
    exception it raises (the editor's Cancel) stops the open, which then leaves no project either."""
    path, folder = Path(path), Path(folder)
    kind = kind_of(path)
    from engine.store.project import DB_NAME

    if (folder / DB_NAME).exists():
        raise ProjectError(f"{folder}: a project already exists here; a package opens into a new folder")
    pkg = Package(path)
    existed = folder.exists()
    try:
        return _open(pkg, kind, folder, tgt_lang, progress or (lambda text: None))
    except BaseException:
        if existed:
            for sub in (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm"):
                (folder / sub).unlink(missing_ok=True)
            for sub in (FOLDER, "tms", "glossaries", "originals"):
                shutil.rmtree(folder / sub, ignore_errors=True)
        else:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def _open(pkg: Package, kind: str, folder: Path, tgt_lang: str, progress: Callable[[str], object]) -> Opened:
    work = folder / FOLDER
    files = work / "files"
    files.mkdir(parents=True, exist_ok=True)
    received = f"{FOLDER}/received{kind}"
    files_back: list[ReceivedFile] = []
    docs: list[tuple[str, str, Path]] = []  # (member, inner member or "", extracted document)
    if kind == ".sdlppx":
        proj = trados.read_sdlproj(pkg)
        tgt = _pick_target(pkg.path, proj.targets, tgt_lang)
        src = proj.src
        mine, others = trados.bilingual_members(pkg, proj, tgt)
        opened = Opened(kind, normalize_lang(src), normalize_lang(tgt), instructions=proj.notes, due=proj.due)
        opened.skipped += [f"{m}: another target language; skipped" for m in others]
        docs = [(m, "", _extract(pkg, m, files)) for m in mine]
    else:
        members = [pkg.path.name] if kind == ".mqxlz" else memoq.bilingual_members(pkg)
        opened = Opened(kind, "", "")
        for m in members:
            if m.lower().endswith(".mqxliff"):
                docs.append((m, "", _extract(pkg, m, files)))
                continue
            outer = pkg.path if kind == ".mqxlz" else _extract(pkg, m, files)
            inner_pkg = Package(outer)
            inner = memoq.document_member(inner_pkg)
            if inner is None:
                opened.skipped.append(f"{m}: no .mqxliff inside; skipped")
                continue
            docs.append((m, inner, _extract(inner_pkg, inner, files / (m + ".d"))))
        src = tgt = ""
    if not docs:
        raise FormatError(pkg.path, "the package holds no bilingual file "
                                    f"{'for ' + tgt + ' ' if tgt else ''}(.sdlxliff / .mqxliff) to translate")
    parsed = []
    for i, (member, inner, doc_path) in enumerate(docs, 1):
        progress(f"Reading {member} ({i} of {len(docs)})…")
        p = _read(doc_path, src, tgt)
        src, tgt = src or p.src_lang, tgt or p.tgt_lang
        if p.tgt_lang and not same_language(p.tgt_lang, tgt):
            opened.skipped.append(f"{member}: declares {pair_text(p.src_lang, p.tgt_lang)}, not the package's "
                                  f"{pair_text(src, tgt)}; skipped")
            continue
        parsed.append((member, inner, doc_path, p))
    if not (src and tgt):
        raise FormatError(pkg.path, "the package names no language pair")
    opened.src_lang, opened.tgt_lang = normalize_lang(src), normalize_lang(tgt)
    shutil.copyfile(pkg.path, folder / received)
    from engine.store import Project

    with Project.create(folder, src_lang=src, tgt_lang=tgt, name=pkg.path.stem) as project:
        for member, inner, doc_path, p in parsed:
            progress(f"Storing {len(p.segments):,} segments of {member}…")
            doc_id = project.import_parsed(p, doc_path, name=member + (f"/{inner}" if inner else ""))
            files_back.append(ReceivedFile(member, inner, doc_id))
            opened.documents.append(ReceivedDocument(member, doc_id, len(p.segments)))
            opened.problems += p.problems
        _attach_resources(pkg, folder, project, opened, progress)
        record = PackageRecord(kind, received, pkg.path.name, tuple(files_back), tuple(opened.instructions),
                               opened.due, tuple(opened.skipped))
        project.set_setting(SETTING, json.dumps(asdict(record), ensure_ascii=False))
    return opened


def _pick_target(path: Path, targets: list[str], wanted: str) -> str:
    if not wanted:
        return targets[0]
    for t in targets:
        if same_language(t, wanted) and normalize_lang(t).lower() == normalize_lang(wanted).lower():
            return t
    for t in targets:
        if same_language(t, wanted):
            return t
    raise FormatError(path, f"the package has no target language {wanted} (it has {', '.join(targets)})")


def _attach_resources(pkg: Package, folder: Path, project, opened: Opened,
                      progress: Callable[[str], object]) -> None:
    """The package's TMs (.sdltm, .tmx) as read-only TMs of the project, its TBX files as glossaries."""
    from engine.formats.sdltm import sdltm_pair
    from engine.formats.tmfiles import read_tm_file
    from engine.tm import open_for_import

    with tempfile.TemporaryDirectory(prefix="verso-pkg-") as tmp:
        for member in pkg.names():
            low = member.lower()
            if not low.endswith((".sdltm", ".tmx", ".tbx")):
                continue
            progress(f"Reading {member}…")
            got = _extract(pkg, member, Path(tmp))
            if low.endswith(".tbx"):
                rel = _unique(folder, "glossaries", member)
                try:
                    n = _import_glossary(got, folder / rel, project)
                except FormatError as e:   # e.g. another target's termbase: the documents still open
                    shutil.rmtree(folder / rel, ignore_errors=True)
                    where = f", {e.location}" if e.location else ""
                    opened.skipped.append(f"{member}{where}: {e.message}; skipped")
                    continue
                project.add_glossary_ref(rel, writable=False)
                opened.glossaries.append(ReceivedGlossary(member, rel, n))
                continue
            if low.endswith(".sdltm") and not _pair_fits(got, project):
                opened.skipped.append(f"{member}: a TM for {pair_text(*sdltm_pair(got))}, not this project's "
                                      f"{pair_text(project.src_lang, project.tgt_lang)}; skipped")
                continue
            rel = _unique(folder, "tms", member)
            problems: list[str] = []
            langs: dict = {}
            with open_for_import(folder / rel) as tm:
                units = read_tm_file(got, src_lang=project.src_lang, tgt_lang=project.tgt_lang, problems=problems,
                                     languages=langs)
                res = tm.import_units(_ticking(units, member, progress), src_lang=langs.get("src", project.src_lang),
                                      tgt_lang=langs.get("tgt", project.tgt_lang), origin=member, problems=problems)
            project.add_tm_ref(rel, writable=False)
            opened.tms.append(ReceivedTM(member, rel, res.added))


def _pair_fits(sdltm: Path, project) -> bool:
    """A package of several targets carries a TM per target: only this project's pair is imported."""
    from engine.formats.sdltm import sdltm_pair
    from engine.langs import same_pair

    return same_pair(*sdltm_pair(sdltm), project.src_lang, project.tgt_lang)


def _ticking(units, member: str, progress: Callable[[str], object]):
    """``units`` as they are, telling ``progress`` every :data:`TICK_UNITS` (a raise there rolls the
    TM's one import transaction back)."""
    n = 0
    for n, unit in enumerate(units, 1):
        if n % TICK_UNITS == 0:
            progress(f"Importing the TM {member}: {n:,} units…")
        yield unit
    progress(f"Indexing the TM {member} ({n:,} units)…")


def _unique(folder: Path, sub: str, member: str) -> str:
    base = _safe_name(member)
    rel, n = f"{sub}/{base}", 1
    while (folder / rel).exists():
        n += 1
        rel = f"{sub}/{base}-{n}"
    return rel


def _import_glossary(path: Path, dest: Path, project) -> int:
    from engine.glossary.formats import read_glossary_file
    from engine.glossary.store import Glossary

    gf = read_glossary_file(path, src_lang=project.src_lang, tgt_lang=project.tgt_lang)
    with Glossary(dest, create=True) as g:
        res = g.import_entries(gf.entries, src_lang=gf.src_lang, tgt_lang=gf.tgt_lang, origin=path.name,
                               problems=gf.problems)
    return res.added


def package_record(project) -> PackageRecord | None:
    """What a project made from a package received (None for another project); a record that
    no longer reads raises :class:`ProjectError` naming what is wrong."""
    raw = project.setting(SETTING)
    if not raw:
        return None
    try:
        rec = json.loads(raw)
        if not isinstance(rec, dict) or rec.get("kind") not in KINDS:
            raise ValueError(f"kind {rec.get('kind') if isinstance(rec, dict) else None!r}")
        return PackageRecord(
            rec["kind"], str(rec["received"]), str(rec["name"]),
            tuple(ReceivedFile(str(f["member"]), str(f.get("inner") or ""), int(f["document"]))
                  for f in rec.get("files", [])),
            tuple(str(n) for n in rec.get("instructions", [])), str(rec.get("due", "")),
            tuple(str(n) for n in rec.get("skipped", [])))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        what = f"no {e}" if isinstance(e, KeyError) else str(e)
        raise ProjectError(f"{project.folder}: the package record (project setting {SETTING!r}) "
                           f"does not read: {what}") from None
