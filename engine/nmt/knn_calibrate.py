"""T_lambda for a model: how far a nearest neighbour may be and still be copied.

On the model's dev set, each sentence with retrieved pairs (top-K at the minimum match) is read
teacher-forced along its reference with the nearest-neighbour datastore of its pairs.  At every
target position t the nearest slot is at distance d_t; it is *correct* when it holds the
reference token.  Then::

    m        = median of d_t over correct nearest neighbours
    T_lambda = c * m,   c in GRID, chosen by the dev BLEU of those sentences (greedy decoding;
               4.5 m, the issue's prototype's choice, wins a tie)

Each grid value also records the dev cross-entropy of the reference under the k = 1 mixture
p = lambda [nearest holds y_t] + (1 - lambda) p_model.  It is not the criterion: on the demo model
and KDE dev it was lowest *without* the memory (1.367 nats vs 1.427 at 2 m, rising to 1.534 at
9 m) while BLEU rose with it -- a wrong nearest neighbour costs the reference token much more
probability than a right one adds, but the search only needs the right one to come first.  A
BLEU grid costs one greedy decoding of the sentences with pairs per value (about 8 s for 304 KDE
dev sentences on the 2-core CPU).  For a model that also has a learned memory,
``compare_learned`` decodes them with it too and records which scored higher: that is what
``--memory auto`` reads.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import torch

from engine.errors import ModelError
from engine.nmt.data import pad_sources
from engine.nmt.knn import KNN_FILE, KnnInput, KnnMemory, KnnSettings
from engine.nmt.memory import memory_source
from engine.nmt.pairs import as_pairs, encode_pairs, pack_memory
from engine.nmt.vocab import BOS, EOS, PAD

# up to 20 m: on JRC-Acquis both baselines (300 and 1,000 steps) chose 9 m, the top of a grid that stopped there
GRID = (1.0, 1.5, 2.0, 3.0, 4.5, 6.0, 9.0, 13.5, 20.0)
DEFAULT_MULTIPLIER = 4.5


@torch.inference_mode()
def nearest_statistics(translator, srcs: Sequence[str], refs: Sequence[str], pairs: Sequence[Sequence],
                       *, batch_size: int = 32) -> dict[str, torch.Tensor]:
    """Per reference token of the sentences that have pairs: ``d`` the nearest slot's squared
    distance, ``correct`` whether it holds the token, ``lp`` log p_model(token)."""
    model, sv, tv = translator.model, translator.loaded.src_vocab, translator.loaded.tgt_vocab
    model.eval()
    dev = translator.device
    rows = [i for i, p in enumerate(pairs) if p and srcs[i].strip() and refs[i].strip()]
    ds, cs, lps = [], [], []
    for k in range(0, len(rows), batch_size):
        chunk = rows[k:k + batch_size]
        src, mask = pad_sources([sv.encode(srcs[i]) + [EOS] for i in chunk])
        ref = [tv.encode(refs[i]) + [EOS] for i in chunk]
        mb = pack_memory([encode_pairs(as_pairs(pairs[i]), sv, tv) for i in chunk], dev, with_eos=True)
        if mb is None:
            continue
        T = max(map(len, ref))
        tgt_out = torch.full((len(chunk), T), PAD, dtype=torch.long)
        tgt_in = torch.full((len(chunk), T), PAD, dtype=torch.long)
        for b, t in enumerate(ref):
            tgt_out[b, :len(t)] = torch.tensor(t)
            tgt_in[b, :len(t)] = torch.tensor([BOS] + t[:-1])
        tgt_out, tgt_in = tgt_out.to(dev), tgt_in.to(dev)
        enc = model.encode(src.to(dev), mask.to(dev), knn=KnnInput(mb, None))
        mem = enc.extras["knn"]
        state = model.init_state(enc)
        y = model.embed_target(tgt_in)
        for t in range(T):
            out, state = model.step(y[:, t], state, enc)
            lp = model.step_log_probs(out, enc)
            d = KnnMemory.distances(mem, out.readout)
            dmin, n = d.min(-1)
            gold = tgt_out[:, t]
            real = (gold != PAD) & torch.isfinite(dmin)
            ds.append(dmin[real])
            cs.append((mem["tokens"].gather(1, n.unsqueeze(1)).squeeze(1) == gold)[real])
            lps.append(lp.gather(1, gold.unsqueeze(1)).squeeze(1)[real].float())
    if not ds:
        return {"d": torch.empty(0), "correct": torch.empty(0, dtype=torch.bool), "lp": torch.empty(0),
                "sentences": torch.tensor(0)}
    return {"d": torch.cat(ds).float().cpu(), "correct": torch.cat(cs).cpu(), "lp": torch.cat(lps).cpu(),
            "sentences": torch.tensor(len(rows))}


def cross_entropy(stats: dict[str, torch.Tensor], t_lambda: float) -> float:
    """Mean -log p(reference token) under the k = 1 mixture with ``t_lambda``."""
    lam = (1.0 - stats["d"] / t_lambda).clamp(min=0.0)
    p = (1.0 - lam) * stats["lp"].exp() + lam * stats["correct"].float()
    return float(-p.clamp_min(1e-30).log().mean())


def calibrate(translator, srcs: Sequence[str], refs: Sequence[str], pairs: Sequence[Sequence], *,
              compare_learned: bool = True, beam: int = 1, where: str = "dev set") -> KnnSettings:
    """The model's :class:`KnnSettings` from its dev sentences ``srcs``/``refs`` and their
    retrieved ``pairs`` (one list per sentence; sentences without pairs are left out)."""
    stats = nearest_statistics(translator, srcs, refs, pairs)
    correct = stats["d"][stats["correct"]]
    if correct.numel() == 0:
        raise ModelError(f"{where}: no sentence has a retrieved pair whose nearest neighbour is right; "
                         "calibration needs dev sentences with TM matches")
    median = float(correct.median())
    median = max(median, 1e-6)  # a dev set of exact matches only: every correct distance 0
    rows = [i for i, p in enumerate(pairs) if p and srcs[i].strip() and refs[i].strip()]
    grid = []
    for c in GRID:
        s = KnnSettings(t_lambda=round(c * median, 6))
        grid.append({"multiplier": c, "t_lambda": s.t_lambda, "dev_bleu": _bleu(translator, s, "knn", rows, srcs,
                                                                               refs, pairs, beam),
                     "dev_cross_entropy": round(cross_entropy(stats, c * median), 5)})
    best = max(grid, key=lambda g: (g["dev_bleu"], -abs(g["multiplier"] - DEFAULT_MULTIPLIER)))
    info = {"sentences_with_pairs": len(rows), "tokens": int(stats["d"].numel()),
            "nearest_correct": round(float(stats["correct"].float().mean()), 4),
            "median_correct_distance": round(median, 6), "multiplier": best["multiplier"], "grid": grid,
            "dev_bleu_none": _bleu(translator, None, "none", rows, srcs, refs, pairs, beam),
            "dev_cross_entropy_none": round(float(-stats["lp"].mean()), 5), "beam": beam}
    auto = "knn"
    if compare_learned and memory_source(translator.model) is not None:
        info["dev_bleu_learned"] = _bleu(translator, None, "learned", rows, srcs, refs, pairs, beam)
        auto = "learned" if info["dev_bleu_learned"] > best["dev_bleu"] else "knn"
    return KnnSettings(t_lambda=best["t_lambda"], auto=auto, calibration=info)


def _bleu(translator, settings: KnnSettings | None, kind: str, rows: list[int], srcs, refs, pairs, beam: int) -> float:
    """Dev BLEU of the sentences ``rows`` read with the memory ``kind`` (``settings`` for kNN)."""
    from engine.nmt.evaluate import bleu

    previous = translator.knn
    if settings is not None:
        translator.knn = settings
    try:
        hyps = translator.translate([srcs[i] for i in rows], memories=[pairs[i] for i in rows], beam=beam,
                                    memory_mode=kind)
    finally:
        translator.knn = previous
    return round(bleu([h.text for h in hyps], [refs[i] for i in rows]), 2)


def save(folder: str | Path, settings: KnnSettings) -> Path:
    """Write ``knn.json`` into a model folder and list it in the manifest (checksummed)."""
    from engine.nmt import checkpoint as ckpt

    folder = Path(folder)
    settings.write(folder / KNN_FILE)
    man = ckpt.read_json(folder / "manifest.json")
    fixed = {"format", "version", "src_lang", "tgt_lang", "best", "best_step", "best_dev_bleu", "parameters", "files"}
    ckpt.write_manifest(folder, best=man["best"], best_step=man.get("best_step", 0),
                        best_bleu=man.get("best_dev_bleu"), params=man.get("parameters", 0),
                        extra={k: v for k, v in man.items() if k not in fixed})
    return folder / KNN_FILE


def calibrate_folder(folder: str | Path, srcs: Sequence[str], refs: Sequence[str], tm, *, k: int = 2,
                     min_score: float | None = None, max_sentences: int = 1000, beam: int = 1,
                     compare_learned: bool = True, where: str = "dev set") -> KnnSettings:
    """Calibrate the model in ``folder`` on ``srcs``/``refs`` with pairs retrieved from ``tm``
    (top-``k`` at the editor's minimum match) and save the result in the folder."""
    from engine.nmt.retrieval import MEMORY_MIN_SCORE, readable, retrieve
    from engine.nmt.translator import Translator

    floor = MEMORY_MIN_SCORE if min_score is None else min_score
    srcs, refs = list(srcs)[:max_sentences], list(refs)[:max_sentences]
    pairs = [readable(retrieve(tm, s, k=k), floor) for s in srcs]
    tr = Translator.load(folder)
    settings = calibrate(tr, srcs, refs, pairs, compare_learned=compare_learned, beam=beam, where=where)
    settings = KnnSettings(settings.t_lambda, settings.k, settings.temperature, settings.auto,
                           {**settings.calibration, "retrieved_pairs": k, "min_score": floor,
                            "dev_sentences": len(srcs)})
    save(folder, settings)
    return settings


def calibrate_training(cfg, folder: Path, src_lines: Sequence[str], tgt_lines: Sequence[str],
                       dev_src: Sequence[str], dev_ref: Sequence[str], *, k: int = 2,
                       max_sentences: int = 1000) -> dict:
    """After training: the dev sentences' top-``k`` pairs at the minimum match from a TM of the
    training pairs (the retrieval cache training with a memory uses), calibrate, save.  Returns
    the ``knn`` event (``skipped`` with the reason when the dev set has no usable match)."""
    from engine.errors import VersoError
    from engine.nmt.retrieval import MEMORY_MIN_SCORE, TrainingRetrieval
    from engine.nmt.translator import Translator

    d, tc = cfg.data, cfg.train
    cache = Path(tc.memory_cache) if tc.memory_cache else Path(folder) / "memory"
    dev_src, dev_ref = list(dev_src)[:max_sentences], list(dev_ref)[:max_sentences]
    try:
        r = TrainingRetrieval(cache, d.train_src, d.train_tgt, src_lines, tgt_lines, k=k,
                              src_lang=d.src_lang, tgt_lang=d.tgt_lang)
        try:
            pairs = [[p for p in r.pairs(n) if p.score >= MEMORY_MIN_SCORE] for n in r.query(dev_src, k=k)]
        finally:
            r.close()
        settings = calibrate(Translator.load(folder), dev_src, dev_ref, pairs, where=f"{d.dev_src}")
    except VersoError as e:
        return {"event": "knn", "skipped": str(e)}
    settings = KnnSettings(settings.t_lambda, settings.k, settings.temperature, settings.auto,
                           {**settings.calibration, "retrieved_pairs": k, "min_score": MEMORY_MIN_SCORE,
                            "dev_sentences": len(dev_src)})
    save(folder, settings)
    return {"event": "knn", "t_lambda": settings.t_lambda, "auto": settings.auto,
            "multiplier": settings.calibration["multiplier"],
            "dev_bleu": max(g["dev_bleu"] for g in settings.calibration["grid"]),
            "dev_bleu_none": settings.calibration["dev_bleu_none"]}
