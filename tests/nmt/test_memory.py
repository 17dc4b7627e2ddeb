"""Search-engine guided NMT (issue 5): the key-value memory of retrieved TM pairs.

Model-level tests use a tiny random model; training, CLI and online
adaptation use the toy corpus (tests/nmt/toydata.py) on the CPU.
"""
from __future__ import annotations

import json
import math

import pytest
import torch

from engine.nmt.build import build_model
from engine.nmt.config import ModelConfig
from engine.nmt.memory import copy_distribution, memory_source
from engine.nmt.pairs import pack_memory
from engine.nmt.model import RNNSearch
from engine.nmt.search import beam_search
from engine.nmt.vocab import BOS, EOS, PAD

V = 40


def make(kind: str = "shallow", gate_bias: float = 2.0, **kw) -> RNNSearch:
    torch.manual_seed(0)
    cfg = ModelConfig(emb_dim=16, hidden=24, src_vocab=V, tgt_vocab=V, dropout=0.0, emb_dropout=0.0,
                      context_gate="both", memory=kind, memory_gate_bias=gate_bias, **kw)
    return build_model(cfg).eval()


def plain_twin(m: RNNSearch) -> RNNSearch:
    """The same weights without the memory."""
    cfg = ModelConfig(**{**m.cfg.__dict__, "memory": "none"})
    p = build_model(cfg).eval()
    p.load_state_dict({k: v for k, v in m.state_dict().items() if not k.startswith("context_sources.")})
    return p


def batch():
    src = torch.tensor([[5, 6, 7, 8, EOS], [9, 10, 11, EOS, PAD]])
    tgt_in = torch.tensor([[BOS, 12, 13, 14, 15], [BOS, 16, 17, 18, PAD]])
    return src, src != PAD, tgt_in


# two retrieved pairs for sentence 0, none for sentence 1
PAIRS = [[([5, 6, 7, EOS], [12, 13, 30, EOS]), ([5, 20, EOS], [31, 13, EOS])], []]


# ------------------------------------------------------------------ the model
@pytest.mark.parametrize("kind", ["shallow", "deep"])
def test_zero_retrieved_pairs_give_exactly_the_plain_model(kind):
    m = make(kind)
    src, mask, tgt_in = batch()
    with torch.no_grad():
        with_mem = m(src, mask, tgt_in, memory=pack_memory(PAIRS))["log_probs"]
        without = m(src, mask, tgt_in)["log_probs"]
    # sentence 1 has no pair: bit for bit what it gets with no memory at all
    assert torch.equal(with_mem[1], without[1])
    # ... while sentence 0's distribution does change (the memory is not a no-op)
    assert (with_mem[0] - without[0]).abs().max() > 1e-3
    # and without pairs the memory model translates exactly as the same weights without a memory
    plain = plain_twin(m)
    a = beam_search(m, src, mask, beam=3)
    b = beam_search(plain, src, mask, beam=3)
    assert [h.tokens for h in a] == [h.tokens for h in b]
    assert all(math.isclose(x.score, y.score, abs_tol=1e-5) for x, y in zip(a, b))
    assert pack_memory([[], []]) is None  # a batch without pairs feeds no memory at all


def _steps(m: RNNSearch, memory, n: int = 4):
    src, mask, tgt_in = batch()
    enc = m.encode(src, mask, memory=memory)
    state = m.init_state(enc)
    for i in range(n):
        out, state = m.step(m.tgt_emb(tgt_in[:, i]), state, enc)
        yield enc, out, state


@pytest.mark.parametrize("gate_bias", [-40.0, 0.0, 40.0])
def test_mixed_distribution_is_the_mixture_and_sums_to_one(gate_bias):
    m = make("shallow", gate_bias=gate_bias)
    with torch.no_grad():
        for enc, out, _ in _steps(m, pack_memory(PAIRS)):
            lp = m.step_log_probs(out, enc)
            assert torch.isfinite(lp).all()
            p = lp.double().exp()
            assert torch.allclose(p.sum(-1), torch.ones(2, dtype=torch.float64), atol=1e-5)
            step = out.extras["memory"]
            zeta, q = step["zeta"].double(), step["q"].double()
            p_model = torch.softmax(m.logits(out.hidden, out.prev_emb, out.ctx).double(), -1)
            p_copy = copy_distribution(q, enc.extras["memory"]["tokens"], V)
            assert torch.allclose(p_copy[0].sum(), torch.tensor(1.0, dtype=torch.float64))  # q is a distribution
            expected = zeta * p_copy + (1 - zeta) * p_model        # Eq. 6
            assert torch.allclose(p, expected, atol=1e-6)


def test_training_gradients_are_those_of_the_mixture_formula():
    """The fused log-probabilities touch only the memory's tokens (a token held by
    several slots -- 13 here -- must count once): the gradient of the loss equals
    the gradient of Eq. 6 written out over the whole vocabulary."""
    m = make("shallow", gate_bias=0.0).train()
    src, mask, tgt_in = batch()
    tgt_out = torch.tensor([[12, 13, 30, 15, EOS], [16, 17, 18, EOS, PAD]])
    grads = []
    for dense in (False, True):
        m.zero_grad()
        enc = m.encode(src, mask, memory=pack_memory(PAIRS))
        state = m.init_state(enc)
        total = 0.0
        for i in range(tgt_in.size(1)):
            out, state = m.step(m.tgt_emb(tgt_in[:, i]), state, enc)
            if dense:
                step = out.extras["memory"]
                p_model = torch.softmax(m.logits(out.hidden, out.prev_emb, out.ctx).float(), -1)
                p_copy = copy_distribution(step["q"], enc.extras["memory"]["tokens"], V)
                zeta = torch.sigmoid(step["gate_logit"])
                mix = torch.log(zeta * p_copy + (1 - zeta) * p_model)
                lp = torch.where(step["has"], mix, torch.log(p_model))
            else:
                lp = m.step_log_probs(out, enc)
            keep = tgt_out[:, i] != PAD
            total = total - lp.gather(1, tgt_out[:, i:i + 1]).squeeze(1)[keep].sum()
        total.backward()
        grads.append({n: p.grad.clone() for n, p in m.named_parameters() if p.grad is not None})
    assert grads[0].keys() == grads[1].keys()
    for n in grads[0]:
        assert torch.allclose(grads[0][n], grads[1][n], atol=1e-5, rtol=1e-4), n


@pytest.mark.parametrize("gate_bias", [-60.0, 0.0, 60.0])
def test_zeta_stays_in_the_unit_interval_and_training_stays_finite(gate_bias):
    m = make("shallow", gate_bias=gate_bias)
    m.train()
    src, mask, tgt_in = batch()
    tgt_out = torch.roll(tgt_in, -1, 1)
    res = m(src, mask, tgt_in, memory=pack_memory(PAIRS))
    zetas = [o for o in _steps(m, pack_memory(PAIRS))]
    for _, out, _ in zetas:
        z = out.extras["memory"]["zeta"]
        assert (z >= 0).all() and (z <= 1).all()
        assert (z[1] == 0).all()                                  # no pairs: the gate is shut
    loss = -res["log_probs"].gather(-1, tgt_out.unsqueeze(-1)).sum()
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in m.parameters() if p.grad is not None)
    assert memory_source(m).gate_out.weight.grad is not None     # the gate learns


def test_coverage_penalty_accumulates():
    m = make("shallow", gate_bias=1.0)
    ms = memory_source(m)
    with torch.no_grad():
        ms.coverage_weight.fill_(3.0)
        total = None
        prev_beta = None
        for enc, out, state in _steps(m, pack_memory(PAIRS), n=5):
            st = out.extras["memory"]
            qz = st["q"] * st["zeta"]
            total = qz if total is None else total + qz
            beta = state.extras["mem_beta"]
            assert torch.allclose(beta, total, atol=1e-6)         # beta_t = sum_t' q_t' * zeta_t'
            if prev_beta is not None:
                assert (beta >= prev_beta - 1e-7).all() and (beta[0] > prev_beta[0]).any()
            prev_beta = beta
        assert beta[1].abs().sum() == 0                            # no memory, no coverage
        # the penalty moves weight away from used slots: q with lambda = 3 vs lambda = 0
        e = torch.bmm(enc.extras["memory"]["keys"], out.ctx.unsqueeze(-1)).squeeze(-1)[0]
        n = int(enc.extras["memory"]["mask"][0].sum())
        q0 = torch.softmax(e[:n], -1)
        # beta before the last step = total - last q*zeta
        beta_prev = (total - qz)[0, :n]
        q3 = torch.softmax(e[:n] - 3.0 * beta_prev, -1)
        assert torch.allclose(st["q"][0, :n], q3, atol=1e-5)
        assert not torch.allclose(q0, q3, atol=1e-3)


def test_deep_fusion_feeds_the_readout_not_the_output_mixture():
    m = make("deep", gate_bias=3.0)
    with torch.no_grad():
        for enc, out, _ in _steps(m, pack_memory(PAIRS), n=2):
            st = out.extras["memory"]
            lp = m.step_log_probs(out, enc)
            z = st["zeta"]
            fused = z * st["z_mem"] + (1 - z) * out.hidden          # Eq. 5
            expected = torch.log_softmax(m.logits(fused, out.prev_emb, out.ctx).float(), -1)
            assert torch.allclose(lp, expected, atol=1e-5)


# ------------------------------------------------------------------ retrieval for training
def test_training_retrieval_never_returns_the_pair_itself_and_is_cached(tmp_path):
    from engine.nmt.retrieval import TrainingRetrieval

    src = ["The red dog sees a cat.", "The red dog sees a big cat.", "A man throws the ball.",
           "A man throws the red ball.", "The red dog sees a cat.", "A child likes the house.",
           "A child likes the old house.", "The woman has a car."]
    tgt = ["Der rot Hund ein Katze sieht.", "Der rot Hund ein groß Katze sieht.", "Ein Mann der Ball wirft.",
           "Ein Mann der rot Ball wirft.", "Der rote Hund sieht eine Katze.", "Ein Kind der Haus mag.",
           "Ein Kind der alt Haus mag.", "Der Frau ein Auto hat."]
    (tmp_path / "s").write_text("\n".join(src) + "\n", encoding="utf-8")
    (tmp_path / "t").write_text("\n".join(tgt) + "\n", encoding="utf-8")

    def open_():
        return TrainingRetrieval(tmp_path / "cache", tmp_path / "s", tmp_path / "t", src, tgt, k=2,
                                 src_lang="en", tgt_lang="de")

    r = open_()
    found = r.neighbours(range(len(src)))
    assert r.searched == len(src)
    for i, n in found.items():
        assert len(n) <= 2
        for j, score in n:
            assert j != i and src[j] != src[i]                     # never itself, nor a same-source duplicate
            assert 0 < score < 1
    assert [j for j, _ in found[1]][0] == 0 or [j for j, _ in found[1]][0] == 4  # the closest other pair
    assert {j for j, _ in found[0]} & {1}                          # "... big cat." is a neighbour of line 0
    assert 4 not in {j for j, _ in found[0]} and 0 not in {j for j, _ in found[4]}
    r.close()
    again = open_()
    assert again.neighbours(range(len(src))) == found and again.searched == 0  # second run: no search
    again.close()


def test_a_score_reading_model_tells_a_100_percent_match_from_a_fuzzy_one():
    """model.memory_score: the same pair read as a 100 % and as a 50 % match
    gives another gate and another distribution; a model without it ignores scores."""
    src, mask, tgt_in = batch()

    def run(m, score):
        mb = pack_memory(PAIRS, scores=[[score, score], []])
        with torch.no_grad():
            zeta = [out.extras["memory"]["zeta"][0].item() for _, out, _ in _steps(m, mb)]
            return zeta, m(src, mask, tgt_in, memory=mb)["log_probs"]

    m = make("shallow", gate_bias=0.0, memory_score=True)
    z1, lp1 = run(m, 1.0)
    z5, lp5 = run(m, 0.5)
    assert all(abs(a - b) > 1e-4 for a, b in zip(z1, z5))
    assert (lp1[0] - lp5[0]).abs().max() > 1e-4
    assert torch.equal(lp1[1], lp5[1])           # the sentence without pairs is untouched
    plain = make("shallow", gate_bias=0.0)
    zp1, lpp1 = run(plain, 1.0)
    zp5, lpp5 = run(plain, 0.5)
    assert zp1 == zp5 and torch.equal(lpp1, lpp5)


def test_cosine_matching_finds_the_key_equal_to_the_query_where_the_dot_product_does_not():
    """memory_match = "cosine": a decoder step whose context vector equals a
    memory key (a 100 % match read at the same position) matches that slot
    most strongly; with the paper's dot product a longer key nearby wins."""
    torch.manual_seed(0)
    A = 48                                       # annotation size of make(): 2 * hidden
    base = torch.randn(6, A)
    keys_c = torch.cat([base[:3], base[3:] * 3.0])  # later slots: same directions, longer vectors
    keys_c[3] = keys_c[2] * 1.5 + 0.1 * torch.randn(A)  # slot 3 close to slot 2, but longer
    ctx = keys_c[2:3]                            # the decoder's context vector = key of slot 2
    hits = {}
    for match, init in (("cosine", 20.0), ("bilinear", 1.0)):
        ms = memory_source(make("shallow", memory_match=match, memory_metric_init=init))
        with torch.no_grad():
            e = ms.match_scores(ms.keys_of(keys_c).unsqueeze(0), ctx)
        hits[match] = e[0].argmax().item()
    assert hits["cosine"] == 2
    assert hits["bilinear"] == 3


class _FixedRetrieval:
    def __init__(self, n: int):
        self.table = {i: [((i + 1) % n, 0.8)] for i in range(n)}

    def neighbours(self, indices):
        return {i: self.table[i] for i in indices}


def test_exact_rate_shows_a_share_of_training_pairs_themselves_as_100_percent_matches():
    from engine.nmt.memory_feed import MemoryFeed

    class Vocab:
        def encode(self, text):
            return [5 + int(w) % 30 for w in text.split()]

    n = 2000
    lines = [f"{i} {i + 1} {i + 2}" for i in range(n)]
    feed = MemoryFeed(_FixedRetrieval(n), lines, lines, Vocab(), Vocab(), [], k=1, exact_rate=0.1, seed=3)
    drawn = [i for i in range(n) if feed.reads_itself(i, 0)]
    assert 150 < len(drawn) < 250                                   # about a tenth
    assert drawn == [i for i in range(n) if feed.reads_itself(i, 0)]  # the same again (a resumed run)
    assert drawn != [i for i in range(n) if feed.reads_itself(i, 1)]  # another draw next epoch
    i, j = drawn[0], next(x for x in range(n) if x not in drawn)
    mb = feed.train_inputs([i, j], epoch=0)["memory"]
    assert mb.slot_score[0, 0].item() == 1.0 and abs(mb.slot_score[1, 0].item() - 0.8) < 1e-6
    own = feed.pair_ids(i)
    assert mb.tgt_out[0, :len(own[1])].tolist() == own[1]          # line i reads its own target
    off = MemoryFeed(_FixedRetrieval(n), lines, lines, Vocab(), Vocab(), [], k=1, seed=3)  # the default
    assert not any(off.reads_itself(x, e) for x in range(n) for e in range(3))


def test_exact_rate_is_checked_in_the_config():
    from engine.errors import ConfigError
    from engine.nmt.config import ExperimentConfig

    with pytest.raises(ConfigError, match="memory_exact_rate"):
        ExperimentConfig.from_dict({"model": {"memory": "shallow"}, "train": {"memory_exact_rate": 1.5}})
    with pytest.raises(ConfigError, match="needs a memory model"):
        ExperimentConfig.from_dict({"train": {"memory_exact_rate": 0.1}})
    cfg = ExperimentConfig.from_dict({"model": {"memory": "shallow", "memory_score": True},
                                      "train": {"memory_exact_rate": 0.05}})
    assert cfg.train.memory_exact_rate == 0.05 and cfg.model.memory_score


# ------------------------------------------------------------------ starting from a baseline
def test_init_from_a_baseline_copies_its_weights_and_memory_only_freezes_them(tmp_path):
    from types import SimpleNamespace

    from engine.nmt.checkpoint import save_weights
    from engine.nmt.memory import memory_parameters
    from engine.nmt.memory_feed import start_from_baseline

    base = plain_twin(make("shallow"))
    with torch.no_grad():
        base.src_emb.weight.add_(0.5)                               # a "trained" baseline
    save_weights(base, tmp_path / "base.safetensors")
    seg = make("shallow")
    start_from_baseline(seg, SimpleNamespace(init_from=str(tmp_path / "base.safetensors"), memory_only=True, context_only=False),
                        resuming=False)
    assert torch.equal(seg.src_emb.weight, base.src_emb.weight)
    assert torch.equal(seg.out_proj.weight, base.out_proj.weight)   # tied weights follow
    ms = memory_source(seg)
    assert torch.allclose(ms.log_metric.exp(), torch.ones_like(ms.log_metric))  # new parts keep their init
    trainable = {id(p) for p in seg.parameters() if p.requires_grad}
    assert trainable == {id(p) for p in memory_parameters(seg)} and trainable


# ------------------------------------------------------------------ training, CLI, online adaptation
def seg_config_dict(corpus: dict, steps: int, **train) -> dict:
    """Config of the toy SEG-NMT model trained on :func:`_term_corpus` (K = 1 neighbour)."""
    return {
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": str(corpus["train_en"]),
                 "train_tgt": str(corpus["train_de"]), "dev_src": str(corpus["dev_en"]),
                 "dev_tgt": str(corpus["dev_de"]), "vocab_size": 200},
        "model": {"emb_dim": 32, "hidden": 48, "dropout": 0.0, "emb_dropout": 0.0, "context_gate": "both",
                  "memory": "shallow", "memory_metric_init": 10.0},
        "train": {"batch_tokens": 400, "lr": 0.01, "max_epochs": 100, "max_steps": steps, "eval_every": steps,
                  "log_every": 50, "label_smoothing": 0.0, "patience": 0, "memory_k_train": 1, **train}}


def _term_corpus(folder, families: int, seed: int = 3):
    """Toy pairs whose German word for "dog" is "Hund" or "Bello" at random per
    family; each family appears twice, differing only in the final punctuation,
    so that the retrieved neighbour (never the pair itself) tells the term."""
    import random

    from nmt.toydata import ADJ, LEXICON, NOUN, SUBJ, VERB

    rng = random.Random(seed)

    def pair(words, term, punct):
        tgt = [LEXICON[w] for w in words]
        vi = next(i for i, w in enumerate(words) if w in VERB)
        tgt = [term if t == "Hund" else t for t in tgt[:vi] + tgt[vi + 1:] + [tgt[vi]]]
        t = " ".join(tgt)
        return " ".join(words).capitalize() + punct, t[0].upper() + t[1:] + punct

    def make_split(n):
        out = []
        for _ in range(n):
            term = rng.choice(["Hund", "Bello"])
            det1, det2 = rng.choice(SUBJ), rng.choice(SUBJ)
            verb, obj = rng.choice(VERB), rng.choice([x for x in NOUN if x != "dog"])
            a1, a2 = rng.choice([None] + ADJ), rng.choice([None] + ADJ)
            words = [det1] + ([a1] if a1 else []) + ["dog", verb, det2] + ([a2] if a2 else []) + [obj]
            out += [pair(words, term, p) for p in rng.sample([".", "!", "?"], 2)]
        rng.shuffle(out)
        return out

    files = {}
    for split, n in (("train", families), ("dev", 10)):
        pairs = make_split(n)
        for side, k in (("en", 0), ("de", 1)):
            f = folder / f"{split}.{side}"
            f.write_text("".join(x[k] + "\n" for x in pairs), encoding="utf-8")
            files[f"{split}_{side}"] = f
    return files


@pytest.fixture(scope="module")
def seg_model(tmp_path_factory):
    """A toy SEG-NMT model trained with K = 1 retrieved neighbour (Algorithm 2) on
    pairs whose term only the neighbour tells: it learns to read the memory.  Tests of
    the learned memory name it (``memory_mode="learned"``): which memory ``auto`` picks
    follows the dev-set calibration, and on a 2-core Xeon this toy model's kNN measured
    better there while its kNN suggestions were degenerate ("Bello" alone)."""
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train

    root = tmp_path_factory.mktemp("seg")
    c = _term_corpus(root, TERM_FAMILIES)
    cfg = ExperimentConfig.from_dict(seg_config_dict(c, STEPS, threads=1))
    events = []
    train(cfg, root / "m", on_event=events.append)
    assert events[-1]["event"] == "done"
    return root / "m"


STEPS = 300
# 400 families (800 pairs), not 200: on an AMD EPYC VM (session 10) the 200-family toy, trained 300 steps,
# dropped the term from its suggestion, while the same run on the Intel VMs of sessions 1-9 did not.
TERM_FAMILIES = 400


def test_seg_training_caches_retrieval_and_saves_a_memory_model(seg_model):
    from engine.nmt.checkpoint import load_model

    seg = load_model(seg_model)
    assert memory_source(seg.model) is not None
    cache = sorted((seg_model / "memory").glob("neighbours-*.jsonl"))
    assert cache and len(cache[0].read_text().splitlines()) >= 400    # every training pair retrieved once
    history = [json.loads(x) for x in (seg_model / "history.jsonl").read_text().splitlines()]
    assert any(e["event"] == "eval" for e in history)                 # dev evaluated with memory


def test_a_score_reading_model_with_exact_rate_trains_and_reads_the_tm_scores(tmp_path):
    """model.memory_score + train.memory_exact_rate end to end: training runs, the
    folder describes the model, and at translation the gate reads the TM's fuzzy
    score of the retrieved pair."""
    from engine.nmt.config import ExperimentConfig
    from engine.nmt.train import train
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    c = _term_corpus(tmp_path, 60)
    d = seg_config_dict(c, 40, memory_exact_rate=0.3)
    d["model"]["memory_score"] = True
    events = []
    train(ExperimentConfig.from_dict(d), tmp_path / "m", on_event=events.append)
    assert events[-1]["event"] == "done" and any(e["event"] == "eval" for e in events)
    tr = Translator.load(tmp_path / "m")
    ms = memory_source(tr.model)
    assert tr.model.cfg.memory_score and ms.use_score
    seen: list[float] = []   # the score input of the gate (its last input column), every decoder step
    hook = ms.gate_hidden.register_forward_hook(lambda mod, inp, out: seen.extend(inp[0][:, -1].tolist()))
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("The big dog sees a small tree!", "Der groß Bello ein klein Baum sieht!")
        r = tr.translate(["The big dog sees a small tree."], tm=tm, beam=1, memory_mode="learned")[0]
    hook.remove()
    assert len(r.memory_pairs) == 1 and 0.9 < r.memory_pairs[0]["score"] < 1.0
    assert seen and all(abs(x - r.memory_pairs[0]["score"]) < 1e-3 for x in seen)


def test_adding_a_tm_pair_changes_the_next_suggestion(seg_model, tmp_path):
    """Online adaptation: the term of a pair just added to the TM is in the very next suggestion."""
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    tr = Translator.load(seg_model)
    query = "The big dog sees a small tree."
    seen = {}
    for term in ("Bello", "Hund"):
        with TranslationMemory(tmp_path / term, src_lang="en", tgt_lang="de") as tm:
            empty = tr.translate([query], tm=tm, memory_mode="learned")[0]
            assert empty.memory_pairs == []
            uid = tm.add("The big dog sees a small tree!", f"Der groß {term} ein klein Baum sieht!")
            after = tr.translate([query], tm=tm, memory_mode="learned")[0]
        assert [m["id"] for m in after.memory_pairs] == [uid]
        seen[term] = after
        assert term in after.words                                    # the suggestion uses the TM's term
        ref = after.memory[after.words.index(term)]
        assert ref is not None and ref.uid == uid and ref.word == term and ref.weight > 0.0
    assert seen["Bello"].text != seen["Hund"].text                    # ... and changes with it
    assert all(0.0 <= c <= 1.0 for r in seen.values() for c in r.copy)
    assert len(seen["Bello"].memory) == len(seen["Bello"].words) == len(seen["Bello"].copy)


def test_an_all_caps_segment_reads_the_memory_and_comes_back_in_capitals(seg_model, tmp_path):
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    tr = Translator.load(seg_model)
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        uid = tm.add("The big dog sees a small tree!", "Der groß Bello ein klein Baum sieht!")
        r = tr.translate(["THE BIG DOG SEES A SMALL TREE."], tm=tm, memory_mode="learned")[0]
    assert r.text == r.text.upper() and "BELLO" in r.words          # the TM's term, in capitals
    ref = r.memory[r.words.index("BELLO")]
    assert ref is not None and ref.uid == uid and ref.word == "Bello"   # as the memory holds it
    assert r.memory_pairs[0]["target"] == "Der groß Bello ein klein Baum sieht!"


def test_each_piece_of_a_long_segment_reads_the_segments_memory(seg_model, tmp_path):
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    tr = Translator.load(seg_model)
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        uid = tm.add("The big dog sees a small tree.", "Der groß Bello ein klein Baum sieht.")
        text = "The big dog sees a small tree. " + " ".join(["A red man has a ball."] * 12)
        r = tr.translate([text], tm=tm, k=1, split_long=40)[0]
    assert len(r.memory_pairs) == 1 and r.memory_pairs[0]["id"] == uid
    assert len(r.copy) == len(r.memory) == len(r.words)
    assert "Bello" in r.words and r.memory[r.words.index("Bello")].uid == uid


def test_a_100_percent_match_is_served_verbatim_and_the_model_still_reports_on_it(seg_model, tmp_path):
    """--exact-matches: a segment whose TM holds it word for word gets the TM's translation, as in a CAT tool;
    a 99 % match (one punctuation mark differs) is still the model's to translate."""
    from engine.nmt.translator import Translator
    from engine.tm import TranslationMemory

    tr = Translator.load(seg_model)
    odd = "Baum klein ein sieht Bello groß Der."        # in the vocabulary, in an order the model never writes
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        uid = tm.add("The big dog sees a small tree.", odd)
        queries = ["The big dog sees a small tree.", "The big dog sees a small tree!"]
        own = tr.translate(queries, tm=tm, k=1, memory_mode="learned")
        served = tr.translate(queries, tm=tm, k=1, exact_matches=True, memory_mode="learned")
    assert own[0].text != odd and own[0].exact_match is None           # the model on its own edits the match
    r = served[0]
    assert r.text == odd and r.exact_match == 0 and r.memory_pairs[0]["id"] == uid
    assert r.words == odd.split()
    assert len(r.alignment) == len(r.copy) == len(r.memory) == len(r.words)   # the panels still have their data
    assert r.score < 0.0 and r.to_json()["exact_match"] == 0
    assert served[1].text == own[1].text and served[1].exact_match is None


def test_cli_translate_and_eval_with_a_tm(seg_model, trained_model, tmp_path, capsys, monkeypatch):
    import io

    from engine.cli import main
    from engine.tm import TranslationMemory

    folder = seg_model.parent
    src = (folder / "train.en").read_text(encoding="utf-8").splitlines()[:80]
    tgt = (folder / "train.de").read_text(encoding="utf-8").splitlines()[:80]
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many(zip(src, tgt))
    lines = (folder / "dev.en").read_text(encoding="utf-8").splitlines()[:3]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["translate", "--model", str(seg_model), "--tm", str(tmp_path / "tm"), "--k", "2",
                 "--json", "--beam", "2"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 3
    for r in rows:
        assert 1 <= len(r["memory_pairs"]) <= 2 and len(r["copy"]) == len(r["words"]) == len(r["memory"])
    # a plain model reads the TM through its nearest-neighbour memory (calibrated by training)
    monkeypatch.setattr("sys.stdin", io.StringIO(lines[0] + "\n"))
    assert main(["translate", "--model", str(trained_model), "--tm", str(tmp_path / "tm")]) == 0
    capsys.readouterr()
    # eval: BLEU per fuzzy band for TM copy, model without and with memory
    assert main(["eval", "--model", str(seg_model), "--tm", str(tmp_path / "tm"), "--src",
                 str(folder / "dev.en"), "--ref", str(folder / "dev.de"), "--beam", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    bands = out["tm"]["bands"]
    assert sum(b["sentences"] for b in bands) == out["sentences"]
    assert {b["band"] for b in bands} <= {"<0.3", "0.3-0.5", "0.5-0.7", "0.7-0.9", ">=0.9"}
    assert set(out["tm"]["overall"]["bleu"]) == {"tm_copy", "no_memory", "memory"}
    assert out["tm"]["overall"]["bleu"]["memory"] == out["bleu"]
    assert out["tm"]["exact_matches"] is None
    # --exact-matches: sentences the TM holds word for word come back as the TM has them
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(src[:3]) + "\n"))
    assert main(["translate", "--model", str(seg_model), "--tm", str(tmp_path / "tm"), "--k", "1",
                 "--exact-matches", "--json", "--beam", "2"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["translation"] for r in rows] == tgt[:3] and [r["exact_match"] for r in rows] == [0, 0, 0]
    (tmp_path / "ex.en").write_text("\n".join(src[:3] + lines) + "\n", encoding="utf-8")
    (tmp_path / "ex.de").write_text("\n".join(tgt[:3] + lines) + "\n", encoding="utf-8")
    assert main(["eval", "--model", str(seg_model), "--tm", str(tmp_path / "tm"), "--src", str(tmp_path / "ex.en"),
                 "--ref", str(tmp_path / "ex.de"), "--beam", "1", "--exact-matches"]) == 0
    assert json.loads(capsys.readouterr().out)["tm"]["exact_matches"] >= 3


def test_pair_encodings_are_cached_at_inference_and_give_the_same_output():
    m = make("shallow")
    src, mask, tgt_in = batch()
    with torch.enable_grad():                                      # training-style: no cache
        fresh = m(src, mask, tgt_in, memory=pack_memory(PAIRS))["log_probs"].detach()
    with torch.no_grad():
        cached = m(src, mask, tgt_in, memory=pack_memory(PAIRS))["log_probs"]
        assert len(memory_source(m)._pair_cache) == 2
        again = m(src, mask, tgt_in, memory=pack_memory(PAIRS[:1] + [[PAIRS[0][1]]]))["log_probs"]
        assert len(memory_source(m)._pair_cache) == 2               # the same pairs: nothing encoded again
    assert torch.allclose(fresh, cached, atol=1e-5)
    assert torch.allclose(again[0], cached[0], atol=1e-6)
    m.train()
    assert not hasattr(memory_source(m), "_pair_cache") or not memory_source(m)._pair_cache


@pytest.mark.parametrize("beam", [1, 3])
def test_the_search_records_the_same_copy_report_as_a_second_pass(beam):
    """The copy weights the editor shades come from the search itself (no second
    pass over the translation): they equal a teacher-forced pass over the same output."""
    from engine.nmt.copyreport import trace_copies, traces_of
    from engine.nmt.search import greedy

    m = make("shallow", gate_bias=1.0)
    src, mask, _ = batch()
    mb = pack_memory(PAIRS)
    hyps = (greedy(m, src, mask, memory=mb) if beam == 1 else beam_search(m, src, mask, beam=beam, memory=mb))
    recorded = traces_of(hyps)
    assert recorded is not None
    again = trace_copies(m, src, mask, [h.tokens for h in hyps], memory=mb)
    for r, a, h in zip(recorded, again, hyps):
        assert len(r.copy) == len(h.tokens)
        assert r.pair == a.pair and r.pos == a.pos
        assert r.copy == pytest.approx(a.copy, abs=1e-5) and r.weight == pytest.approx(a.weight, abs=1e-5)
    assert any(c > 0 for c in recorded[0].copy)        # sentence 0 reads its pairs ...
    assert all(c == 0 for c in recorded[1].copy)       # ... sentence 1 has none
    # a model without memory records nothing
    assert traces_of(beam_search(plain_twin(m), src, mask, beam=2)) is None


def test_a_tm_pair_below_the_minimum_match_is_not_read(seg_model, tmp_path, capsys, monkeypatch):
    """--min-score: the model reads only pairs scoring at least that much, and translates as without a TM
    when none does; eval still puts the sentence in the band of its best match and copies it as the TM copy."""
    import io

    from engine.cli import main
    from engine.tm import TranslationMemory

    query, pair = "The big dog sees a small tree.", ("The big dog sees a small tree!", "Der groß Bello ein klein Baum sieht!")
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add(*pair)
        score = tm.search(query, k=1)[0].score
    assert 0.9 < score < 1.0

    def translate(*extra: str) -> dict:
        monkeypatch.setattr("sys.stdin", io.StringIO(query + "\n"))
        assert main(["translate", "--model", str(seg_model), "--json", *extra]) == 0
        return json.loads(capsys.readouterr().out)

    plain = translate()
    read = translate("--tm", str(tmp_path / "tm"), "--min-score", "0.5")
    above = translate("--tm", str(tmp_path / "tm"), "--min-score", "1")   # only a 100 % match would do
    assert [m["source"] for m in read["memory_pairs"]] == [pair[0]] and "Bello" in read["words"]
    assert above.get("memory_pairs", []) == [] and above["translation"] == plain["translation"]
    assert set(above.get("copy", [])) <= {0.0}                                # nothing reported as copied

    (tmp_path / "t.en").write_text(query + "\n", encoding="utf-8")
    (tmp_path / "t.de").write_text(pair[1].replace("!", ".") + "\n", encoding="utf-8")
    assert main(["eval", "--model", str(seg_model), "--tm", str(tmp_path / "tm"), "--src", str(tmp_path / "t.en"),
                 "--ref", str(tmp_path / "t.de"), "--beam", "1", "--min-score", "1"]) == 0
    out = json.loads(capsys.readouterr().out)["tm"]
    assert out["min_score"] == 1.0 and out["pairs_per_sentence"] == 0.0
    assert [b["band"] for b in out["bands"]] == [">=0.9"]               # the band of the best match, read or not
    bleu = out["overall"]["bleu"]
    assert bleu["memory"] == bleu["no_memory"] and bleu["tm_copy"] > 0

    with pytest.raises(SystemExit) as exit_:
        main(["translate", "--model", str(seg_model), "--tm", str(tmp_path / "tm"), "--min-score", "1.5"])
    assert exit_.value.code == 2 and "between 0 and 1" in capsys.readouterr().err
