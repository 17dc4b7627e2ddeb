"""The ``verso`` NMT commands as other tools call them (a stable contract)."""
import io
import json
import sys

import pytest

from nmt.toydata import toy_config_dict
from engine.cli import main
from engine.nmt.data import read_lines


def run(args, stdin: str = "", monkeypatch=None, capsys=None):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_info_prints_languages_options_and_parameters(trained_model, monkeypatch, capsys):
    rc, out, _ = run(["info", "--model", str(trained_model)], monkeypatch=monkeypatch, capsys=capsys)
    info = json.loads(out)
    assert rc == 0 and info["src_lang"] == "en" and info["tgt_lang"] == "de"
    assert info["options"]["context_gate"] == "both" and info["parameters"] > 1000


def test_translate_reads_stdin_and_writes_one_line_each(trained_model, toy_corpus, monkeypatch, capsys):
    src = read_lines(toy_corpus["dev_en"])[:4]
    rc, out, _ = run(["translate", "--model", str(trained_model), "--beam", "3"],
                     "\n".join(src[:2]) + "\n\n" + "\n".join(src[2:]) + "\n", monkeypatch, capsys)
    lines = out.split("\n")[:-1]
    assert rc == 0 and len(lines) == 5 and lines[2] == ""  # an empty line stays empty
    assert all("▁" not in ln for ln in lines)  # no subwords shown


def test_translate_json_has_tokens_attention_and_gates(trained_model, toy_corpus, monkeypatch, capsys):
    src = read_lines(toy_corpus["dev_en"])[:2]
    rc, out, _ = run(["translate", "--model", str(trained_model), "--json"], "\n".join(src) + "\n",
                     monkeypatch, capsys)
    objs = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and len(objs) == 2
    for o in objs:
        assert len(o["attention"]) == len(o["tokens"]) == len(o["token_gates"])
        assert all(len(row) == len(o["src_tokens"]) for row in o["attention"])
        assert len(o["words"]) == len(o["links"]) == len(o["gates"]) == len(o["alignment"])
        assert " ".join(o["words"]) == o["translation"]
        assert all(0 < g < 1 for g in o["token_gates"])


def test_eval_prints_scores_signature_and_length_bins(trained_model, toy_corpus, monkeypatch, capsys):
    rc, out, _ = run(["eval", "--model", str(trained_model), "--src", str(toy_corpus["dev_en"]),
                      "--ref", str(toy_corpus["dev_de"]), "--beam", "2"], monkeypatch=monkeypatch, capsys=capsys)
    res = json.loads(out)
    assert rc == 0
    assert {"bleu", "chrf", "ter", "bleu_lowercase", "signature", "bleu_by_source_length"} <= set(res)
    assert "tok:13a" in res["signature"]["bleu"] and "case:lc" in res["signature"]["bleu_lowercase"]
    assert sum(b["sentences"] for b in res["bleu_by_source_length"]) == res["sentences"] == 40


def test_align_prints_pharaoh_links(trained_model, toy_corpus, monkeypatch, capsys):
    rc, out, _ = run(["align", "--model", str(trained_model), "--src", str(toy_corpus["dev_en"]),
                      "--tgt", str(toy_corpus["dev_de"])], monkeypatch=monkeypatch, capsys=capsys)
    lines = out.splitlines()
    src, tgt = read_lines(toy_corpus["dev_en"]), read_lines(toy_corpus["dev_de"])
    assert rc == 0 and len(lines) == len(src)
    for ln, s, t in zip(lines, src, tgt):
        pairs = [tuple(map(int, x.split("-"))) for x in ln.split()]
        assert len(pairs) == len(t.split())  # one link per target word
        assert all(0 <= i < len(s.split()) and 0 <= j < len(t.split()) for i, j in pairs)


def test_score_ranks_the_reference_above_a_shuffled_one(trained_model, toy_corpus, tmp_path, monkeypatch, capsys):
    src = read_lines(toy_corpus["dev_en"])[:5]
    ref = read_lines(toy_corpus["dev_de"])[:5]
    bad = [" ".join(reversed(r.split())) for r in ref]
    (tmp_path / "s").write_text("\n".join(src + src) + "\n")
    (tmp_path / "h").write_text("\n".join(ref + bad) + "\n")
    rc, out, _ = run(["score", "--model", str(trained_model), "--src", str(tmp_path / "s"),
                      "--hyp", str(tmp_path / "h")], monkeypatch=monkeypatch, capsys=capsys)
    lp = [float(x.split("\t")[-1]) for x in out.splitlines()]
    assert rc == 0 and len(lp) == 10
    assert all(lp[i] > lp[i + 5] for i in range(5))


def test_train_from_a_toml_config(toy_corpus, tmp_path, monkeypatch, capsys):
    d = toy_config_dict(toy_corpus, train={"max_steps": 10, "eval_every": 10, "dev_max_sentences": 3})
    lines = []
    for sec, kv in d.items():
        lines.append(f"[{sec}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in kv.items()]
    cfg = tmp_path / "exp.toml"
    cfg.write_text("\n".join(lines) + "\n")
    rc, out, _ = run(["train", "--config", str(cfg), "--out", str(tmp_path / "m"), "--events"],
                     monkeypatch=monkeypatch, capsys=capsys)
    events = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and events[0]["event"] == "start" and events[-1]["event"] == "done"
    assert any(e["event"] == "eval" for e in events)
    rc, out, _ = run(["info", "--model", str(tmp_path / "m")], monkeypatch=monkeypatch, capsys=capsys)
    assert json.loads(out)["tgt_lang"] == "de"


def test_user_mistakes_are_one_line_errors(tmp_path, monkeypatch, capsys):
    rc, _, err = run(["info", "--model", str(tmp_path / "nope")], monkeypatch=monkeypatch, capsys=capsys)
    assert rc == 2 and "nope" in err and "Traceback" not in err
    (tmp_path / "bad.json").write_text('{"model": {"layers": 2}}')
    rc, _, err = run(["train", "--config", str(tmp_path / "bad.json"), "--out", str(tmp_path / "m")],
                     monkeypatch=monkeypatch, capsys=capsys)
    assert rc == 2 and "layers" in err


def _write_toml(d: dict, path) -> None:
    lines = []
    for sec, kv in d.items():
        lines.append(f"[{sec}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in kv.items()]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_sigterm_stops_training_cleanly_and_a_second_run_resumes(toy_corpus, tmp_path):
    """A run stopped by SIGTERM (the fine-tune dialog's cancel, a batch driver's deadline)
    leaves a usable model folder, and the same command continues from where it stopped."""
    import signal
    import subprocess

    from engine.nmt.translator import Translator

    cfg = tmp_path / "exp.toml"
    _write_toml(toy_config_dict(toy_corpus, train={"max_steps": 100000, "max_epochs": 100000, "eval_every": 0,
                                                   "log_every": 1, "checkpoint_every": 0}), cfg)
    out = tmp_path / "m"
    cmd = [sys.executable, "-m", "engine", "train", "--config", str(cfg), "--out", str(out), "--events"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    steps = 0
    for line in p.stdout:  # wait until it is really training
        if json.loads(line)["event"] == "step":
            steps += 1
            if steps == 5:
                p.send_signal(signal.SIGTERM)
                break
    rest, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    last = json.loads(rest.strip().splitlines()[-1])
    assert last["event"] == "cancelled" and last["step"] >= 5
    # the folder is a model: it loads and translates
    assert Translator.load(out).translate(["a b"], beam=1)[0].text is not None
    # and the same command resumes at the step where it stopped
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = json.loads(p.stdout.readline())
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=120)
    assert first["event"] == "resume" and first["step"] == last["step"]


def test_pretranslate_fills_the_rest_with_the_models_translation(trained_model, translator, toy_corpus, tmp_path,
                                                                  monkeypatch, capsys):
    """`verso doc pretranslate`: a 100 % TM match gives its translation, every other empty
    target the model's own translation, all as drafts; a target already there is kept."""
    from engine.store import Project
    from engine.tm import TranslationMemory

    src = read_lines(toy_corpus["dev_en"])[:4]
    ref = read_lines(toy_corpus["dev_de"])[:4]
    doc = tmp_path / "doc.txt"
    doc.write_text("\n\n".join(src), encoding="utf-8")
    folder = tmp_path / "proj"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_document(doc)
        segs = p.segments(1)
        p.set_target(segs[3].id, "mein eigener Entwurf")
        with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
            tm.add(segs[0].source, ref[0])
        p.add_tm_ref("tm", writable=True)
    rc, out, err = run(["doc", "pretranslate", "doc.txt", "--project", str(folder), "--model", str(trained_model),
                        "--beam", "3"], monkeypatch=monkeypatch, capsys=capsys)
    assert rc == 0 and json.loads(out) | {"model": None} == {"document_id": 1, "model": None, "tm": 1, "mt": 2,
                                                             "empty": 0, "kept": 1}
    assert "pretranslate: 3/3" in err
    with Project.open(folder) as p:
        segs = p.segments(1)
    assert (segs[0].target.text, segs[0].origin) == (ref[0], "tm")
    expected = translator.translate([src[1], src[2]], beam=3)
    assert [(s.target.text, s.origin, s.status) for s in segs[1:3]] == \
        [(r.text, "mt", "draft") for r in expected]
    assert segs[3].target.text == "mein eigener Entwurf"


def test_translate_prints_exactly_the_markup_of_each_source_line(trained_model, toy_corpus, monkeypatch, capsys):
    """Markup is read as inline codes (as `verso tm import` and the editor do) and every printed
    line carries exactly its source's tags, once each, opening before closing."""
    import re

    src = read_lines(toy_corpus["dev_en"])[:3]
    words = [s.split() for s in src]
    marked = [f"<b>{w[0]}</b> {' '.join(w[1:-1])} &amp; <ph id=\"1\"/> {w[-1]}" for w in words]
    rc, out, _ = run(["translate", "--model", str(trained_model), "--beam", "3"], "\n".join(marked) + "\n",
                     monkeypatch, capsys)
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 3
    for line in lines:
        tags = re.findall(r"<[^>]+>|&amp;", line)
        assert sorted(tags) == sorted(["<b>", "</b>", "&amp;", '<ph id="1"/>']), line
        assert line.index("<b>") < line.index("</b>")
        assert "\ue001" not in line and "\ue002" not in line


def test_translate_with_a_glossary_writes_every_term(trained_model, toy_corpus, tmp_path, monkeypatch, capsys):
    """`verso translate --glossary FILE`: the target term of each entry found in a line is in its
    translation (enforced by default), and --json reports each entry found and that it was used."""
    src = read_lines(toy_corpus["dev_en"])[:3]
    ref = read_lines(toy_corpus["dev_de"])[:3]
    rc, out, _ = run(["translate", "--model", str(trained_model), "--beam", "3"], "\n".join(src) + "\n",
                     monkeypatch, capsys)
    plain = out.splitlines()
    # a glossary entry per line: its first source word -> a reference word the plain output lacks
    rows = []
    for s, r, p in zip(src, ref, plain):
        target = next((w.strip(".,") for w in r.split() if w.strip(".,") not in p.split()), r.split()[0].strip(".,"))
        rows.append((s.split()[1], target))
    gl = tmp_path / "terms.tsv"
    gl.write_text("source\ttarget\n" + "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    rc, out, _ = run(["translate", "--model", str(trained_model), "--beam", "3", "--glossary", str(gl), "--json"],
                     "\n".join(src) + "\n", monkeypatch, capsys)
    objs = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and len(objs) == 3
    for (term_src, term_tgt), o, s in zip(rows, objs, src):
        mine = [t for t in o["terms"] if t["source"] == term_src]
        assert mine and mine[0]["used"] and term_tgt in o["translation"], (term_tgt, o["translation"])
    rc, out, _ = run(["translate", "--model", str(trained_model), "--beam", "3", "--glossary", str(gl),
                      "--terms", "off"], "\n".join(src) + "\n", monkeypatch, capsys)
    assert out.splitlines() == plain


def test_translate_with_a_tm_serves_a_100_percent_match_from_the_tm(trained_model, toy_corpus, tmp_path,
                                                                     monkeypatch, capsys):
    """`verso translate --tm`: a line the TM holds word for word gets the TM's translation (as
    pre-translation), unless --no-exact-matches; other lines are the model's."""
    from engine.tm import TranslationMemory

    src = read_lines(toy_corpus["dev_en"])[:2]
    own = "Das steht so im Speicher."
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add(src[0], own)
    args = ["translate", "--model", str(trained_model), "--beam", "3", "--tm", str(tmp_path / "tm")]
    rc, out, _ = run(args, "\n".join(src) + "\n", monkeypatch, capsys)
    assert rc == 0 and out.splitlines()[0] == own and out.splitlines()[1] != own
    rc, out, _ = run(args + ["--no-exact-matches"], "\n".join(src) + "\n", monkeypatch, capsys)
    assert rc == 0 and out.splitlines()[0] != own
