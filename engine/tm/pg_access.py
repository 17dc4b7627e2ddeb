"""Who may do what with a shared TM: the server's refusals (a login, a missing
grant, a TM the role may not create) turned into one line naming the role and
the ``GRANT`` to ask for -- never "cannot be reached" when the server answered.
A mixin of :class:`engine.tm.pg.PgTranslationMemory`.
"""
from __future__ import annotations

import getpass
import os
import re

import psycopg

from engine.tm.model import TMOffline, TMReadOnly, TMRefused


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _offline(e: Exception, where: str) -> TMOffline:
    return TMOffline(f"{where}: the shared TM server cannot be reached ({_first_line(e)})")


# What a role needs, as (kind, object in the TM's schema, privilege): to read a TM, and to add to it.
_READ_GRANTS = (("schema", "", "USAGE"),) + tuple(("table", t, "SELECT") for t in ("meta", "units", "vocab", "pairs"))
_WRITE_GRANTS = (("table", "units", "INSERT"), ("table", "units", "UPDATE"), ("table", "vocab", "INSERT"),
                 ("table", "pairs", "INSERT"), ("sequence", "vocab_id", "USAGE"),
                 ("sequence", "units_id_seq", "USAGE"))
_MISSING = """SELECT current_user, current_database(), n.oid IS NOT NULL,
    n.oid IS NULL OR has_schema_privilege(n.oid, 'USAGE'),
    coalesce((SELECT array_agg(w.i ORDER BY w.i) FROM unnest(%(o)s::text[], %(p)s::text[]) WITH ORDINALITY w(obj, priv, i)
              JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = w.obj
              WHERE NOT CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(c.oid, w.priv)
                             ELSE has_table_privilege(c.oid, w.priv) END), '{}')
FROM (SELECT 1) one LEFT JOIN pg_namespace n ON n.nspname = %(s)s"""
# The server's words for a login it refused (it answered: not "cannot be reached"), and what Verso says.
_LOGIN_REFUSED = [
    (re.compile(r"password authentication failed", re.I),
     "wrong password for user {user} at {host} (the server refused it; libpq reads the password from ~/.pgpass, "
     "PGPASSWORD or a service file)"),
    (re.compile(r"no password supplied|password is required|password required", re.I),
     "no password for user {user} at {host}: the server asks for one (put it in ~/.pgpass, PGPASSWORD or a "
     "service file)"),
    (re.compile(r'role "[^"]*" does not exist'), "no role {user} on the server at {host}"),
    (re.compile(r'database "[^"]*" does not exist'), "no database {db} on the server at {host}"),
    (re.compile(r"permission denied for database"),
     "role {user} lacks CONNECT on database {db} -- ask the database's owner: GRANT CONNECT ON DATABASE {db} "
     "TO {user}"),
    (re.compile(r"pg_hba\.conf|authentication failed", re.I),
     "the server at {host} refuses user {user} from this computer ({detail})"),
]


def _ident(name: str) -> str:
    """A role or database name as SQL would need it in a GRANT."""
    return name if re.fullmatch(r"[a-z_][a-z0-9_$]*", name) else '"' + name.replace('"', '""') + '"'


class PgAccess:
    """Refusals of the server, named (see the module)."""

    def _mask(self, text: str) -> str:
        """``text`` with any password given in the URL masked (libpq does not quote it: this makes sure)."""
        for secret in self._secrets:
            if len(secret) >= 3:
                text = text.replace(secret, "***")
        return text

    def _login_refused(self, e: Exception, given: dict) -> TMRefused | None:
        """The server answered and refused the login (a wrong password, no such role...): what
        to say, naming user and host and never the password; None when it was not reached."""
        text = str(e)
        for pattern, say in _LOGIN_REFUSED:
            hit = pattern.search(text)
            if hit is None:
                continue
            line = next((ln for ln in text.splitlines() if pattern.search(ln)), text)
            user = (re.search(r'user "([^"]+)"', line) or re.search(r'role "([^"]+)"', line))
            host = re.search(r'server (?:at|on socket) "([^"]+)"', text)
            user_name = (user.group(1) if user else None) or given.get("user") or os.environ.get("PGUSER") \
                or getpass.getuser()
            host_name = (host.group(1) if host else None) or given.get("host") or os.environ.get("PGHOST") \
                or "localhost"
            db = given.get("dbname") or os.environ.get("PGDATABASE") or user_name
            detail = line.split("FATAL:", 1)[-1].strip()
            reason = say.format(user=user_name, host=host_name, db=db, detail=detail)
            return TMRefused(self.folder, self._mask(reason))
        return None

    def _missing(self, write: bool) -> tuple[str, str, bool, list[tuple[str, str, str]]]:
        """(current role, database, whether the TM's schema exists, the grants of
        :data:`_READ_GRANTS` -- and of :data:`_WRITE_GRANTS` when ``write`` -- it lacks).
        Asked by object id from the catalog, which any role may read: a name lookup
        would itself fail without USAGE on the schema."""
        needs = list(_READ_GRANTS[1:]) + (list(_WRITE_GRANTS) if write else [])
        row = self._c().execute(_MISSING, {"o": [n[1] for n in needs], "p": [n[2] for n in needs],
                                           "s": self.schema}).fetchone()
        user, db, exists, usage, lacking = row
        missing = ([] if usage else [_READ_GRANTS[0]]) + [needs[i - 1] for i in lacking]
        return user, db, bool(exists), missing

    def _grants_text(self, user: str, missing: list[tuple[str, str, str]]) -> str:
        """"role bob lacks X on Y -- ask the TM's owner: GRANT ..." for the ``missing`` grants."""
        s, who = self.schema, _ident(user)
        lacks, grants = [], []
        if any(k == "schema" for k, _, _ in missing):
            lacks.append(f"USAGE on schema {s}")
            grants.append(f"GRANT USAGE ON SCHEMA {s} TO {who}")
        tables: dict[str, list[str]] = {}
        for kind, obj, priv in missing:
            if kind == "table":
                tables.setdefault(obj, []).append(priv)
        by_privs: dict[tuple[str, ...], list[str]] = {}
        for obj, privs in tables.items():
            by_privs.setdefault(tuple(privs), []).append(f"{s}.{obj}")
        for privs, objs in by_privs.items():
            lacks.append(f"{', '.join(privs)} on {', '.join(objs)}")
            grants.append(f"GRANT {', '.join(privs)} ON {', '.join(objs)} TO {who}")
        seqs = [f"{s}.{obj}" for kind, obj, _ in missing if kind == "sequence"]
        if seqs:
            lacks.append(f"USAGE on sequence {', '.join(seqs)}")
            grants.append(f"GRANT USAGE ON SEQUENCE {', '.join(seqs)} TO {who}")
        return f"role {user} lacks {'; '.join(lacks)} -- ask the TM's owner: {'; '.join(grants)}"

    def _refused(self, e: Exception, write: bool = False) -> TMRefused:
        """The server refused a statement for lack of a privilege: which grant the role lacks."""
        try:
            user, _, _, missing = self._missing(write)
        except psycopg.Error:
            user, missing = "", []
        if not missing:  # not one of the grants Verso knows (a column grant, row security...)
            who = f"role {user}" if user else "this role"
            return TMRefused(self.folder, f"{who} is refused: {_first_line(e)} -- ask the TM's owner for access",
                             writes=write)
        writes_only = write and all(m in _WRITE_GRANTS for m in missing)
        return TMRefused(self.folder, self._grants_text(user, missing), writes=writes_only)

    def _no_create(self) -> TMRefused:
        user, db, _, _ = self._missing(False)
        return TMRefused(self.folder, f"no TM named {self.name!r} in this database, and role {user} may not create "
                                      f"one (it lacks CREATE on database {db}) -- ask the database's owner to create "
                                      f"it, or: GRANT CREATE ON DATABASE {_ident(db)} TO {_ident(user)}")

    def _read_only(self) -> TMReadOnly:
        try:
            user, _, _, missing = self._missing(True)
            why = f": {self._grants_text(user, missing)}" if missing else ""
        except psycopg.Error:
            why = ""
        return TMReadOnly(f"{self.folder}: this role may only read the TM{why}")
