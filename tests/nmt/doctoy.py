"""A tiny synthetic *document* corpus in which some words can only be translated with context.

Every sentence is "ADJ NOUN ."; a document is about the zoo or golf.  Its first
sentence names a topical noun (lion, tiger / club, tee), the next ones mostly
the nouns ``bat`` and ``seal``, translated by the document's topic (Fledermaus /
Holz, Robbe / Siegel): a sentence-level model can only guess them, a model that
reads the previous sentences can get them right.  Deterministic (fixed seed).
"""
from __future__ import annotations

import random
from pathlib import Path

TOPICS = ("zoo", "golf")
#: nouns that tell the topic (only ever seen in documents of that topic)
TOPICAL = {"zoo": {"lion": "Loewe", "tiger": "Tiger"}, "golf": {"club": "Schlaeger", "tee": "Tee"}}
#: nouns whose translation depends on the topic
AMBIGUOUS = {"bat": {"zoo": "Fledermaus", "golf": "Holz"}, "seal": {"zoo": "Robbe", "golf": "Siegel"}}
NOUNS = {"dog": "Hund", "ball": "Ball", "house": "Haus", "car": "Auto"}
ADJ = {"big": "gross", "small": "klein", "red": "rot", "old": "alt"}


def sentence(noun: str, adj: str, topic: str) -> tuple[str, str]:
    """'ADJ NOUN .' -> 'ADJ' NOUN' .' (the noun right before the full stop)."""
    if noun in AMBIGUOUS:
        tgt = AMBIGUOUS[noun][topic]
    else:
        tgt = TOPICAL[topic].get(noun) or NOUNS[noun]
    return f"{adj} {noun} .", f"{ADJ[adj]} {tgt} ."


def make_docs(n_docs: int, seed: int, max_follow: int = 3) -> list[list[tuple[str, str]]]:
    """Documents of 2 to 1 + max_follow sentences; the first names a topical noun,
    the others are ambiguous (mostly) or plain."""
    rng = random.Random(seed)
    docs = []
    follow = list(AMBIGUOUS) * 3 + list(NOUNS)
    for _ in range(n_docs):
        topic = rng.choice(TOPICS)
        doc = [sentence(rng.choice(list(TOPICAL[topic])), rng.choice(list(ADJ)), topic)]
        for _ in range(rng.randint(1, max_follow)):
            doc.append(sentence(rng.choice(follow), rng.choice(list(ADJ)), topic))
        docs.append(doc)
    return docs


def write_doc_corpus(folder: Path, *, n_train: int = 160, n_dev: int = 12, seed: int = 3,
                     markers_in_dev: bool = True, max_follow: int = 3) -> dict[str, Path]:
    """train.{en,de} with train.doc (one id per line); dev.{en,de} with '<d>' lines."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    for split, n, s in (("train", n_train, seed), ("dev", n_dev, seed + 1)):
        docs = make_docs(n, s, max_follow)
        en, de, ids = [], [], []
        for d, doc in enumerate(docs):
            if split == "dev" and markers_in_dev:
                en.append("<d>")
                de.append("<d>")
            for a, b in doc:
                en.append(a)
                de.append(b)
                ids.append(f"{split}-{d}")
        for name, lines in (("en", en), ("de", de), ("doc", ids)):
            if name == "doc" and split == "dev" and markers_in_dev:
                continue
            p = folder / f"{split}.{name}"
            p.write_text("\n".join(lines) + "\n", encoding="utf-8")
            files[f"{split}_{name}"] = p
    return files


def doc_config_dict(corpus: dict[str, Path], *, model: dict | None = None, train: dict | None = None) -> dict:
    return {
        "data": {"src_lang": "en", "tgt_lang": "de", "train_src": str(corpus["train_en"]),
                 "train_tgt": str(corpus["train_de"]), "train_docs": str(corpus["train_doc"]),
                 "dev_src": str(corpus["dev_en"]), "dev_tgt": str(corpus["dev_de"]), "vocab_size": 100},
        "model": {"emb_dim": 16, "hidden": 24, "dropout": 0.0, "emb_dropout": 0.0, "readout": "tanh", **(model or {})},
        "train": {"batch_tokens": 300, "lr": 0.02, "max_epochs": 100, "max_steps": 150, "eval_every": 0,
                  "log_every": 50, "label_smoothing": 0.0, "patience": 0, "checkpoint_every": 0,
                  **(train or {})},
    }
