"""The suggestion engine in a process of its own (engine/nmt/server.py, engine/nmt/remote.py): the
editor gets the same translation as from the translator in its own process, through JSON messages;
a search it no longer wants stops at once; an engine process that dies is started again."""
from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time

import pytest

from engine.errors import ModelError
from engine.nmt.copyreport import CopiedWord
from engine.nmt.remote import EngineStopped, RemoteTranslator
from engine.nmt.results import Term, TranslationRequest, TranslationResult
from engine.nmt.search import Stopped
from engine.nmt.server import SLOW_STEP_ENV
from engine.nmt.wire import decode, encode, request_from_dict, request_to_dict, result_from_dict, result_to_dict

SRC = "The red dog sees a small cat."


def same_fields(a: TranslationResult, b: TranslationResult) -> None:
    for f in dataclasses.fields(TranslationResult):
        if f.name != "gate_vectors":  # the --json detail tensor: not carried
            assert getattr(a, f.name) == pytest.approx(getattr(b, f.name)) if f.name in (
                "score", "gates", "token_gates", "copy") else getattr(a, f.name) == getattr(b, f.name), f.name


def carried(r: TranslationResult) -> TranslationResult:
    return result_from_dict(decode(encode(result_to_dict(r))))


def test_a_real_translation_crosses_as_json_with_every_field(translator):
    r = translator.translate([SRC], beam=4, terms=[[Term(("Hund",), (8, 11))]])[0]
    assert r.words and r.alignment and r.gates is not None and r.tokens and r.token_attention
    same_fields(carried(r), r)
    # a memory's copied words, its pairs, the exact match, the terms report cross as they are
    r.memory = [CopiedWord(0.5, 0, 1, "Hund", uid=7), None] + [None] * (len(r.words) - 2)
    r.memory_kind, r.exact_match, r.copy = "knn", 0, [0.5] * len(r.words)
    r.memory_pairs, r.terms = [{"source": "A dog.", "target": "Ein Hund."}], [{"term": "Hund", "found": True}]
    back = carried(r)
    same_fields(back, r)
    assert back.memory[0] == CopiedWord(0.5, 0, 1, "Hund", uid=7)


def test_a_request_crosses_with_its_pairs_context_and_terms():
    req = TranslationRequest(SRC, "Der", (("A dog.", "Ein Hund.", 0.8),), ("Before.",),
                             (Term(("Hund", "Hunde"), (8, 11), True), "Katze"))
    back = request_from_dict(decode(encode(request_to_dict(req))))
    assert back == TranslationRequest(SRC, "Der", (("A dog.", "Ein Hund.", 0.8),), ("Before.",),
                                      (Term(("Hund", "Hunde"), (8, 11), True), Term(("Katze",))))


@pytest.fixture
def remote(trained_model):
    r = RemoteTranslator(trained_model, threads=1)
    yield r
    r.close()


def test_the_engine_process_translates_as_the_translator_does(remote, translator):
    req = TranslationRequest(SRC, terms=(Term(("Hund",), (8, 11)),))
    mine = translator.suggest(req, beam=4, terms_mode="enforce")
    same_fields(remote.suggest(req, beam=4, terms_mode="enforce"), mine)
    same_fields(remote.forced([SRC], ["Der rot Hund sieht."])[0], translator.forced([SRC], ["Der rot Hund sieht."])[0])
    assert remote.memory_in_effect("learned") == translator.memory_in_effect("learned")
    assert remote.info()["src_lang"] == "en" and remote.quantized is False


def test_a_search_no_longer_wanted_stops_at_once(trained_model, monkeypatch):
    monkeypatch.setenv(SLOW_STEP_ENV, "100")  # every step sleeps 0.1 s: a search under way for seconds
    r = RemoteTranslator(trained_model, threads=1)
    try:
        t = time.perf_counter()
        r.suggest(TranslationRequest(SRC), beam=4)  # the whole search: at least its steps' sleeps, on any machine
        whole = time.perf_counter() - t
        go, asked = threading.Event(), []
        threading.Timer(0.5, lambda: (asked.append(time.perf_counter()), go.set())).start()
        with pytest.raises(Stopped):
            r.suggest(TranslationRequest(SRC), beam=4, stop=go.is_set)
        # the step under way and a poll, not the rest of the search: under a quarter of the whole search's steps
        # ran after the ask (each step sleeps 0.1 s, so the whole one's time bounds its steps on a busy machine)
        assert whole > 2 and time.perf_counter() - asked[0] < whole / 4, whole
        monkeypatch.delenv(SLOW_STEP_ENV)
    finally:
        r.close()


def test_an_engine_process_killed_says_so_in_one_line_and_the_next_request_starts_one(remote):
    first = remote.suggest(TranslationRequest(SRC)).text
    os.kill(remote.proc.pid, signal.SIGKILL)
    with pytest.raises(EngineStopped, match="stopped") as e:
        remote.suggest(TranslationRequest(SRC))
    assert "\n" not in str(e.value)
    assert remote.suggest(TranslationRequest(SRC)).text == first and remote.starts == 2


def test_closing_ends_the_engine_process(trained_model):
    r = RemoteTranslator(trained_model, threads=1)
    proc = r.proc
    r.close()
    assert not proc.is_alive() and proc.exitcode == 0


def test_a_request_after_closing_is_refused_without_starting_an_engine(trained_model):
    r = RemoteTranslator(trained_model, threads=1)
    r.close()
    with pytest.raises(Stopped):
        r.suggest(TranslationRequest(SRC))
    assert r.proc is None and r.starts == 1


def test_the_engine_process_ends_when_the_editor_is_killed(trained_model):
    import subprocess
    import sys

    code = """if True:
        import sys, time
        from engine.nmt.remote import RemoteTranslator
        r = RemoteTranslator(sys.argv[1], threads=1)
        print(r.proc.pid, flush=True)
        time.sleep(600)
    """
    editor = subprocess.Popen([sys.executable, "-c", code, str(trained_model)], stdout=subprocess.PIPE, text=True,
                              cwd=os.getcwd())
    try:
        child = int(editor.stdout.readline())
    finally:
        editor.kill()
        editor.wait()
    end = time.monotonic() + 30  # a busy machine may be slow to end it, not wrong
    while time.monotonic() < end and _running(child):
        time.sleep(0.1)
    assert not _running(child)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_a_folder_that_is_no_model_is_a_one_line_load_error(tmp_path):
    with pytest.raises(ModelError) as e:
        RemoteTranslator(tmp_path, threads=1)
    assert str(e.value) and "\n" not in str(e.value)


def test_the_editors_side_of_the_engine_never_loads_torch(trained_model):
    """Asking for a suggestion (and the alignment of the translator's own target) through the engine
    process leaves torch out of the editor's process: its import would hold the interpreter lock."""
    import subprocess
    import sys

    code = """if True:
        import sys
        from engine.nmt.remote import RemoteTranslator
        from engine.nmt.results import TranslationRequest
        r = RemoteTranslator(sys.argv[1], threads=1)
        assert r.suggest(TranslationRequest("The red dog sees a small cat.")).words
        assert r.forced(["A dog."], ["Ein Hund."])[0].alignment
        r.close()
        print("torch" in sys.modules)
    """
    out = subprocess.run([sys.executable, "-c", code, str(trained_model)], capture_output=True, text=True,
                         timeout=120, cwd=os.getcwd())
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False"]
