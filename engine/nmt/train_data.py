"""A training run's folder and data, before the first step: :func:`prepare_data`.

It checks the folder holds the same experiment (model and data config), reads
the corpora and cuts them into documents (id files or ``<d>`` marker lines),
builds or loads the subword models (rank 0 first, under torchrun), writes the
folder's config, encodes the training pairs and the dev set, and builds the
cross-sentence context tables and the retrieval feed when the model uses them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.errors import ConfigError
from engine.nmt import checkpoint as ckpt
from engine.nmt.config import ExperimentConfig, portable_paths
from engine.nmt.data import encode_corpus, read_parallel
from engine.nmt.documents import parallel_layout
from engine.nmt.vocab import EOS, SubwordVocab, train_vocab


def build_vocabs(cfg: ExperimentConfig, folder: Path, src_lines: list[str],
                 tgt_lines: list[str]) -> tuple[SubwordVocab, SubwordVocab]:
    """Load the folder's subword models, or train and save them."""
    sv_name, tv_name = ckpt.vocab_files(cfg)
    d = cfg.data
    if (folder / sv_name).is_file() and (folder / tv_name).is_file():
        sv = SubwordVocab.load(folder / sv_name)
        return sv, (sv if tv_name == sv_name else SubwordVocab.load(folder / tv_name))
    kw = dict(vocab_size=d.vocab_size, tag_symbols=d.tag_symbols,
              character_coverage=d.character_coverage, sample=d.spm_sample)
    if d.joint_vocab:
        sv = train_vocab(src_lines + tgt_lines, name=sv_name, **kw)
        tv = sv
    else:
        sv = train_vocab(src_lines, name=sv_name, **kw)
        tv = train_vocab(tgt_lines, name=tv_name, **kw)
    sv.save(folder / sv_name)
    if tv is not sv:
        tv.save(folder / tv_name)
    return sv, tv


@dataclass
class TrainData:
    """What the loop trains and evaluates on (sentences after document markers are stripped)."""

    src_lines: list[str]
    tgt_lines: list[str]
    dev_src: list[str]
    dev_ref: list[str]
    sv: SubwordVocab
    tv: SubwordVocab
    examples: list  # encoded training pairs (engine.nmt.data)
    dev_ids: list[list[int]]  # dev sources as subword ids + EOS
    doc_table: object = None  # engine.nmt.doccontext.ContextTable of the training set, when doc_context
    dev_table: object = None  # ... of the dev set
    mem_feed: object = None  # engine.nmt.memory_feed.MemoryFeed, when the model has a memory


def prepare_data(cfg: ExperimentConfig, folder: Path, *, is_main: bool = True, world: int = 1) -> TrainData:
    """Steps 1 and 2 of :func:`engine.nmt.train.train`: folder, config, subwords; data."""
    if world > 1:
        import torch.distributed as dist

    # -- 1. folder, config, subwords
    d, tc = cfg.data, cfg.train
    for name in ("train_src", "train_tgt", "dev_src", "dev_tgt"):
        if not getattr(d, name):
            raise ConfigError(f"data.{name} is not set")
    folder.mkdir(parents=True, exist_ok=True)
    saved_cfg = folder / "config.json"
    if saved_cfg.is_file():  # paths compared as the folder stores them (older folders: absolute)
        old = ExperimentConfig.from_dict(portable_paths(ckpt.read_json(saved_cfg), folder), where=str(saved_cfg))
        old.model.src_vocab = old.model.tgt_vocab = 0
        new = ExperimentConfig.from_dict(portable_paths(cfg.to_dict(), folder))
        new.model.src_vocab = new.model.tgt_vocab = 0
        if old.to_dict()["model"] != new.to_dict()["model"] or old.to_dict()["data"] != new.to_dict()["data"]:
            raise ConfigError(f"{folder}: holds a different experiment (model/data config differ); "
                              "use another --out folder")
    src_lines, tgt_lines = read_parallel(d.train_src, d.train_tgt)
    dev_src, dev_ref = read_parallel(d.dev_src, d.dev_tgt)
    # documents: id files or '<d>' marker lines (stripped here); plain corpora are unchanged
    train_lay, tgt_lines = parallel_layout(src_lines, tgt_lines, docs=d.train_docs, src_path=d.train_src,
                                           tgt_path=d.train_tgt)
    dev_lay, dev_ref = parallel_layout(dev_src, dev_ref, docs=d.dev_docs, src_path=d.dev_src, tgt_path=d.dev_tgt)
    src_lines, dev_src = train_lay.sentences, dev_lay.sentences
    if tc.dev_max_sentences:
        dev_src, dev_ref = dev_src[:tc.dev_max_sentences], dev_ref[:tc.dev_max_sentences]
    if is_main:
        sv, tv = build_vocabs(cfg, folder, src_lines, tgt_lines)
    if world > 1:
        dist.barrier()
        if not is_main:
            sv, tv = build_vocabs(cfg, folder, src_lines, tgt_lines)
    cfg.model.src_vocab, cfg.model.tgt_vocab = len(sv), len(tv)
    if is_main:
        ckpt.write_json(saved_cfg, portable_paths(cfg.to_dict(), folder))  # no folder of this machine

    # -- 2. data
    examples = encode_corpus(src_lines, tgt_lines, sv, tv, max_len=d.max_len)
    if not examples:
        raise ConfigError(f"{d.train_src}: no usable training pairs (empty, or all longer than data.max_len)")
    dev_ids = [sv.encode(s) + [EOS] for s in dev_src]
    doc_table = dev_table = None
    if cfg.model.doc_context:  # cross-sentence context: previous sentences of each document
        from engine.nmt.doccontext import ContextTable

        k = cfg.model.doc_k
        doc_table = ContextTable.build(src_lines, train_lay.contexts(k), sv, k, d.max_len)
        dev_table = ContextTable.build(dev_lay.sentences, dev_lay.contexts(k)[:len(dev_src)], sv, k, d.max_len)
    mem_feed = None
    if cfg.model.memory != "none":  # search-engine guided NMT: retrieved pairs (Algorithm 2)
        from engine.nmt.memory_feed import MemoryFeed

        if world > 1 and not is_main:
            dist.barrier()  # rank 0 builds the retrieval cache first; the others read it
        mem_feed = MemoryFeed.for_training(cfg, folder, src_lines, tgt_lines, dev_src, sv, tv)
        if world > 1 and is_main:
            dist.barrier()
    return TrainData(src_lines, tgt_lines, dev_src, dev_ref, sv, tv, examples, dev_ids,
                     doc_table, dev_table, mem_feed)
