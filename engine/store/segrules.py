"""A project's own sentence rules: a translator's SRX file kept in the project folder.

``verso seg import-srx FILE --project DIR`` checks the file strictly (:func:`engine.segmentation.srx.parse_srx`:
one line naming file and line when it is malformed), keeps a copy as ``DIR/segmentation/<sha256[:16]>.srx``
and makes it the project's rules (setting ``segmentation_srx``).  Documents imported from then on are
segmented with it, and each remembers the copy it was segmented with (document meta ``segmentation_srx``,
``""`` for Verso's default rules): a writer segments the original again to put translations in place by
their keys, so an export uses the rules the import used even after the project's rules changed -- and
pysbd's breaks for a document imported before the rules were SRX.  No setting: Verso's default rules.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from engine.errors import FormatError, ProjectError
from engine.fsutil import atomic_write
from engine.segmentation import PYSBD, using_rules
from engine.segmentation.srx import SRX, parse_srx

SETTING = "segmentation_srx"
FOLDER = "segmentation"


def import_srx(project, path: str | Path) -> SRX:
    """Make the SRX file ``path`` the project's sentence rules (refused, changing nothing, when malformed)."""
    path = Path(path)
    parse_srx(path)
    data = path.read_bytes()
    name = f"{FOLDER}/{hashlib.sha256(data).hexdigest()[:16]}.srx"
    kept = project.folder / name
    kept.parent.mkdir(exist_ok=True)
    if not kept.exists():
        with atomic_write(kept, "wb") as fh:
            fh.write(data)
    project.set_setting(SETTING, name)
    return parse_srx(kept)


def reset(project) -> None:
    """Back to Verso's default rules for the documents imported from now on."""
    project.set_setting(SETTING, "")


def _load(project, name: str) -> SRX | None:
    if not name:
        return None
    kept = project.folder / name
    if Path(name).is_absolute() or ".." in Path(name).parts or not kept.is_file():
        raise ProjectError(f"{project.folder}: the sentence rules {name!r} the project names are missing; "
                           "import them again (verso seg import-srx FILE) or go back to the default rules "
                           "(verso seg reset)")
    try:
        return parse_srx(kept)
    except FormatError as e:
        raise ProjectError(str(e)) from None


def project_rules(project) -> SRX | None:
    """The project's own rules, None for Verso's default rules."""
    return _load(project, project.setting(SETTING, "") or "")


def document_rules(project, meta: dict) -> SRX | str | None:
    """The rules a document was segmented with (its meta ``segmentation_srx``: a file of the project,
    ``""`` for the default rules); a document imported before the rules were SRX has no such key and
    was segmented by pysbd (:data:`engine.segmentation.PYSBD`)."""
    if SETTING not in meta:
        return PYSBD
    return _load(project, str(meta.get(SETTING) or ""))


def rules_name(project) -> str:
    """What goes into a new document's meta: the project's rules file ("" for the default rules)."""
    return project.setting(SETTING, "") or ""


@contextmanager
def importing(project) -> Iterator[str]:
    """Segment with the project's rules inside the block; gives the name to keep in the document's meta."""
    with using_rules(project_rules(project)):
        yield rules_name(project)


def read_document(project, path, **kw):
    """:func:`engine.formats.read_document` with the project's rules; their file kept in the document's meta."""
    from engine.formats import read_document as read

    with importing(project) as rules_file:
        doc = read(path, **kw)
    if rules_file:  # the export segments the original again: with these rules
        doc.meta[SETTING] = rules_file
    return doc


@contextmanager
def exporting(project, meta: dict) -> Iterator[None]:
    """Segment with the rules the document was imported with inside the block."""
    with using_rules(document_rules(project, meta)):
        yield
