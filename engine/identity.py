"""Who signs what the translator writes: TM units on confirm, TM edits, comments.

:func:`user_name` is the one default: the name the editor gave (:func:`use`: its Settings ▸ Your name,
so an export's PO Last-Translator and a tracked change are signed as in the editor), else
``$VERSO_USER`` when set, else the login name (the editor's Settings ▸ Your name starts from it, and
the ``verso`` command line signs with it).
"""
from __future__ import annotations

import getpass
import os

#: The environment variable that names the translator for the command line (and the editor's default).
ENV = "VERSO_USER"
#: The name used when the system gives none (no login name: a container without a passwd entry).
FALLBACK = "translator"
_given = ""


def use(name: str) -> None:
    """Sign with ``name`` from now on in this process ("" : back to the default)."""
    global _given
    _given = (name or "").strip()


def user_name() -> str:
    """The name :func:`use` gave, else ``$VERSO_USER``, else the login name, else "translator"."""
    if _given:
        return _given
    given = os.environ.get(ENV, "").strip()
    if given:
        return given
    try:
        return getpass.getuser() or FALLBACK
    except (KeyError, OSError):
        return FALLBACK


__all__ = ["ENV", "use", "user_name"]
