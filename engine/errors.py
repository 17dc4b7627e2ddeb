"""Named errors.  Every error a user can cause says which file and where.

The CLI prints ``str(error)`` on stderr and exits non-zero; it never shows a
traceback for a :class:`VersoError`.
"""
from __future__ import annotations

from pathlib import Path


class VersoError(Exception):
    """Base class of every error Verso raises on purpose."""


class FormatError(VersoError):
    """A file could not be read (or written) in the format it claims.

    ``location`` is human-readable: ``"line 12"``, ``"unit 'u17'"``, ``"byte 4096"``.
    """

    def __init__(self, path: str | Path | None, message: str, location: str | None = None):
        self.path = str(path) if path is not None else None
        self.location = location
        self.message = message
        where = self.path or "<input>"
        if location:
            where = f"{where}, {location}"
        super().__init__(f"{where}: {message}")


class UnsafeXMLError(FormatError):
    """XML that asks for entity expansion, external entities or a DTD fetch."""


class UnsupportedFormatError(FormatError):
    """No reader knows this file."""


class ProjectError(VersoError):
    """A project folder is missing, locked, corrupt or of a newer schema."""


class TMError(VersoError):
    """A translation memory folder is missing, corrupt or used wrongly."""


class ModelError(VersoError):
    """A model folder is missing a file, has a corrupt one, or a wrong config."""


class ConfigError(VersoError):
    """A config has unknown keys or values of the wrong type."""


class TagErrorsError(ProjectError):
    """An export refused because targets have tag errors (``issues``: the :class:`engine.qa.Issue` list)."""

    def __init__(self, document: str, issues: list):
        self.document = document
        self.issues = issues
        segs = sorted({i.idx + 1 for i in issues})
        shown = ", ".join(str(n) for n in segs[:10]) + (" ..." if len(segs) > 10 else "")
        super().__init__(f"{document}: not exported: tag errors in {len(segs)} segment(s) ({shown}); "
                         f"fix them or export with --force")
