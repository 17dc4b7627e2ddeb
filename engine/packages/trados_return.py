"""The project file (``.sdlproj``) of a Trados return package (``.sdlrpx``), spliced into the received bytes.

What changes, as Trados' project XML (``Sdl.ProjectApi.Implementation.Xml``, public decompilations:
``TaskFile``, ``ConfirmationStatistics``, ``TaskStatus``) and a public return-package writer
(Supervertaler's ``sdlppx_handler``) describe it:

* ``<Project PackageType="ReturnPackage">`` (was ``ProjectPackage``), ``PackageCreatedAt`` (UTC, Trados'
  7-digit fraction) and ``PackageCreatedBy`` (:func:`engine.identity.user_name`): who made this package, when;
* each ``<TaskFile>`` of a ``<ManualTask>`` over a returned file: ``Completed="true"``; a manual task whose
  files of this target are all completed: ``Status="Completed" PercentComplete="100"`` and ``CompletedAt``;
* each returned file's ``<LanguageFile>`` ``<ConfirmationStatistics>`` (one ``CountData`` per confirmation
  level -- ``Unspecified``, ``Draft``, ``Translated``, ``RejectedTranslation``, ``ApprovedTranslation``,
  ``RejectedSignOff``, ``ApprovedSignOff`` -- with ``Words Characters Segments Placeables Tags``) recounted
  from the returned SDLXLIFF: ``Segments`` exactly, by each segment's ``sdl:seg conf``; the file's received
  totals of the other counts (Trados' own tokenizer's) shared out over the levels by this module's
  estimate of each segment's words, characters and tags, so each total stays Trados'.  The target's
  ``<LanguageDirection>`` statistics move by the same differences.

Every other byte of the project file is as the agency wrote it (TMs, termbases, settings, automatic tasks,
analysis statistics).
"""
from __future__ import annotations

import posixpath
import re
from datetime import datetime, timezone
from xml.sax.saxutils import escape

from lxml import etree

from engine.errors import FormatError
from engine.formats import xmlsafe
from engine.identity import user_name
from engine.packages.trados import SdlProject

LEVELS = ("Unspecified", "Draft", "Translated", "RejectedTranslation", "ApprovedTranslation", "RejectedSignOff",
          "ApprovedSignOff")
COUNTS = ("Words", "Characters", "Segments", "Placeables", "Tags")
_X = "{urn:oasis:names:tc:xliff:document:1.2}"
_S = "{http://sdl.com/FileTypes/SdlXliff/1.0}"
_INLINE = {"g", "x", "bx", "ex", "ph", "bpt", "ept", "it"}
_WORD = re.compile(r"\w+(?:['’.,-]\w+)*")
_ATTR = r'(\s{name}\s*=\s*")([^"]*)(")'

Counts = dict[str, dict[str, int]]   # level -> count name -> number


def _set_attr(tag: str, name: str, value: str) -> str:
    """``tag`` (a start tag's text) with attribute ``name`` set (spliced, or added before ``>``)."""
    pat = re.compile(_ATTR.format(name=name))
    value = escape(value, {'"': "&quot;"})
    if pat.search(tag):
        return pat.sub(lambda m: m.group(1) + value + m.group(3), tag, count=1)
    end = len(tag) - (2 if tag.endswith("/>") else 1)
    return f'{tag[:end]} {name}="{value}"{tag[end:]}'


def _attr(tag: str, name: str) -> str | None:
    m = re.search(_ATTR.format(name=name), tag)
    return m.group(2) if m else None


def _element(name: str, where: str | None = None) -> re.Pattern:
    """A (non-nesting) element ``name`` whose start tag has ``where`` (an attribute="value" text)."""
    cond = rf'(?=[^>]*\s{where})' if where else ""
    return re.compile(rf"<{name}\b{cond}[^>]*?(?:/>|>.*?</{name}>)", re.S)


def segment_estimates(name: str, data: bytes) -> list[tuple[str, int, int, int]]:
    """(confirmation level, words, characters, tags) of each segment of the SDLXLIFF ``data``: the level
    by its ``sdl:seg conf`` (none: ``Unspecified``), the rest estimated from its source text."""
    try:
        root = etree.fromstring(data, xmlsafe.safe_parser())
    except etree.XMLSyntaxError as e:
        raise FormatError(name, f"not well-formed XML: {e.msg}", f"line {e.lineno}") from None
    out = []
    for unit in root.iter(f"{_X}trans-unit"):
        defs = {s.get("id"): s for s in unit.iterfind(f"{_S}seg-defs/{_S}seg")}
        for mrk in unit.iterfind(f"{_X}seg-source//{_X}mrk[@mtype='seg']"):
            seg = defs.get(mrk.get("mid"))
            conf = seg.get("conf", "") if seg is not None else ""
            text = "".join(mrk.itertext())
            tags = sum(1 for el in mrk.iter() if el is not mrk and etree.QName(el).localname in _INLINE)
            out.append((conf if conf in LEVELS else "Unspecified", len(_WORD.findall(text)),
                        len("".join(text.split())), tags))
    return out


def _share(total: int, weights: dict[str, int]) -> dict[str, int]:
    """``total`` shared over ``weights``' keys in proportion (largest remainders: the parts sum to it)."""
    wsum = sum(weights.values())
    if not wsum:
        return {k: 0 for k in weights}
    raw = {k: total * w / wsum for k, w in weights.items()}
    parts = {k: int(v) for k, v in raw.items()}
    for k in sorted(raw, key=lambda k: raw[k] - parts[k], reverse=True)[:total - sum(parts.values())]:
        parts[k] += 1
    return parts


def recount(received: Counts, segments: list[tuple[str, int, int, int]]) -> Counts:
    """The file's statistics after the return: segments counted by level, the received totals of the
    other counts shared out by the estimates (by segments where an estimate is all zero)."""
    est = {lv: [0, 0, 0, 0] for lv in LEVELS}   # segments, words, characters, tags
    for level, words, chars, tags in segments:
        for i, v in enumerate((1, words, chars, tags)):
            est[level][i] += v
    out: Counts = {lv: {"Segments": est[lv][0]} for lv in LEVELS}
    for name, idx in (("Words", 1), ("Characters", 2), ("Placeables", 1), ("Tags", 3)):
        weights = {lv: est[lv][idx] for lv in LEVELS}
        if not any(weights.values()):
            weights = {lv: est[lv][0] for lv in LEVELS}
        for lv, n in _share(sum(received.get(lv2, {}).get(name, 0) for lv2 in LEVELS), weights).items():
            out[lv][name] = n
    return out


def _read_stats(block: str) -> Counts:
    got: Counts = {}
    for m in re.finditer(r"<(\w+)\b([^>]*?)/>", block):
        if m.group(1) in LEVELS:
            got[m.group(1)] = {c: int(v) for c in COUNTS if (v := _attr(m.group(0), c) or "0").isdigit()}
    return got


def _write_stats(block: str, counts: Counts) -> str:
    """The ``<ConfirmationStatistics>`` element ``block`` with ``counts`` spliced in (a level it lacks and now
    has is added in the schema's order)."""
    have = {m.group(1): m for m in re.finditer(r"<(\w+)\b[^>]*?/>", block) if m.group(1) in LEVELS}
    out, pos = [], 0
    for i, lv in enumerate(LEVELS):
        m = have.get(lv)
        if m is not None:
            tag = m.group(0)
            for c in COUNTS:
                tag = _set_attr(tag, c, str(counts[lv].get(c, 0)))
            out.append(block[pos:m.start()] + tag)
            pos = m.end()
        elif any(counts[lv].values()):
            nxt = next((have[x].start() for x in LEVELS[i + 1:] if x in have), block.rindex("</"))
            out.append(block[pos:nxt] + f"<{lv} " + " ".join(f'{c}="{counts[lv].get(c, 0)}"' for c in COUNTS) + " />")
            pos = nxt
    out.append(block[pos:])
    return "".join(out)


def _restat(text: str, counts: Counts) -> str:
    """The first ``<ConfirmationStatistics>`` with children in ``text`` given ``counts``."""
    m = re.search(r"<ConfirmationStatistics\b[^>]*?>.*?</ConfirmationStatistics>", text, re.S)
    return text if m is None else text[:m.start()] + _write_stats(m.group(0), counts) + text[m.end():]


def _stats_of(text: str) -> Counts | None:
    m = re.search(r"<ConfirmationStatistics\b[^>]*?>.*?</ConfirmationStatistics>", text, re.S)
    return None if m is None else _read_stats(m.group(0))


def _sub_first(pattern: re.Pattern, text: str, fn) -> str:
    m = pattern.search(text)
    return text if m is None else text[:m.start()] + fn(m.group(0)) + text[m.end():]


def return_sdlproj(data: bytes, proj: SdlProject, target: str, returned: dict[str, bytes], *,
                   now: datetime | None = None) -> bytes:
    """The ``.sdlproj`` of a return package (see the module): ``returned`` maps each returned member name to
    its bytes."""
    bom = data.startswith(b"\xef\xbb\xbf")
    text = data.decode("utf-8-sig")
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%S.%f0Z")
    by_name = {posixpath.basename(m): m for m in returned}
    lang_files = proj.files.get(target, {})
    guids = {g: by_name[f] for g, f in lang_files.items() if f in by_name}
    m = re.search(r"<Project\b[^>]*>", text)
    if not m:
        raise FormatError(proj.member, "the .sdlproj has no <Project> start tag")
    start = _set_attr(m.group(0), "PackageType", "ReturnPackage")
    for name, value in (("PackageCreatedAt", stamp), ("PackageCreatedBy", user_name())):
        if _attr(start, name) is not None:
            start = _set_attr(start, name, value)
    text = text[:m.start()] + start + text[m.end():]
    delta: Counts = {lv: dict.fromkeys(COUNTS, 0) for lv in LEVELS}
    for guid, member in guids.items():
        def restat(block: str, member=member) -> str:
            before = _stats_of(block)
            if before is None:
                return block
            after = recount(before, segment_estimates(member, returned[member]))
            for lv in LEVELS:
                for c in COUNTS:
                    delta[lv][c] += after[lv].get(c, 0) - before.get(lv, {}).get(c, 0)
            return _restat(block, after)
        text = _sub_first(_element("LanguageFile", f'Guid="{re.escape(guid)}"'), text, restat)

    def restat_direction(block: str) -> str:
        before = _stats_of(block)
        if before is None or not any(any(v.values()) for v in delta.values()):
            return block
        return _restat(block, {lv: {c: max(0, before.get(lv, {}).get(c, 0) + delta[lv][c]) for c in COUNTS}
                               for lv in LEVELS})
    text = _sub_first(_element("LanguageDirection", f'TargetLanguageCode="{re.escape(target)}"'), text,
                      restat_direction)
    text = _element("ManualTask").sub(lambda t: _complete_task(t.group(0), set(guids), set(lang_files), stamp),
                                      text)
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def _complete_task(task: str, returned: set[str], of_target: set[str], stamp: str) -> str:
    """A ``<ManualTask>`` with its TaskFiles over ``returned`` files completed, and itself completed when
    every one of its TaskFiles of this target is."""
    done, todo = False, False

    def mark(m: re.Match) -> str:
        nonlocal done, todo
        tag, guid = m.group(0), _attr(m.group(0), "LanguageFileGuid")
        if guid in returned:
            done = True
            return _set_attr(tag, "Completed", "true")
        if guid in of_target and (_attr(tag, "Completed") or "").lower() != "true":
            todo = True
        return tag
    task = re.sub(r"<TaskFile\b[^>]*>", mark, task)
    if done and not todo:
        head = re.match(r"<ManualTask\b[^>]*>", task).group(0)
        new = _set_attr(_set_attr(head, "Status", "Completed"), "PercentComplete", "100")
        task = _set_attr(new, "CompletedAt", stamp) + task[len(head):]
    return task
