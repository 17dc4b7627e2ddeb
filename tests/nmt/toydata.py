"""A tiny synthetic parallel corpus: word-for-word 'translation' with one reordering rule.

Deterministic (fixed seed), a few hundred pairs, learnable in seconds on a CPU.
"""
from __future__ import annotations

import random
from pathlib import Path

LEXICON = {
    "the": "der", "a": "ein", "dog": "Hund", "cat": "Katze", "man": "Mann", "woman": "Frau",
    "child": "Kind", "ball": "Ball", "house": "Haus", "red": "rot", "big": "groß", "small": "klein",
    "sees": "sieht", "has": "hat", "throws": "wirft", "likes": "mag", "green": "grün", "tree": "Baum",
    "car": "Auto", "blue": "blau", "old": "alt", "young": "jung", "park": "Park", "in": "im",
}
SUBJ = ["the", "a"]
ADJ = ["red", "big", "small", "green", "blue", "old", "young"]
NOUN = ["dog", "cat", "man", "woman", "child", "ball", "house", "tree", "car"]
VERB = ["sees", "has", "throws", "likes"]


def make_pair(rng: random.Random) -> tuple[str, str]:
    words = [rng.choice(SUBJ)]
    if rng.random() < 0.5:
        words.append(rng.choice(ADJ))
    words += [rng.choice(NOUN), rng.choice(VERB), rng.choice(SUBJ)]
    if rng.random() < 0.5:
        words.append(rng.choice(ADJ))
    words.append(rng.choice(NOUN))
    if rng.random() < 0.3:
        words += ["in", "the", "park"]
    tgt = [LEXICON[w] for w in words]
    # reordering: the verb goes to the end (German-like subordinate order)
    vi = next(i for i, w in enumerate(words) if w in VERB)
    tgt = tgt[:vi] + tgt[vi + 1:] + [tgt[vi]]
    src = " ".join(words).capitalize() + "."
    tgt_s = " ".join(tgt)
    return src, tgt_s[0].upper() + tgt_s[1:] + "."


def write_corpus(folder: Path, n_train: int = 400, n_dev: int = 40, seed: int = 7) -> dict[str, Path]:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for split, n in (("train", n_train), ("dev", n_dev)):
        pairs = [make_pair(rng) for _ in range(n)]
        for side, k in (("en", 0), ("de", 1)):
            p = folder / f"{split}.{side}"
            p.write_text("\n".join(x[k] for x in pairs) + "\n", encoding="utf-8")
            files[f"{split}_{side}"] = p
    return files


def toy_config_dict(corpus: dict[str, Path], *, model: dict | None = None, train: dict | None = None) -> dict:
    return {
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": str(corpus["train_en"]),
                 "train_tgt": str(corpus["train_de"]), "dev_src": str(corpus["dev_en"]),
                 "dev_tgt": str(corpus["dev_de"]), "vocab_size": 80},
        "model": {"emb_dim": 32, "hidden": 48, "dropout": 0.0, "emb_dropout": 0.0, **(model or {})},
        "train": {"batch_tokens": 400, "lr": 0.01, "max_epochs": 50, "max_steps": 200, "eval_every": 100,
                  "log_every": 50, "label_smoothing": 0.0, "patience": 0, **(train or {})},
    }
