"""The second wall around Whoosh's pickles: every unpickling Whoosh does goes
through an unpickler that admits only the few classes a Verso index holds.

Whoosh stores its table of contents (the segment list), its compound-file
directory and every posting block as pickles, and calls :func:`pickle.loads`
on them as it reads -- an index folder received from someone else could run
their code on the first search.  The first wall is the keyed seal
(:mod:`engine.tm.seal`): an index file is not read unless this installation
wrote it.  This module is the second: :func:`install` replaces each pickle
entry point Whoosh's modules imported (``pickle.loads``/``load`` under their
local names) with :func:`restricted_loads`/:func:`restricted_load`, whose
``find_class`` refuses anything outside :data:`ALLOWED`.  The schema is never
unpickled at all: the index is opened with :func:`engine.tm.whoosh_index.make_schema`.

:data:`ALLOWED` is what a Verso index's pickles name, read off real indexes
(built, appended to, deleted from, optimised): the segment and codec classes
and two builtins; posting blocks and compound directories name no class.
"""
from __future__ import annotations

import importlib
import io
import pickle
import types

#: (module, name) pairs a Verso index's pickles may name; nothing else is looked up.
ALLOWED = frozenset({
    ("whoosh.codec.whoosh3", "W3Segment"),
    ("whoosh.codec.whoosh3", "W3Codec"),
    ("collections", "defaultdict"),
    ("builtins", "int"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
})

#: Whoosh modules that hold one of pickle's readers (read off Whoosh-Reloaded 2.7.5);
#: :func:`install` imports them so it can replace what they hold.
_HOLDERS = ("whoosh.compat", "whoosh.index", "whoosh.filedb.fileindex", "whoosh.filedb.structfile",
            "whoosh.filedb.compound", "whoosh.columns", "whoosh.formats", "whoosh.externalsort",
            "whoosh.codec.whoosh3", "whoosh.codec.plaintext", "whoosh.multiproc",
            "whoosh.util.loading", "whoosh.legacy")


#: Whoosh modules that unpickle only files this process has just written for itself, never
#: an index file: the external sort of a large index build spills its runs to private
#: temporary files (``mkstemp``, 0600) and reads them back within the same build; they
#: hold posting tuples pickled with protocol 2, whose bytes name ``_codecs.encode`` (a
#: 100,000-unit build broke on it when this module was restricted too).
OWN_TEMP_FILES = frozenset({"whoosh.externalsort"})


class UnsafePickle(pickle.UnpicklingError):
    """A pickle in an index named a class Verso's indexes never hold."""


def _find_allowed(self, module: str, name: str):
    if (module, name) not in ALLOWED:
        raise UnsafePickle(f"index data names {module}.{name}, which a Verso index never holds")
    return pickle.Unpickler.find_class(self, module, name)


class _Restricted(pickle.Unpickler):
    find_class = _find_allowed


def restricted_load(file, *args, **kwargs):
    return _Restricted(file).load()


def restricted_loads(data, *args, **kwargs):
    # Buffered: on a bare BytesIO the C unpickler calls read() once per opcode of an unframed
    # (protocol 2) pickle, as Whoosh writes posting blocks -- 166 us a 1,024-posting block
    # against 38 us buffered (pickle.loads: 21-37 us), 13 % of a 752k TM's search.
    return _Restricted(io.BufferedReader(io.BytesIO(data))).load()


def _pickle_module_shim() -> types.ModuleType:
    """``pickle`` as Whoosh's TOC code sees it: writing as usual, reading restricted."""
    shim = types.ModuleType("pickle")
    shim.__dict__.update({k: getattr(pickle, k) for k in dir(pickle) if not k.startswith("__")})
    shim.load, shim.loads, shim.Unpickler = restricted_load, restricted_loads, _Restricted
    return shim


def install() -> None:
    """Route every unpickling in Whoosh through the restricted unpickler.

    Each loaded Whoosh module's reference to ``pickle``, ``pickle.load``,
    ``pickle.loads`` or ``pickle.Unpickler`` is replaced; the TOC loaders of
    Whoosh's older index formats (which unpickle with a renaming unpickler) are
    dropped: Verso never wrote those formats.  Cheap and idempotent."""
    import sys

    for modname in _HOLDERS:
        try:
            importlib.import_module(modname)
        except ImportError:  # a Whoosh module that needs what is not installed
            continue
    shim = _pickle_module_shim()
    swap = {id(pickle): shim, id(pickle.load): restricted_load, id(pickle.loads): restricted_loads,
            id(pickle.Unpickler): _Restricted}
    for modname, mod in list(sys.modules.items()):
        if mod is None or not (modname == "whoosh" or modname.startswith("whoosh.")) or modname in OWN_TEMP_FILES:
            continue
        for name, value in list(vars(mod).items()):
            new = swap.get(id(value))
            if new is not None:
                setattr(mod, name, new)
    for modname in OWN_TEMP_FILES:  # bound at import, before or after the patch: always pickle's own
        mod = sys.modules.get(modname)
        if mod is not None:
            mod.load = pickle.load
    loading = sys.modules.get("whoosh.util.loading")
    if loading is not None:
        loading.RenamingUnpickler.find_class = _find_allowed
    index = sys.modules.get("whoosh.index")
    if index is not None:
        index.toc_loaders.clear()


def unrestricted_entry_points() -> list[str]:
    """``module.name`` of every loaded Whoosh module attribute that still is
    one of pickle's own readers (what :func:`install` must leave empty)."""
    import sys

    raw = {id(pickle.load), id(pickle.loads), id(pickle.Unpickler), id(pickle._Unpickler),
           id(pickle._load), id(pickle._loads), id(pickle)}
    out = []
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith("whoosh") or mod is None or modname in OWN_TEMP_FILES:
            continue
        for name, value in list(vars(mod).items()):
            if id(value) in raw:
                out.append(f"{modname}.{name}")
    return out


__all__ = ["install", "restricted_load", "restricted_loads", "UnsafePickle", "ALLOWED",
           "unrestricted_entry_points"]
