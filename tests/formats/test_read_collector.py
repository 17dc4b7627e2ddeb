"""Reading a document makes the garbage collector run less often (engine/formats/__init__.py) and
puts it back as it was afterwards, also when the file is refused and when readers overlap."""
from __future__ import annotations

import gc
import threading

import pytest

from engine.errors import FormatError
from engine.formats import read_declared, read_document


def test_reading_leaves_the_collector_as_it_was(tmp_path):
    before = gc.get_threshold()
    ok = tmp_path / "a.txt"
    ok.write_text("One sentence. Another one.\n", encoding="utf-8")
    assert [s.source.text for s in read_document(ok, src_lang="en").segments] == ["One sentence.", "Another one."]
    read_declared(ok, src_lang="en", tgt_lang="de")
    bad = tmp_path / "b.docx"
    bad.write_bytes(b"PK\x03\x04 not a zip after all")
    with pytest.raises(FormatError):
        read_document(bad, src_lang="en")
    assert gc.get_threshold() == before


def test_overlapping_readers_restore_the_collector(tmp_path, monkeypatch):
    """The first reader in finishes first, the second last: the threshold is still put back."""
    import engine.formats as formats_pkg

    before = gc.get_threshold()
    path = tmp_path / "a.txt"
    path.write_text("One sentence.\n", encoding="utf-8")
    real = read_document(path, src_lang="en")
    gates = [(threading.Event(), threading.Event()) for _ in range(2)]
    calls = iter(gates)

    def slow_read(self, *a, **k):
        inside, release = next(calls)
        inside.set()
        release.wait(30)  # released by the test: a busy machine may take seconds to start the second reader
        return real

    monkeypatch.setattr(type(formats_pkg.detect(path)), "read", slow_read)
    threads = []
    for inside, _ in gates:
        threads.append(threading.Thread(target=read_document, args=(path,)))
        threads[-1].start()
        assert inside.wait(30)
    assert gc.get_threshold()[0] > before[0]
    for t, (_, release) in zip(threads, gates):
        release.set()
        t.join(30)
    assert gc.get_threshold() == before
