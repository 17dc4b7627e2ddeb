"""The nearest-neighbour memory (issue 24): every model copies from its retrieved pairs, untrained."""
from __future__ import annotations

import io
import json

import pytest
import torch

from engine.errors import ModelError
from engine.nmt.build import build_model
from engine.nmt.config import ModelConfig
from engine.nmt.data import pad_sources
from engine.nmt.doccontext import DocBatch
from engine.nmt.knn import KNN_FILE, KnnInput, KnnSettings
from engine.nmt.pairs import pack_memory
from engine.nmt.search import beam_search, greedy
from engine.nmt.vocab import EOS

V = 40
KINDS = {
    "plain": {"context_gate": "none"},
    "gated": {"context_gate": "both"},
    "bridged": {"context_gate": "both", "bridging": ["source", "target", "direct"]},
    "context": {"context_gate": "both", "doc_context": ["init-dec", "aux"]},
    "learned": {"context_gate": "both", "memory": "shallow"},
}


def make(kind: str):
    torch.manual_seed(0)
    cfg = ModelConfig(emb_dim=16, hidden=24, src_vocab=V, tgt_vocab=V, dropout=0.0, emb_dropout=0.0, **KINDS[kind])
    return build_model(cfg).eval()


SRC = [[5, 6, 7, 8, 9, EOS], [10, 11, 12, EOS]]
EXACT_TARGET = [21, 33, 22, 35, 24, 37]          # anything but what the model would write


def knn_input(pairs, t_lambda=50.0, k=1):
    mb = pack_memory(pairs, with_eos=True)
    return {"knn": KnnInput(mb, KnnSettings(t_lambda=t_lambda, k=k))} if mb is not None else {}


@pytest.mark.parametrize("kind", KINDS)
def test_zero_retrieved_pairs_give_exactly_the_models_output(kind):
    m = make(kind)
    src, mask = pad_sources(SRC)
    with torch.inference_mode():
        plain = beam_search(m, src, mask, beam=3)
        # sentence 1 reads nothing while sentence 0 reads a pair: sentence 1 is untouched, bit for bit
        mixed = beam_search(m, src, mask, beam=3, **knn_input([[(SRC[0], EXACT_TARGET + [EOS])], []]))
        none = beam_search(m, src, mask, beam=3, **knn_input([[], []]))
    assert mixed[1].tokens == plain[1].tokens and mixed[1].score == plain[1].score
    assert mixed[0].tokens != plain[0].tokens                      # the memory is not a no-op
    assert [h.tokens for h in none] == [h.tokens for h in plain]


@pytest.mark.parametrize("kind", KINDS)
def test_an_exact_match_is_reproduced_token_for_token_with_its_end(kind):
    m = make(kind)
    src, mask = pad_sources(SRC[:1])
    other = ([5, 6, 30, EOS], [23, 24, 25, EOS])     # a weaker second pair does not break the copy
    with torch.inference_mode():
        for search in (lambda **kw: beam_search(m, src, mask, beam=4, **kw), lambda **kw: greedy(m, src, mask, **kw)):
            h = search(**knn_input([[other, (SRC[0], EXACT_TARGET + [EOS])]]))[0]
            assert h.tokens == EXACT_TARGET + [EOS]
            # the copy report names the exact pair (index 1) and each token's own position in it
            assert [int(r[2]) for r in h.copy] == [1] * (len(EXACT_TARGET) + 1)
            assert [int(r[3]) for r in h.copy] == list(range(len(EXACT_TARGET) + 1))
            assert all(float(r[0]) > 0.99 for r in h.copy)


@pytest.mark.parametrize("kind", ["plain", "learned"])
def test_lambda_is_zero_when_every_key_is_far(kind):
    m = make(kind)
    src, mask = pad_sources(SRC)
    pairs = [[([5, 6, 30, EOS], [23, 24, 25, EOS])], [([10, 31, EOS], [26, 27, EOS])]]
    with torch.inference_mode():
        plain = beam_search(m, src, mask, beam=3)
        far = beam_search(m, src, mask, beam=3, **knn_input(pairs, t_lambda=1e-9))
        enc = m.encode(src, mask, **knn_input(pairs, t_lambda=1e-9))
        out, _ = m.step(m.tgt_emb(torch.tensor([1, 1])), m.init_state(enc), enc)
        m.step_log_probs(out, enc)
    assert [h.tokens for h in far] == [h.tokens for h in plain]
    assert [h.score for h in far] == pytest.approx([h.score for h in plain], abs=1e-9)
    assert torch.all(out.extras["knn"]["lam"] == 0)
    assert all(float(r[0]) == 0.0 for h in far for r in h.copy)   # nothing reported as copied


def test_the_context_model_reads_its_document_and_the_memory_together():
    m = make("context")
    src, mask = pad_sources(SRC[:1])
    doc = DocBatch(index=torch.tensor([[0, -1, -1]]), sents=torch.tensor([[13, 14, EOS]]),
                   sents_mask=torch.tensor([[True, True, True]]))
    with torch.inference_mode():
        alone = beam_search(m, src, mask, beam=3, doc=doc)[0]
        zero = beam_search(m, src, mask, beam=3, doc=doc, **knn_input([[]]))[0]
    assert zero.tokens == alone.tokens


def test_a_model_folder_s_calibration_is_read_strictly(tmp_path):
    p = tmp_path / KNN_FILE
    p.write_text(json.dumps({"t_lambda": 12.5, "k": 1, "auto": "knn", "calibration": {"multiplier": 1.0}}))
    s = KnnSettings.read(p)
    assert (s.t_lambda, s.k, s.temperature, s.auto) == (12.5, 1, 12.5, "knn")
    for bad, key in (({"t_lambda": -1}, "t_lambda"), ({"t_lambda": 3, "lambda": 2}, "lambda"),
                     ({"t_lambda": 3, "k": 0}, "k"), ({"t_lambda": 3, "auto": "both"}, "auto")):
        p.write_text(json.dumps(bad))
        with pytest.raises(ModelError) as e:
            KnnSettings.read(p)
        assert str(p) in str(e.value) and f"'{key}'" in str(e.value) and "\n" not in str(e.value)


# ------------------------------------------------------------------ a trained model end to end
def test_training_calibrates_t_lambda_and_translate_reads_it(trained_model, toy_corpus, tmp_path, monkeypatch, capsys):
    """`verso train` saved knn.json (checksummed); `verso translate --tm` reads the TM through the
    kNN memory; `--memory none` reads nothing; the learned memory is refused for a plain model."""
    from engine.cli import main
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    man = json.loads((trained_model / "manifest.json").read_text())
    assert KNN_FILE in man["files"]
    tr = Translator.load(trained_model)
    assert tr.knn is not None and tr.knn.t_lambda > 0 and tr.memory_kind() == "knn"
    cal = tr.knn.calibration
    assert cal["multiplier"] in [g["multiplier"] for g in cal["grid"]] and cal["sentences_with_pairs"] > 0
    src = toy_corpus["train_en"].read_text(encoding="utf-8").splitlines()[:60]
    tgt = toy_corpus["train_de"].read_text(encoding="utf-8").splitlines()[:60]
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many(zip(src, tgt))
    # a training sentence's own pair is a 100 % match: the kNN memory copies it, end included
    r = tr.translate([src[3]], memories=[[(src[3], tgt[3], 1.0)]], beam=4)[0]
    assert r.text == tgt[3] and r.memory_kind == "knn"
    assert all(m is not None and m.entry_index == 0 for m in r.memory)
    monkeypatch.setattr("sys.stdin", io.StringIO(src[5] + "\n"))
    assert main(["translate", "--model", str(trained_model), "--tm", str(tmp_path / "tm"), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["memory_kind"] == "knn" and row["translation"] == tgt[5]
    monkeypatch.setattr("sys.stdin", io.StringIO(src[5] + "\n"))
    assert main(["translate", "--model", str(trained_model), "--tm", str(tmp_path / "tm"), "--json",
                 "--memory", "none"]) == 0
    assert "memory_kind" not in json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.StringIO(src[5] + "\n"))
    assert main(["translate", "--model", str(trained_model), "--tm", str(tmp_path / "tm"), "--memory", "learned"]) == 2
    assert "no learned memory" in capsys.readouterr().err
    # eval: the band table names the memory it read
    assert main(["eval", "--model", str(trained_model), "--tm", str(tmp_path / "tm"), "--src",
                 str(toy_corpus["dev_en"]), "--ref", str(toy_corpus["dev_de"]), "--beam", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tm"]["memory"] == "knn" and "memory" in out["tm"]["overall"]["bleu"]


def test_knn_calibrate_writes_the_folder_and_an_uncalibrated_model_says_so(trained_model, toy_corpus, tmp_path, capsys):
    import shutil

    from engine.cli import main
    from engine.nmt.checkpoint import write_manifest
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    model = tmp_path / "m"
    shutil.copytree(trained_model, model)
    (model / KNN_FILE).unlink()
    man = json.loads((model / "manifest.json").read_text())
    write_manifest(model, best=man["best"], best_step=man["best_step"], best_bleu=man["best_dev_bleu"],
                   params=man["parameters"])
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many(zip(toy_corpus["train_en"].read_text(encoding="utf-8").splitlines(),
                        toy_corpus["train_de"].read_text(encoding="utf-8").splitlines()))
    with pytest.raises(ModelError, match="not calibrated"):
        Translator.load(model).translate(["a"], memories=[[("a", "b")]], memory_mode="knn")
    assert main(["knn", "calibrate", "--model", str(model), "--tm", str(tmp_path / "tm"),
                 "--src", str(toy_corpus["dev_en"]), "--ref", str(toy_corpus["dev_de"])]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["t_lambda"] > 0 and (model / KNN_FILE).is_file()
    assert Translator.load(model).knn.t_lambda == out["t_lambda"]   # manifest checksum updated too
