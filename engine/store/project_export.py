"""A project's documents written back in their formats, translated (:mod:`engine.store.project`)."""
from __future__ import annotations

import os
from pathlib import Path

from engine.errors import ProjectError, TagErrorsError
from engine.formats.base import Translation
from engine.langs import normalize_lang

EXPORTS = "exports"


class ProjectExport:
    """The export part of :class:`engine.store.project.Project` (its ``folder``, ``_conn``,
    ``document`` and ``segments``)."""

    def translations(self, document_id: int) -> dict[str, Translation]:
        """Targets by key for a document's writer.

        Left out: segments without a target, and segments nobody has touched since the
        import (``updated_at`` still its ``created_at``), so the writer leaves their units
        byte for byte as the original had them -- an untouched file exports unchanged.
        The pieces of a split segment share its key: the writer gets them as one target
        (:func:`engine.store.splitjoin.translations`), so the paragraph is rebuilt whole.
        """
        from engine.store.splitjoin import translations

        return translations(self._conn, document_id)

    def tag_errors(self, document_id: int) -> list:
        """The tag errors (:func:`engine.qa.tag_issues`) of the targets written or confirmed in
        Verso (what export refuses); a target as the file brought it is not checked here
        (:attr:`Segment.as_received`: the QA reports it as a warning)."""
        from engine.qa import tag_issues

        return [i for s in self.segments(document_id) if s.target.text and not s.as_received
                for i in tag_issues(s.id, s.idx, s.source, s.target)]

    def default_export_path(self, ref: int | str) -> Path:
        """Where a document's translation goes unless the user says otherwise: the project's
        ``exports/`` folder, the original's name with the target language before its
        extension (``guide.xlf`` -> ``exports/guide.de.xlf``; ``guide.en.po`` -> ``guide.de.po``)."""
        info = self.document(ref)
        name = Path(info.name).name
        stem, dot, ext = name.rpartition(".")
        if not dot:
            stem, ext = name, ""
        base, dot2, last = stem.rpartition(".")
        if dot2 and base and normalize_lang(last) and (
                normalize_lang(last) == normalize_lang(info.src_lang)
                or normalize_lang(last).split("-")[0] == normalize_lang(info.src_lang).split("-")[0]):
            stem = base
        return self.folder / EXPORTS / (f"{stem}.{info.tgt_lang}" + (f".{ext}" if ext else ""))

    def export_document(self, ref: int | str, out: str | Path, *, force: bool = False) -> Path:
        """Write the document, translated, in its original format.

        Refused (:class:`~engine.errors.TagErrorsError`, naming the segments) while a target
        has tag errors, unless ``force``: a broken tag breaks the client's file.  Never
        writes over the file the document was imported from.  Open comments go into the file
        where its format keeps comments (:func:`engine.store.comments.write_with_comments`).
        """
        from engine.store.comments import write_with_comments

        info = self.document(ref)
        if not force:
            errors = self.tag_errors(info.id)
            if errors:
                raise TagErrorsError(info.name, errors)
        imported = info.meta.get("imported_from")
        if imported and _same_file(Path(out), Path(imported)):
            raise ProjectError(f"{out}: this is the file {info.name!r} was imported from; "
                               "export to another file")
        original = self.folder / info.original
        if not original.exists():
            raise ProjectError(f"{self.folder}: the kept original of {info.name!r} is missing ({original})")
        write_with_comments(self, info, original, Path(out), self.translations(info.id))
        return Path(out)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False
