"""Agency packages: a Trados project package (``.sdlppx``) or a memoQ handoff package (``.mqout``)
or zipped document (``.mqxlz``) opened as a Verso project, and its return package (``.sdlrpx``,
``.mqback``, ``.mqxlz``) written from it.  Headless; no torch.

Opening (:func:`open_package`): the package passes the zip guard every zipped format passes
(:class:`engine.formats.package.Package`: bombs, ``../`` members, too many members refused in one
line); every bilingual file of the target language becomes a document, read by today's
SDLXLIFF/MQXLIFF reader (so an untouched file exports byte for byte); the package's TMs
(``.sdltm``, ``.tmx``) are imported into TMs inside the project and attached read-only, its TBX
termbases become glossaries; files of other target languages are listed and skipped; the
instructions and due date are kept (project setting ``package``) and returned to show.  The
received package is kept in ``PROJECT/package/``.

Returning (:func:`return_package`): only the files worked on, exported through the project's export
gate, under their received names; each returned SDLXLIFF checked against what Trados' reader needs
(:mod:`engine.packages.sdlxliffcheck`); Trados' project file marked as returned, its returned files'
tasks completed and statistics recounted (:mod:`engine.packages.trados_return`); never the agency's
TMs or untouched files.
"""
from engine.packages.opening import (KINDS, Opened, PackageRecord, ReceivedDocument, ReceivedFile, ReceivedGlossary,
                                     ReceivedTM, kind_of, open_package, package_record)
from engine.packages.returning import Returned, return_package

__all__ = ["KINDS", "Opened", "PackageRecord", "ReceivedDocument", "ReceivedFile", "ReceivedGlossary", "ReceivedTM",
           "Returned", "kind_of", "open_package", "package_record", "return_package"]
