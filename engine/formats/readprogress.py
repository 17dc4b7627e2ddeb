"""Segments read so far, for a progress line during a long import, at no cost to the readers.

Every reader appends to the ``segments`` list of the :class:`~engine.formats.base.ParsedDocument`
it makes (most as they go; TXT after splitting its paragraphs into sentences: until then the
count is 0 and the line says only how long); a document made in a thread that a :class:`Ticker` watches is registered on creation
(:func:`created`), and the ticker's own thread reads the lists' lengths every few seconds (a
``len`` under the GIL: the reader pays nothing per segment).  A reader that reports through a
callback instead would have meant a change in each of some thirty readers.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

#: seconds between two progress lines
EVERY = 3.0
_watched: dict[int, list] = {}   # thread id -> the ParsedDocuments made in it while watched


def created(doc) -> None:
    """Called by every ParsedDocument as it is made."""
    docs = _watched.get(threading.get_ident())
    if docs is not None:
        docs.append(doc)


class Ticker:
    """While open, calls ``say(segments read, seconds)`` every :data:`EVERY` seconds from a daemon
    thread, for the documents read in the thread that opened it."""

    def __init__(self, say: Callable[[int, float], None]):
        self.say = say
        self._docs: list = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="verso-read-progress", daemon=True)

    def read(self) -> int:
        """Segments of the document being read (a reader that reads the file twice to learn its
        declared languages starts a second document: the count starts again)."""
        docs = list(self._docs)
        return len(docs[-1].segments) if docs else 0

    def _run(self) -> None:
        t0 = time.monotonic()
        while not self._stop.wait(EVERY):
            self.say(self.read(), time.monotonic() - t0)

    def __enter__(self) -> "Ticker":
        self._owner = threading.get_ident()
        _watched[self._owner] = self._docs
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        _watched.pop(self._owner, None)
