"""A training run's JSON events reach the editor as dataclasses: the result table in band order with
all sentences last, the verdict (computed for a run of an earlier version that wrote none), and a
field missing or of another type taking its default instead of failing the dialog."""
from __future__ import annotations

import json

from engine.training import runs
from engine.training.events import (Finished, Gathered, OtherEvent, PhaseStarted, ScoredAfter, Step, parse_event,
                                    verdict)

TABLE = {"overall": {"sentences": 30, "bleu": {"tm_copy": 20.0, "model": 25.5}, "chrf": {"tm_copy": 40.0}},
         "bands": [{"band": "50-74%", "sentences": 10, "bleu": {"tm_copy": 10.0, "model": 22.0}},
                   {"band": "no match", "sentences": 20, "bleu": {"model": 27.0}}],
         "memory": "auto", "beam": 5}


def test_the_event_file_reads_as_dataclasses_in_order(tmp_path):
    lines = [{"event": "gather", "pairs": 1200, "sources": 2, "src_lang": "en", "tgt_lang": "de", "duplicates": 3,
              "device": "cpu"},
             {"event": "resume", "phase": "train", "step": 40, "total_steps": 400},
             {"event": "step", "phase": "train", "step": 41, "total_steps": 400, "loss": 3.25, "eta_s": None},
             {"event": "after", "bleu": 25.5, "system": "model", "table": TABLE},
             {"event": "progress", "phase": "after", "done": 3, "total": 30}]
    (tmp_path / runs.EVENTS).write_text("".join(json.dumps(e) + "\n" for e in lines) + '{"event": "st',
                                        encoding="utf-8")
    got = runs.EventTail(tmp_path).events()
    assert got[0] == Gathered(1200, "en", "de", 3, "cpu")
    assert got[1] == PhaseStarted("train", 400, resumed=True, step=40)
    assert got[2] == Step(41, 400, 3.25, eta_s=None)
    assert got[4] == OtherEvent("progress") and len(got) == 5   # the line cut short waits for its end
    table = got[3].table
    assert isinstance(got[3], ScoredAfter)
    assert [(r.band, r.sentences) for r in table.rows] == [("50-74%", 10), ("no match", 20), ("all", 30)]
    assert table.overall.bleu == {"tm_copy": 20.0, "model": 25.5} and "model_memory" not in table.overall.bleu


def test_a_finished_run_of_an_earlier_version_gets_its_verdict_from_its_scores():
    old = parse_event({"event": "finished", "before": 30.0, "after": 20.0})
    assert isinstance(old, Finished) and not old.verdict.better
    assert "worse than the current model (30.0)" in old.verdict.message
    new = parse_event({"event": "finished", "before": 30.0, "after": 35.0,
                       **verdict(35.0, 32.0, 30.0).to_json()})
    assert new.verdict.better and new.verdict.kind == "better" and "copying the TM match (32.0)" in new.verdict.message


def test_fields_missing_or_of_another_type_take_their_defaults():
    assert parse_event({"event": "step", "step": "7", "loss": float("nan")}) == Step(0, 0, 0.0)
    assert parse_event({"event": "after", "table": [1, 2]}).table.rows[0].band == "all"
    assert parse_event([]) == OtherEvent("")


def test_a_stopped_runs_last_event_is_parsed_and_a_run_without_events_has_none(tmp_path):
    assert runs.RunStatus(tmp_path, "none").last_event is None
    done = runs.RunStatus(tmp_path, "finished", last={"event": "finished", "before": 30.0, "after": 31.0})
    assert isinstance(done.last_event, Finished) and done.last_event.after == 31.0
