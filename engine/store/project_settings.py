"""A project's settings: its name and languages, the TMs and glossaries it lists, its QA checks
and dictionary (the ``project`` table of :mod:`engine.store.project`)."""
from __future__ import annotations

import json
from pathlib import Path

from engine.store import trusted
from engine.store.records import TMRef

TMS_SETTING = "tms"
GLOSSARIES_SETTING, GLOSSARY_TRUST_FLAG = "glossaries", "--trust-project-glossaries"
DICTIONARY = "dictionary.txt"


class ProjectSettings:
    """The settings part of :class:`engine.store.project.Project` (its ``folder``, ``_conn``, ``_tx``)."""

    def setting(self, key: str, default: str | None = None) -> str | None:
        row = self._conn.execute("SELECT value FROM project WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._tx():
            self._conn.execute("INSERT OR REPLACE INTO project (key, value) VALUES (?, ?)", (key, value))

    @property
    def tm_key(self) -> str:
        """What a TM unit confirmed in this project is stamped with (meta ``project``), so the
        statistics can tell the project's own work from matches that were there before.
        The project's name and a random id made once: a shared TM shows it to the whole team,
        so never the folder's path; the id tells two projects of one name apart and stays
        when the folder moves."""
        key = self.setting("tm_key")
        if not key:
            import secrets

            key = f"{self.name}#{secrets.token_hex(4)}"
            self.set_setting("tm_key", key)
        return key

    def qa_options(self):
        """The QA checks this project runs (:class:`engine.qa.QAOptions`)."""
        from engine.qa import QAOptions

        return QAOptions.from_setting(self.setting(QAOptions.SETTING))

    def set_qa_options(self, options) -> None:
        self.set_setting(options.SETTING, options.to_setting())

    def dictionary_path(self) -> Path:
        """The project dictionary: words spelling must accept, one a line (UTF-8)."""
        return self.folder / DICTIONARY

    def spell_checker(self, *, process: bool = False):
        """A :class:`engine.spelling.SpellChecker` for the target language with the project
        dictionary's words, or None when no hunspell dictionary for it is installed.  ``process``:
        asked of a shared spelling process (the editor; ``close()`` gives it back)."""
        return self.spell_checker_builder(process=process)()

    def spell_checker_builder(self, *, process: bool = False):
        """What :meth:`spell_checker` does, with the project read now: a background job calls it
        without touching the project, which the editor may close meanwhile."""
        lang, dictionary = self.tgt_lang, self.dictionary_path()

        def build():
            from engine.spelling import ProjectDictionary, SpellChecker

            return SpellChecker.for_language(lang, ProjectDictionary(dictionary).words(), process=process)
        return build

    def glossary_refs(self, *, outside: str = "skip") -> list[TMRef]:
        """The glossaries, highest priority first, as ``tms``; one outside: :func:`trusted.guarded`."""
        return trusted.guarded(self.folder, GLOSSARIES_SETTING, self._refs(GLOSSARIES_SETTING), outside,
                               GLOSSARY_TRUST_FLAG)

    def add_glossary_ref(self, path: str | Path, *, writable: bool = False) -> TMRef:
        """List a glossary in the project: a writable one goes first (highest priority)."""
        return trusted.added(self.folder, path, self._add_ref(GLOSSARIES_SETTING, path, writable, first=writable))

    def term_index(self, *, outside: str = "skip"):
        """One :class:`engine.glossary.TermIndex` over every glossary of the project (entries of
        higher-priority glossaries first), or None when the project has none."""
        from engine.glossary import load_term_index

        return load_term_index([r.path for r in self.glossary_refs(outside=outside)], self.src_lang)

    def _refs(self, key: str) -> list[TMRef]:
        raw = self.setting(key, "") or ""
        try:
            items = json.loads(raw) if raw else []
        except ValueError:
            items = []
        out = []
        for i in items if isinstance(items, list) else []:
            if isinstance(i, dict) and isinstance(i.get("path"), str) and i["path"]:
                p = Path(i["path"])
                out.append(TMRef(p if p.is_absolute() else self.folder / p, bool(i.get("writable")), p.name))
        return out

    def _add_ref(self, key: str, path: str | Path, writable: bool, first: bool = False) -> TMRef:
        raw = self.setting(key, "") or ""
        try:
            items = [i for i in (json.loads(raw) if raw else []) if isinstance(i, dict)]
        except ValueError:
            items = []
        item = {"path": str(path), "writable": writable}
        items = [item] + items if first else items + [item]
        self.set_setting(key, json.dumps(items))
        p = Path(path)
        return TMRef(p if p.is_absolute() else self.folder / p, writable, p.name)

    def tm_refs(self) -> list[TMRef]:
        """The project's TMs, in the order they are searched."""
        return self._refs(TMS_SETTING)

    def add_tm_ref(self, path: str | Path, *, writable: bool = False) -> TMRef:
        """List a TM in the project (relative paths are relative to the project folder).  A
        shared TM's URL is stored without credentials: libpq finds the password in
        ``~/.pgpass``, ``PGPASSWORD`` or a service file, never in the project."""
        if isinstance(path, str) and "://" in path:
            from engine.urls import strip_credentials

            path = strip_credentials(path)
        return trusted.added(self.folder, path, self._add_ref(TMS_SETTING, path, writable))

    @property
    def name(self) -> str:
        return self.setting("name", self.folder.name) or self.folder.name

    @property
    def src_lang(self) -> str:
        return self.setting("src_lang", "") or ""

    @property
    def tgt_lang(self) -> str:
        return self.setting("tgt_lang", "") or ""
