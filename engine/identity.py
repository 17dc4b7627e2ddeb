"""Who signs what the translator writes: TM units on confirm, TM edits, comments.

:func:`user_name` is the one default: ``$VERSO_USER`` when set, else the login name (the editor's
Settings ▸ Your name starts from it, and the ``verso`` command line signs with it).
"""
from __future__ import annotations

import getpass
import os

#: The environment variable that names the translator for the command line (and the editor's default).
ENV = "VERSO_USER"
#: The name used when the system gives none (no login name: a container without a passwd entry).
FALLBACK = "translator"


def user_name() -> str:
    """``$VERSO_USER``, else the login name, else "translator"."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return given
    try:
        return getpass.getuser() or FALLBACK
    except (KeyError, OSError):
        return FALLBACK


__all__ = ["ENV", "user_name"]
