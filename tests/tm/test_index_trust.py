"""A TM folder from someone else never runs their code: the search index is read
only under this installation's seal, and Whoosh's pickles admit only its own classes."""
from __future__ import annotations

import importlib
import os
import pickle
import pkgutil
import subprocess
import sys
import warnings

import pytest

from engine.errors import TMError
from engine.tm.memory import TranslationMemory
from engine.tm.seal import Seal, SealedStorage
from engine.tm.whoosh_index import INDEX_NAME, make_schema
from engine.tm.whoosh_pickle import UnsafePickle, restricted_loads, unrestricted_entry_points

PAIRS = [("Open the file", "Datei öffnen"), ("Save the file", "Datei speichern"),
         ("Close the window", "Fenster schließen"), ("Print the document", "Dokument drucken")]


class _Payload:
    """Unpickling this creates the file ``marker`` (what a hostile index would do)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def _plant_hostile_toc(index_dir, marker) -> None:
    """Replace the index's table of contents by one whose schema and segment
    list are pickles that run code, as Whoosh would write them."""
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    toc_names = [n for n in os.listdir(index_dir) if n.startswith("_MAIN_") and n.endswith(".toc")]
    gen = max(int(n[6:-4]) for n in toc_names)
    storage = FileStorage(str(index_dir))
    os.remove(index_dir / f"_MAIN_{gen}.toc")
    toc = TOC(make_schema(), [_Payload(marker)], gen)
    real_dumps = pickle.dumps
    try:  # the schema slot holds a payload too
        pickle.dumps = lambda obj, *a, **k: real_dumps(_Payload(marker), *a, **k)
        toc.write(storage, INDEX_NAME)
    finally:
        pickle.dumps = real_dumps


def _make_tm(folder):
    with TranslationMemory(folder, src_lang="en", tgt_lang="de") as t:
        t.add_many(PAIRS)


def test_a_hostile_index_in_a_received_tm_runs_nothing_and_the_tm_still_answers(tmp_path):
    _make_tm(tmp_path / "tm")
    marker = tmp_path / "pwned"
    _plant_hostile_toc(tmp_path / "tm" / "index", marker)
    with TranslationMemory(tmp_path / "tm") as t:
        assert t.search("Save the file")[0].target.text == "Datei speichern"
        assert "not written by this Verso installation" in t.rebuilt_because
    assert not marker.exists()


def test_a_tm_indexed_by_another_installation_is_reindexed_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_INDEX_KEY", str(tmp_path / "their.key"))
    _make_tm(tmp_path / "tm")
    monkeypatch.setenv("VERSO_INDEX_KEY", str(tmp_path / "my.key"))
    with TranslationMemory(tmp_path / "tm") as t:
        assert "not written by this Verso installation" in t.rebuilt_because
        assert t.search("Close the window")[0].score == 1.0
    with TranslationMemory(tmp_path / "tm") as t:   # now ours: read as it is
        assert t.rebuilt_because == ""
        assert t.search("Print the document")[0].score == 1.0


def test_the_cli_search_on_a_strangers_tm_folder_runs_nothing(tmp_path):
    _make_tm(tmp_path / "tm")
    marker = tmp_path / "pwned"
    _plant_hostile_toc(tmp_path / "tm" / "index", marker)
    for n, cmd in enumerate((["tm", "search", "--tm", str(tmp_path / "tm"), "--json", "Open the file"],
                             ["tm", "stats", "--tm", str(tmp_path / "tm")])):
        r = subprocess.run([sys.executable, "-m", "engine", *cmd], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert not marker.exists()
        # the first command says it rebuilds the index; the second finds it sealed and says nothing
        assert ("rebuilding the search index" in r.stderr) == (n == 0), r.stderr
    assert "Datei" in subprocess.run([sys.executable, "-m", "engine", "tm", "search", "--tm",
                                      str(tmp_path / "tm"), "--json", "Open the file"],
                                     capture_output=True, text=True, timeout=120).stdout


def test_even_a_sealed_hostile_pickle_is_refused_by_the_restricted_unpickler(tmp_path):
    """Second wall: someone who had this installation's key still cannot run code."""
    _make_tm(tmp_path / "tm")
    marker = tmp_path / "pwned"
    index_dir = tmp_path / "tm" / "index"
    with TranslationMemory(tmp_path / "tm", create=False) as t:
        t.index.close()
        _plant_hostile_toc(index_dir, marker)
        Seal(lambda: t.conn).record_all(index_dir)   # the hostile files now pass the seal
        with pytest.raises(TMError, match="never holds"):
            t.index.open()
    assert not marker.exists()
    with TranslationMemory(tmp_path / "tm") as t:
        assert t.search("Open the file")[0].score == 1.0
    assert not marker.exists()


def test_the_restricted_unpickler_admits_index_data_and_refuses_code():
    from collections import defaultdict

    assert restricted_loads(pickle.dumps((1, b"x", [2.0], {"a": {3}}, defaultdict(int)))) is not None
    with pytest.raises(UnsafePickle):
        restricted_loads(pickle.dumps(_Payload("/nonexistent")))
    with pytest.raises(UnsafePickle):
        restricted_loads(pickle.dumps(os.system))


def test_no_whoosh_module_keeps_an_unrestricted_pickle_reader():
    import whoosh

    from engine.tm import whoosh_pickle

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in pkgutil.walk_packages(whoosh.__path__, "whoosh."):
            try:
                importlib.import_module(m.name)
            except Exception:  # noqa: BLE001 - Whoosh ships modules that no longer import
                pass
    whoosh_pickle.install()
    assert unrestricted_entry_points() == []


def test_a_crash_half_way_through_an_index_commit_leaves_a_trusted_index(tmp_path, monkeypatch):
    """Files a crash leaves before the new table of contents is in place are
    never read, so they need no seal: the TM opens without a rebuild."""
    _make_tm(tmp_path / "tm")
    calls = []

    def crash(self, old, new, safe=False):
        calls.append(new)
        raise KeyboardInterrupt("killed")

    with TranslationMemory(tmp_path / "tm") as t:
        uid = t.add("Rename the layer", "Ebene umbenennen")
        monkeypatch.setattr(SealedStorage, "rename_file", crash)
        with pytest.raises(KeyboardInterrupt):
            t.flush()
        monkeypatch.undo()
        t.index.close()
        t.conn.close()
        t.conn = None
    assert calls
    with TranslationMemory(tmp_path / "tm") as t:
        assert t.rebuilt_because == ""
        assert t.search("Rename the layer")[0].entry.id == uid


def test_a_build_larger_than_its_memory_budget_spills_and_reads_back_its_own_runs(tmp_path):
    """Whoosh's external sort pickles its runs to private temporary files: they are this
    process's own, not index data, and a large rebuild must read them back."""
    from engine.tm.whoosh_index import build_new, new_index_id

    pairs = [(f"Unit {i} names the colour {i % 97} of layer {i % 89} in view {i % 83}.", f"Einheit {i}.")
             for i in range(4_000)]
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as t:
        t.add_many(pairs)
        docs = t.conn.execute("SELECT id, source, target, src_lang, tgt_lang, enc, senc, penc FROM units "
                              "ORDER BY id")
        build_new(t.index.dir, docs, new_index_id(), 0, t.index.seal, limitmb=1)
        assert t.index.dir.with_name("index.new").is_dir()
