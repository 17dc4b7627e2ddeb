"""Credentials out of connection strings before they are stored, logged or shown.

A shared TM is named by a ``postgresql://`` URL, and a URL may carry a
password in two places: ``user:password@host`` and the query
(``?password=...``, and libpq's other secret parameters).  Whatever Verso
writes to a file a team shares (``training.json``, a run's files, events,
logs) or puts on the screen goes through :func:`strip_credentials`; the
password itself belongs in libpq's ``~/.pgpass`` or ``PGPASSWORD``.
"""
from __future__ import annotations

import re
from urllib.parse import unquote_plus

#: libpq connection parameters whose value is a secret (PostgreSQL 18 adds the OAuth client secret)
SECRET_PARAMS = frozenset({"password", "sslpassword", "oauth_client_secret"})
# a key of another client's dialect (pass, passwd, api_token, secret_key ...) is treated as a secret too
_SECRETISH = re.compile(r"pass|secret|token", re.IGNORECASE)
# key=value pairs of a libpq keyword/value string; a value may be quoted with '' and \' inside
_CONNINFO_PAIR = re.compile(r"(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)")


#: libpq parameters that match the pattern but name no secret (``passfile`` is the path of one)
NOT_SECRET = frozenset({"passfile"})


def is_secret_key(key: str) -> bool:
    key = key.strip().lower()
    return key not in NOT_SECRET and (key in SECRET_PARAMS or bool(_SECRETISH.search(key)))


def _strip_query(query: str) -> str:
    kept = [part for part in query.split("&")
            if part and not ("=" in part and is_secret_key(unquote_plus(part.split("=", 1)[0])))]
    return "&".join(kept)


def _strip_conninfo(text: str) -> str:
    return _CONNINFO_PAIR.sub(lambda m: "" if is_secret_key(m.group(2)) else m.group(0), text).strip()


def strip_credentials(text: str) -> str:
    """``text`` without any password it carries.

    * ``scheme://user:password@host/...`` keeps ``user@``; the password goes;
    * a query (``?a=1&password=x``) or a bare query string (``tm=x&password=y``, as
      older training records hold) loses its secret parameters, the others stay as written;
    * a libpq keyword/value string (``host=h password=x``) loses its secret keywords.

    Anything else (a folder, a file name) comes back unchanged.  Parsing is by
    hand rather than with :func:`urllib.parse.urlsplit`, which refuses some
    malformed URLs -- an unparsable URL must lose its password too.
    """
    if not isinstance(text, str) or "=" not in text and "@" not in text:
        return text
    if "://" in text:
        scheme, _, rest = text.partition("://")
        rest, hash_, fragment = rest.partition("#")
        rest, q, query = rest.partition("?")
        authority, slash, path = rest.partition("/")
        userinfo, at, hosts = authority.rpartition("@")
        if at:
            user = userinfo.split(":", 1)[0]
            authority = f"{user}@{hosts}" if user else hosts
        query = _strip_query(query) if q else ""
        return (f"{scheme}://{authority}{slash}{path}" + (f"?{query}" if query else "")
                + (f"#{fragment}" if hash_ else ""))
    if "&" in text or re.fullmatch(r"[^=\s&]+=[^\s&]*", text):
        return _strip_query(text)
    if _CONNINFO_PAIR.match(text):
        return _strip_conninfo(text)
    return text


def strip_in(obj):
    """A copy of a JSON-like value with :func:`strip_credentials` applied to every string in it."""
    if isinstance(obj, str):
        return strip_credentials(obj)
    if isinstance(obj, dict):
        return {k: strip_in(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strip_in(v) for v in obj]
    return obj


__all__ = ["SECRET_PARAMS", "is_secret_key", "strip_credentials", "strip_in"]


#: The environment variable through which a detached run gets the arguments whose
#: credentials were kept off its command line (``/proc/PID/cmdline`` is world-readable,
#: ``/proc/PID/environ`` only its owner's).
SECRET_ARGS_ENV = "VERSO_SECRET_ARGS"


def argv_without_secrets(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """``args`` with credentials stripped, and the environment that gives them back to
    the child (:func:`restore_secret_args`)."""
    import json

    clean, secret = [], {}
    for a in args:
        s = strip_credentials(a)
        if s != a:
            secret[s] = a
        clean.append(s)
    return clean, ({SECRET_ARGS_ENV: json.dumps(secret)} if secret else {})


def restore_secret_args(argv: list[str], environ) -> list[str]:
    """The arguments a parent stripped, as it had them (the variable is removed from ``environ``)."""
    import json

    raw = environ.pop(SECRET_ARGS_ENV, None)
    if not raw:
        return argv
    try:
        secret = json.loads(raw)
    except ValueError:
        return argv
    if not isinstance(secret, dict):
        return argv
    return [secret.get(a, a) if isinstance(secret.get(a, a), str) else a for a in argv]
