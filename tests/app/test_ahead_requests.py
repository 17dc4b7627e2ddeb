"""A row translated ahead in a batch gets the suggestion it gets alone: the editor sends the engine
the same request for it -- TM pairs, context, glossary terms, beam -- either way (app.suggest_ahead
``request_of``; the engine side: tests/nmt/test_engine_batch.py)."""
from __future__ import annotations

from app.suggest import NMTService
from app.tmservice import FoundMatch
from engine.glossary import GlossaryEntry, TermIndex
from engine.tm import TranslationMemory

ROWS = ["The red dog sees a small cat.", "A big man has the blue car.", "The child likes the ball.",
        "The small cat sees the red car and the big dog likes the blue ball of the child."]


class Recording:
    """The translator, with each request it is sent: (how, source, request, beam)."""

    def __init__(self, tr):
        self.tr, self.sent = tr, []

    def suggest(self, req, *, beam, **kw):
        self.sent.append(("alone", req.source, req, beam))
        return self.tr.suggest(req, beam=beam, **kw)

    def forced(self, srcs, tgts, **kw):  # a row with a 100 % TM match: that translation, scored
        self.sent.extend(("forced", src, None, 0) for src in srcs)
        return self.tr.forced(srcs, tgts, **kw)

    def suggest_many(self, reqs, *, beams, **kw):
        self.sent.extend(("batch", r.source, r, b) for r, b in zip(reqs, beams))
        return self.tr.suggest_many(reqs, beams=beams, **kw)


def test_a_row_ahead_is_sent_the_same_request_alone_as_in_a_batch(qtbot, tiny_translator, tmp_path):
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("The red dog sees a big cat.", "Der rote Hund sieht eine große Katze.")
        tm.add("The child likes the car.", "Das Kind mag das Auto.")
        found = {s: [FoundMatch(m, "tm") for m in tm.search(s, k=2, min_score=0.3)] for s in ROWS}
    assert sum(map(len, found.values())) >= 2
    terms = TermIndex([GlossaryEntry("ball", ("Ball",), "en", "de"), GlossaryEntry("dog", ("Hund",), "en", "de")],
                      "en")
    items = [(s, found[s], ROWS[:i], terms.find(s), None) for i, s in enumerate(ROWS)]
    assert sum(bool(t) for _s, _m, _c, t, _w in items) >= 2
    svc = NMTService(None)
    rec = Recording(tiny_translator)
    svc.error, svc.translator, svc.terms_mode = None, rec, "enforce"
    svc.beam = 1  # (the editor's beam as greedy as the rows ahead: none is redone with a wider one meanwhile)
    try:
        svc.prefetch_many(items)  # the nearest alone, the three after it in one batch
        qtbot.waitUntil(lambda: len(svc.cache) == len(ROWS) and not svc._inflight, timeout=120_000)
        batched = {src: (req, beam) for how, src, req, beam in rec.sent if how == "batch"}
        assert sorted(batched) == sorted(ROWS[1:])
        together = {k: v.text for k, v in svc.cache.items()}
        svc.cache.clear()
        rec.sent.clear()
        for text, memories, context, hits, wanted in items[1:]:
            svc.prefetch(text, memories, context, hits, wanted=wanted)
        qtbot.waitUntil(lambda: len(svc.cache) == len(ROWS) - 1 and not svc._inflight, timeout=120_000)
        alone = {src: (req, beam) for how, src, req, beam in rec.sent if how == "alone"}
        assert alone == batched
        assert {k: v.text for k, v in svc.cache.items()} == {k: together[k] for k in svc.cache}
    finally:
        svc.translator = None
        svc.pool.waitForDone(10_000)


LONG = " ".join(ROWS)  # 37 words: a row ahead translated greedily first


def service(translator) -> tuple[NMTService, Recording]:
    svc = NMTService(None)
    rec = Recording(translator)
    svc.error, svc.translator = None, rec
    return svc, rec


def stop(svc: NMTService) -> None:
    svc.translator = None
    svc.pool.waitForDone(10_000)


def test_a_long_row_ahead_comes_greedy_first_then_with_the_full_beam_while_the_engine_is_idle(qtbot, tiny_translator):
    from app.suggest_ahead import request_of
    from engine.nmt.editorbeam import suggestion_beam

    svc, rec = service(tiny_translator)
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())
        qtbot.waitUntil(lambda: svc.served["refined"] == 1, timeout=120_000)
        beam = suggestion_beam(LONG, svc.beam)
        assert [(how, b) for how, _s, _r, b in rec.sent] == [("alone", 1), ("alone", beam)] and beam > 1
        (view,) = svc.cache.values()
        assert view.text == tiny_translator.suggest(request_of(LONG, [], ROWS[:1]), beam=beam).text
    finally:
        stop(svc)


def test_a_long_row_entered_before_it_is_redone_keeps_the_suggestion_it_was_shown(qtbot, tiny_translator):
    import threading

    from app.suggest_ahead import request_of

    svc, rec = service(tiny_translator)
    started, go = threading.Event(), threading.Event()
    real = rec.suggest

    def held(req, *, beam, **kw):  # the full-beam redo waits until the row is entered
        if beam > 1:
            started.set()
            go.wait(30)
        return real(req, beam=beam, **kw)

    rec.suggest = held
    shown = []
    svc.ready.connect(lambda key, view: shown.append(view.text))
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())
        qtbot.waitUntil(started.is_set, timeout=120_000)
        svc.suggest("row", LONG, [], ROWS[:1], ())  # entered: served what was translated ahead
        go.set()
        qtbot.waitUntil(lambda: bool(shown) and not svc.pool.activeThreadCount(), timeout=30_000)
        qtbot.wait(200)
        greedy = tiny_translator.suggest(request_of(LONG, [], ROWS[:1]), beam=1).text
        assert shown == [greedy] and [v.text for v in svc.cache.values()] == [greedy]
        assert svc.served["ready"] == 1 and svc.served["refined"] == 0
    finally:
        go.set()
        stop(svc)


def test_a_long_row_seen_then_left_for_the_row_before_keeps_the_suggestion_it_was_shown(qtbot, tiny_translator):
    from app.suggest_ahead import REFINE_AFTER_MS

    svc, rec = service(tiny_translator)
    shown = []
    svc.ready.connect(lambda key, view: shown.append((key, view.text)))
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())  # row r+1, ahead: greedy first, waiting to be redone
        qtbot.waitUntil(lambda: len(svc.cache) == 1 and not svc._inflight, timeout=120_000)
        svc.suggest("r+1", LONG, [], ROWS[:1], ())  # Down: the greedy suggestion is seen
        svc.suggest("r", ROWS[0], [], [], ())       # back Up within the dwell, and the translator stays
        qtbot.waitUntil(lambda: len(shown) == 2, timeout=120_000)
        qtbot.wait(REFINE_AFTER_MS + 700)
        qtbot.waitUntil(lambda: not svc.pool.activeThreadCount(), timeout=30_000)
        svc.suggest("r+1", LONG, [], ROWS[:1], ())  # Down again: what was seen, not another translation
        qtbot.waitUntil(lambda: len(shown) == 3, timeout=30_000)
        seen = [t for k, t in shown if k == "r+1"]
        assert seen[0] == seen[1]
        assert svc.served["refined"] == 0 and not [b for _h, s, _r, b in rec.sent if s == LONG and b > 1]
    finally:
        stop(svc)


def test_a_row_browsed_to_while_a_row_ahead_is_redone_stops_the_redo_until_the_translator_stays(qtbot,
                                                                                              tiny_translator,
                                                                                              monkeypatch):
    import threading
    import types

    import app.suggest_ahead as ahead
    from app.suggest_ahead import REFINE_AFTER_MS
    from engine.nmt.results import Stopped

    # The translator's time on a row on a clock the test moves: on the wall clock, a test thread without a turn
    # for the pause between browsing and letting the held redo go on had stayed long enough for it to finish.
    now = [1000.0]
    monkeypatch.setattr(ahead, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    dwell = REFINE_AFTER_MS / 1000
    svc, rec = service(tiny_translator)
    started, go, log = threading.Event(), threading.Event(), []
    real = rec.suggest

    def held(req, *, beam, **kw):  # the first full-beam redo waits until a row is browsed to
        if beam > 1 and req.source == LONG:
            if not started.is_set():
                started.set()
                go.wait(30)
            try:
                out = real(req, beam=beam, **kw)
            except Stopped:
                log.append(("stopped", now[0]))
                raise
            log.append(("finished", now[0]))
            return out
        return real(req, beam=beam, **kw)

    rec.suggest = held
    try:
        svc.prefetch(ROWS[1], [], [], ())  # a short row ahead: its suggestion is cached, none to redo
        qtbot.waitUntil(lambda: len(svc.cache) == 1 and not svc._inflight, timeout=120_000)
        svc.prefetch(LONG, [], ROWS[:1], ())
        now[0] += dwell  # the translator stays: the long row is redone
        qtbot.waitUntil(started.is_set, timeout=120_000)
        browsed = now[0]
        svc.suggest("row", ROWS[1], [], [], ())  # a step served from the cache: the engine is the browser's again
        go.set()
        qtbot.waitUntil(lambda: bool(log), timeout=30_000)
        now[0] += dwell  # and stays again
        qtbot.waitUntil(lambda: svc.served["refined"] == 1, timeout=30_000)
        assert [how for how, _t in log] == ["stopped", "finished"]
        assert log[1][1] - browsed >= dwell
    finally:
        go.set()
        stop(svc)


def test_typing_on_a_long_row_shown_greedy_continues_that_suggestion_without_searching_it_again(qtbot, tiny_translator,
                                                                                             monkeypatch):
    svc, _rec = service(tiny_translator)
    monkeypatch.setattr(tiny_translator, "_plain", {}, raising=False)  # (none remembered by an earlier test)
    searches, real = [], tiny_translator.translate

    def translate(texts, **kw):  # each search: constrained by a typed prefix or not
        searches.append("constrained" if any(kw.get("prefixes") or ()) else "unconstrained")
        return real(texts, **kw)

    monkeypatch.setattr(tiny_translator, "translate", translate)
    shown, completed = [], []
    svc.ready.connect(lambda key, view: shown.append(view.text))
    svc.completion_ready.connect(lambda key, view: completed.append(view.text))
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())  # ahead: greedy
        qtbot.waitUntil(lambda: len(svc.cache) == 1 and not svc._inflight, timeout=120_000)
        svc.suggest("row", LONG, [], ROWS[:1], ())
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        searches.clear()
        typed = shown[0].split()[0] + " "  # the translator types the suggestion's first word
        svc.complete("row", LONG, typed, [], ROWS[:1], ())
        qtbot.waitUntil(lambda: bool(completed), timeout=30_000)
        assert "unconstrained" not in searches and searches and completed[0].startswith(typed)
    finally:
        stop(svc)


def test_a_row_ahead_is_redone_only_once_the_translator_typing_on_a_row_pauses_for_the_dwell(qtbot, tiny_translator,
                                                                                         monkeypatch):
    import types

    import app.suggest_ahead as ahead
    from app.suggest_ahead import REFINE_AFTER_MS

    # The translator's time on a row on a clock the test moves: on the wall clock, a test thread without a turn
    # between entering the row and typing on it (a busy machine) had dwelt past the pause and the row was redone.
    now = [1000.0]
    monkeypatch.setattr(ahead, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    dwell = REFINE_AFTER_MS / 1000
    svc, rec = service(tiny_translator)
    redone_at, real = [], rec.suggest

    def timed(req, *, beam, **kw):
        if beam > 1 and req.source == LONG:
            redone_at.append(now[0])
        return real(req, beam=beam, **kw)

    rec.suggest = timed
    completed = []
    svc.completion_ready.connect(lambda key, view: completed.append(view.text))
    try:
        svc.prefetch(ROWS[1], [], [], ())
        svc.prefetch(LONG, [], ROWS[:1], ())  # the row after, ahead: greedy, to be redone
        qtbot.waitUntil(lambda: len(svc.cache) == 2 and not svc._inflight, timeout=120_000)
        svc.suggest("row", ROWS[1], [], [], ())  # the translator enters the short row
        now[0] += dwell * 3 / 5
        qtbot.wait(REFINE_AFTER_MS + 200)  # the pause's timer fired: not yet
        assert not redone_at
        typed = now[0]
        svc.complete("row", ROWS[1], "Der ", [], [], ())  # and types on it
        qtbot.waitUntil(lambda: bool(completed), timeout=30_000)
        now[0] += dwell * 3 / 5  # a pause since entering the row, not since typing on it
        qtbot.wait(REFINE_AFTER_MS + 200)
        assert not redone_at
        now[0] += dwell * 3 / 5
        qtbot.waitUntil(lambda: bool(redone_at), timeout=30_000)
        assert redone_at[0] - typed >= dwell
    finally:
        stop(svc)


def test_a_long_row_ahead_with_a_100_percent_match_is_scored_once_and_never_redone(qtbot, tiny_translator, tmp_path):
    from app.suggest_ahead import REFINE_AFTER_MS

    target = "Der rote Hund sieht eine kleine Katze und das Kind mag den Ball."
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add(LONG, target)
        found = [FoundMatch(m, "tm") for m in tm.search(LONG, k=1, min_score=0.3)]
    assert found and found[0].match.score >= 1.0 - 1e-9
    svc, rec = service(tiny_translator)
    try:
        svc.prefetch(LONG, found, ROWS[:1], ())
        qtbot.waitUntil(lambda: len(svc.cache) == 1 and not svc._inflight, timeout=120_000)
        qtbot.wait(REFINE_AFTER_MS + 700)
        qtbot.waitUntil(lambda: not svc.pool.activeThreadCount(), timeout=30_000)
        assert [how for how, _s, _r, _b in rec.sent] == ["forced"] and svc.served["refined"] == 0
        assert [v.text for v in svc.cache.values()] == [target]
    finally:
        stop(svc)


def test_new_settings_drop_the_rows_ahead_waiting_to_be_redone_with_the_old_ones(qtbot, tiny_translator):
    from app.suggest_ahead import REFINE_AFTER_MS

    svc, rec = service(tiny_translator)
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())
        qtbot.waitUntil(lambda: len(svc.cache) == 1 and not svc._inflight, timeout=120_000)
        svc.set_modes(memory_mode="none", terms_mode="off")  # the cache goes: nothing of it is redone
        qtbot.wait(REFINE_AFTER_MS + 700)
        qtbot.waitUntil(lambda: not svc.pool.activeThreadCount(), timeout=30_000)
        assert [b for _h, _s, _r, b in rec.sent] == [1] and not svc.cache
    finally:
        stop(svc)


def test_new_settings_stop_a_row_ahead_being_redone_with_the_old_ones(qtbot, tiny_translator):
    import threading

    from engine.nmt.results import Stopped

    svc, rec = service(tiny_translator)
    started, go, log, real = threading.Event(), threading.Event(), [], rec.suggest

    def held(req, *, beam, **kw):
        if beam > 1:
            started.set()
            go.wait(30)
            try:
                real(req, beam=beam, **kw)
            except Stopped:
                log.append("stopped")
                raise
            log.append("finished")
        return real(req, beam=beam, **kw)

    rec.suggest = held
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())
        qtbot.waitUntil(started.is_set, timeout=120_000)
        svc.set_modes(memory_mode="none", terms_mode="off")
        go.set()
        qtbot.waitUntil(lambda: bool(log) and not svc.pool.activeThreadCount(), timeout=30_000)
        assert log == ["stopped"] and not svc.cache and svc.served["refined"] == 0
    finally:
        go.set()
        stop(svc)


class Interleaved(NMTService):
    """An NMTService that runs ``between()`` (what the UI thread may do meanwhile) the moment the pool
    thread says what it translates."""

    between = None

    @property
    def _running(self):
        return self.__dict__.get("running_now")

    @_running.setter
    def _running(self, value) -> None:
        self.__dict__["running_now"] = value
        if value is not None and self.between is not None:
            self.between()


def test_a_row_ahead_asked_for_just_as_a_redo_starts_stops_the_redo(qtbot, tiny_translator):
    svc = Interleaved(None)
    svc.error, svc.translator = None, Recording(tiny_translator)
    stopped = []
    try:
        svc.prefetch(LONG, [], ROWS[:1], ())
        qtbot.waitUntil(lambda: len(svc.cache) == 1 and not svc._inflight, timeout=120_000)

        def prefetch_meanwhile() -> None:  # (as prefetch does on the UI thread) the redo gives way
            svc.between = None
            svc._stop_refining()
            stopped.append(svc._running[1].cancelled)

        svc.between = prefetch_meanwhile
        qtbot.waitUntil(lambda: bool(stopped), timeout=30_000)
        assert stopped == [True]
    finally:
        stop(svc)
