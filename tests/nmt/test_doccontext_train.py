"""Document-context models trained on a tiny document corpus, through the Translator and the CLI."""
from __future__ import annotations

import io
import json
import sys

import pytest
import torch

from engine.cli import main
from engine.nmt.config import ExperimentConfig
from engine.nmt.data import read_lines
from nmt.doctoy import doc_config_dict, write_doc_corpus

torch.set_num_threads(1)
STRATEGIES = [["init-enc"], ["init-dec"], ["aux"], ["gated-aux"], ["init-enc", "init-dec", "gated-aux"]]
FAST = {"max_steps": 40, "eval_every": 40, "log_every": 20}


@pytest.fixture(scope="module")
def doc_corpus(tmp_path_factory):
    return write_doc_corpus(tmp_path_factory.mktemp("doccorpus"), n_train=60, n_dev=6)


def _train(corpus, folder, strategies, **train_kw):
    from engine.nmt.train import train

    events = []
    cfg = ExperimentConfig.from_dict(doc_config_dict(corpus, model={"doc_context": strategies},
                                                     train={**FAST, **train_kw}))
    last = train(cfg, folder, on_event=events.append)
    return last, events


@pytest.mark.parametrize("strategies", STRATEGIES, ids=["+".join(s) for s in STRATEGIES])
def test_each_strategy_trains_and_its_context_changes_the_output(doc_corpus, tmp_path, strategies):
    from engine.nmt.translator import Translator

    last, events = _train(doc_corpus, tmp_path / "m", strategies)
    losses = [e["loss"] for e in events if e["event"] == "step"]
    assert last["reason"] == "max_steps" and losses[-1] < losses[0]
    tr = Translator.load(tmp_path / "m")
    src = ["big bat .", "old seal ."]
    tgt = ["gross Fledermaus .", "alt Robbe ."]
    zoo = tr.score(src, tgt, context=[["red lion ."], ["red lion .", "big bat ."]])
    alone = tr.score(src, tgt, context=[[], []])
    # the previous sentences change the model's output -- by more than float rounding: after 40 toy
    # steps init-dec tells "red lion ." from "red club ." by 2e-6 nats, which rounding in the packed
    # products alone erases, while a context against none moves it by 1e-3 and more
    assert max(abs(a - b) for a, b in zip(zoo, alone)) > 1e-4, (zoo, alone)
    # an empty context (a document start) is the same as no context at all
    assert tr.score(src, tgt, context=[[], []]) == tr.score(src, tgt)
    # a model without document context ignores the context it is given
    res = tr.translate(src, beam=2, context=[["red lion ."], []])
    assert all(r.text for r in res)


@pytest.fixture(scope="module")
def doc_model(doc_corpus, tmp_path_factory):
    folder = tmp_path_factory.mktemp("docmodel") / "m"
    _train(doc_corpus, folder, ["init-dec", "aux"], batching="window")
    return folder


def run(args, stdin="", monkeypatch=None, capsys=None):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_translate_with_docs_matches_the_translator_and_keeps_markers(doc_model, tmp_path, monkeypatch, capsys):
    from engine.nmt.translator import Translator

    lines = ["red lion .", "big bat .", "old seal .", "red club .", "big bat ."]
    ids = ["a", "a", "a", "b", "b"]
    (tmp_path / "ids").write_text("\n".join(ids) + "\n")
    rc, out, _ = run(["translate", "--model", str(doc_model), "--beam", "2", "--docs", str(tmp_path / "ids")],
                     "\n".join(lines) + "\n", monkeypatch, capsys)
    expected = [r.text for r in Translator.load(doc_model).translate_document(lines, ids, beam=2)]
    assert rc == 0 and out.splitlines() == expected
    marked = "<d>\n" + "\n".join(lines[:3]) + "\n<d>\n" + "\n".join(lines[3:]) + "\n"
    rc, out2, _ = run(["translate", "--model", str(doc_model), "--beam", "2"], marked, monkeypatch, capsys)
    assert rc == 0 and out2.splitlines() == ["<d>", *expected[:3], "<d>", *expected[3:]]
    rc, out3, _ = run(["translate", "--model", str(doc_model), "--beam", "2", "--json"], marked, monkeypatch, capsys)
    objs = [json.loads(x) for x in out3.splitlines()]
    assert objs[0] == {"marker": "<d>"} and [o["translation"] for o in objs[1:4]] == expected[:3]


def test_translate_docs_with_a_wrong_line_count_is_a_clear_error(doc_model, tmp_path, monkeypatch, capsys):
    (tmp_path / "ids").write_text("a\n")
    rc, out, err = run(["translate", "--model", str(doc_model), "--docs", str(tmp_path / "ids")],
                       "x .\ny .\n", monkeypatch, capsys)
    assert rc == 2 and "ids" in err and "1 document ids" in err and "Traceback" not in err


def test_score_prints_one_line_per_pair_with_the_log_probability_last(doc_model, tmp_path, monkeypatch, capsys):
    from engine.nmt.translator import Translator

    (tmp_path / "s").write_text("<d>\nred lion .\nbig bat .\n<d>\nred club .\nbig bat .\n")
    (tmp_path / "h").write_text("<d>\nrot Loewe .\ngross Fledermaus .\n<d>\nrot Schlaeger .\ngross Fledermaus .\n")
    rc, out, _ = run(["score", "--model", str(doc_model), "--src", str(tmp_path / "s"), "--hyp", str(tmp_path / "h")],
                     monkeypatch=monkeypatch, capsys=capsys)
    lp = [float(x.split("\t")[-1]) for x in out.splitlines()]
    assert rc == 0 and len(lp) == 4 and all(x < 0 for x in lp)
    tr = Translator.load(doc_model)
    want = tr.score(["big bat .", "big bat ."], ["gross Fledermaus ."] * 2, context=[["red lion ."], ["red club ."]])
    assert lp[1] == pytest.approx(want[0], abs=1e-3) and lp[3] == pytest.approx(want[1], abs=1e-3)
    assert lp[1] != lp[3]  # same pair, different document context


def test_eval_reads_markers_on_both_sides_and_writes_them_back(doc_model, doc_corpus, tmp_path, monkeypatch, capsys):
    rc, out, _ = run(["eval", "--model", str(doc_model), "--src", str(doc_corpus["dev_en"]),
                      "--ref", str(doc_corpus["dev_de"]), "--beam", "2", "--hyp-out", str(tmp_path / "hyp")],
                     monkeypatch=monkeypatch, capsys=capsys)
    res = json.loads(out)
    src = read_lines(doc_corpus["dev_en"])
    hyp = read_lines(tmp_path / "hyp")
    assert rc == 0 and res["documents"] == 6 and res["sentences"] == len(src) - 6
    assert len(hyp) == len(src) and [h == "<d>" for h in hyp] == [s == "<d>" for s in src]


def test_train_refuses_marker_lines_that_differ_between_the_sides(doc_corpus, tmp_path, monkeypatch, capsys):
    bad = tmp_path / "dev.de"
    lines = read_lines(doc_corpus["dev_de"])
    bad.write_text("\n".join(lines[1:] + ["<d>"]) + "\n", encoding="utf-8")
    cfg = doc_config_dict(doc_corpus, model={"doc_context": ["aux"]}, train=FAST)
    cfg["data"]["dev_tgt"] = str(bad)
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    rc, _, err = run(["train", "--config", str(tmp_path / "c.json"), "--out", str(tmp_path / "m"), "--quiet"],
                     monkeypatch=monkeypatch, capsys=capsys)
    assert rc == 2 and "marker lines differ" in err and "line 1" in err


def test_int8_quantised_document_model_translates_with_its_cache(doc_model):
    from engine.nmt.translator import Translator

    lines = ["red lion .", "big bat .", "old seal .", "big bat ."]
    tr = Translator.load(doc_model, quantize=True)
    res = tr.translate_document(lines, ["a"] * 4, beam=2)
    assert len(res) == 4 and tr._doc_cache.computed == 3  # "big bat ." summarised once


def test_an_all_caps_context_sentence_reads_the_same_whatever_else_is_in_the_batch(doc_model):
    """The editor translates one segment at a time, `verso eval` a whole document at once: an all-caps previous
    sentence must give the same context in both, as its sentence-case form does."""
    from engine.nmt.translator import Translator

    tr = Translator.load(doc_model)
    alone = tr.translate(["old seal ."], context=[["BIG BAT ."]], beam=2)[0]
    with_caps = tr.translate(["old seal .", "RED LION ."], context=[["BIG BAT ."], []], beam=2)[0]
    folded = tr.translate(["old seal ."], context=[["Big bat ."]], beam=2)[0]
    assert alone.text == with_caps.text == folded.text
    assert alone.score == pytest.approx(folded.score, abs=1e-5)


def test_context_only_keeps_the_baseline_and_learns_to_read_the_context(doc_corpus, tmp_path):
    """train.context_only: a context model trained beside a frozen sentence-level baseline."""
    import shutil

    from engine.nmt.translator import Translator

    _train(doc_corpus, tmp_path / "base", [])
    (tmp_path / "ctx").mkdir()
    shutil.copy(tmp_path / "base" / "spm.model", tmp_path / "ctx" / "spm.model")  # the baseline's vocabulary
    last, _ = _train(doc_corpus, tmp_path / "ctx", ["init-enc", "init-dec", "gated-aux"],
                     init_from=str(tmp_path / "base"), context_only=True)
    assert last["reason"] == "max_steps"
    base, ctx = Translator.load(tmp_path / "base"), Translator.load(tmp_path / "ctx")
    src = ["big bat .", "old seal ."]
    tgt = ["gross Fledermaus .", "alt Robbe ."]
    # the translation network is the baseline's, tensor for tensor
    b, c = base.model.state_dict(), ctx.model.state_dict()
    assert all(torch.equal(b[k], c[k]) for k in b)
    assert ctx.score(src, tgt) == pytest.approx(base.score(src, tgt), abs=1e-4)  # without a context: the baseline
    zoo = ctx.score(src, tgt, context=[["red lion ."], ["red lion .", "big bat ."]])
    golf = ctx.score(src, tgt, context=[["red club ."], ["red club .", "big bat ."]])
    assert zoo != golf                                                   # it has learnt to read the context

