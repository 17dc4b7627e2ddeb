"""The typed values of the glossary API (no dicts cross it)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from engine.glossary.modes import DEFAULT_TERMS_MODE, TERMS_MODES  # noqa: F401 - the glossary API's

#: How a source term may be used (TBX ``administrativeStatus``: ``preferredTerm``,
#: ``admittedTerm``, ``deprecatedTerm``/``supersededTerm``).
Status = Literal["preferred", "admitted", "deprecated"]
STATUSES: tuple[str, ...] = ("preferred", "admitted", "deprecated")


@dataclass(frozen=True)
class GlossaryEntry:
    """One source term and how to translate it.

    ``targets``: the accepted target terms, the preferred one first.
    ``forbidden``: target-language variants a translator must not use.
    ``status``: of the source term (``preferred`` / ``admitted`` / ``deprecated``).
    ``concept``: the concept id of the file it came from (a TBX ``termEntry``
    id); the source terms of one concept are separate entries sharing it.
    ``inflect``: the target terms may be inflected (a plural, a case ending): in the machine
    suggestion, another form of a target term's last word (same stem) meets the entry too.
    ``id``: the row id once stored (None for an entry not stored yet).
    """

    source: str
    targets: tuple[str, ...]
    src_lang: str
    tgt_lang: str
    pos: str = ""
    note: str = ""
    forbidden: tuple[str, ...] = ()
    status: str = "preferred"
    concept: str = ""
    origin: str = ""
    inflect: bool = False
    id: int | None = field(default=None, compare=False)

    def with_id(self, id: int | None) -> "GlossaryEntry":
        return replace(self, id=id)

    @property
    def target(self) -> str:
        """The preferred target term ('' when the entry has none)."""
        return self.targets[0] if self.targets else ""


@dataclass(frozen=True)
class ImportResult:
    """What an import did: ``added`` new entries, ``updated`` entries it met
    again (same terms), ``skipped`` rows it could not use (each with a line
    in ``problems``)."""

    added: int
    updated: int
    skipped: int
    src_lang: str
    tgt_lang: str
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"added": self.added, "updated": self.updated, "skipped": self.skipped,
                "src_lang": self.src_lang, "tgt_lang": self.tgt_lang, "problems": list(self.problems)}


@dataclass(frozen=True)
class GlossaryFile:
    """The entries read from one file, the language pair they were read for,
    every language the file has, and the rows skipped (``problems``)."""

    entries: tuple[GlossaryEntry, ...]
    src_lang: str
    tgt_lang: str
    languages: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class TermHit:
    """``entry``'s source term found at ``text[start:end]``."""

    start: int
    end: int
    entry: GlossaryEntry


TermProblemKind = Literal["term_not_used", "forbidden_term"]


@dataclass(frozen=True)
class TermProblem:
    """A terminology finding for QA.

    ``term_not_used``: ``entry``'s source term is at ``source_start:source_end``
    but none of its target terms is in the target (``target_start`` /
    ``target_end`` are None).  ``forbidden_term``: ``term`` (a forbidden variant
    of ``entry``) is in the target at ``target_start:target_end``.
    """

    kind: str
    entry: GlossaryEntry
    source_start: int
    source_end: int
    term: str = ""
    target_start: int | None = None
    target_end: int | None = None

    @property
    def message(self) -> str:
        if self.kind == "forbidden_term":
            return (f'forbidden term "{self.term}" used for "{self.entry.source}"'
                    + (f' (use "{self.entry.target}")' if self.entry.targets else ""))
        wanted = " / ".join(f'"{t}"' for t in self.entry.targets)
        return f'term "{self.entry.source}" not translated as {wanted}'
