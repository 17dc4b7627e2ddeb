"""Whoosh's compound segment files read in place from the map.

Whoosh opens each file of a compound segment (a column, the postings) as a ``BufferFile`` over a
memoryview of the segment's map, and its constructor makes a ``BytesIO`` of it: a copy of the whole
file.  The TM's columns are read through ``get``/``get_array`` (slices of the memoryview) and the
search's own views (:class:`engine.tm.whoosh_index.LeafView`), so the copy is rarely read: the first
search of a 752k TM spent 77 ms of 169 copying two 35 MB column files, the interpreter lock held
(other threads -- the editor's UI -- stopped for that long).  Here the ``BytesIO`` is made only when
something reads the file sequentially.
"""
from __future__ import annotations

import threading
from io import BytesIO

from whoosh.filedb import compound
from whoosh.filedb.structfile import BufferFile


_MAKING = threading.Lock()  # two threads reading one file must get one copy (as Whoosh's own one)


class LazyBufferFile(BufferFile):
    """A ``BufferFile`` whose sequential file (a copy) is made on first use."""

    def __init__(self, buf, name=None, onclose=None):
        self._buf, self._name, self.onclose = buf, name, onclose
        self.is_real = self.is_closed = False
        self._file = None

    @property
    def file(self):
        if self._file is None:
            with _MAKING:
                if self._file is None:
                    self._file = BytesIO(self._buf)
        return self._file

    @file.setter
    def file(self, value):
        self._file = value

    def close(self):
        if self._file is None:  # nothing to close but the caller's hook
            if self.is_closed:
                raise Exception("This file is already closed")
            if self.onclose:
                self.onclose(self)
            self.is_closed = True
            return
        super().close()


def install() -> None:
    """Make compound segments open their files as :class:`LazyBufferFile` (idempotent)."""
    compound.BufferFile = LazyBufferFile
